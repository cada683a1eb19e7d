"""The ``[[auth.assurance.policy]]`` entries: named windows checked once, when the App starts.

A policy names a window so operators can widen or narrow it without touching code: ``name``,
``max_age`` (a duration; ``0s`` is a zero-width window) and ``confirm`` (only a re-proof a guard
asked for counts). A nameless, duplicate or negative entry is a :class:`fw.ConfigError` naming
the entry's key, the value received and where it came from, because a guard resolving to the
wrong entry would silently protect an operation with the wrong window.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import timedelta

from fw.auth.assurance.requirements import Requirement, Window
from fw.auth.settings import AssurancePolicy
from fw.configuration.duration import format_duration
from fw.configuration.quoting import quoted
from fw.errors import ConfigError

#: The key of the table array, as the configuration names it.
POLICY_KEY = "auth.assurance.policy"


@dataclass(frozen=True, slots=True)
class Policies:
    """The configured policies by name, and the resolution of any requirement to a window."""

    windows: Mapping[str, Window] = field(default_factory=dict)

    @classmethod
    def from_settings(
        cls, entries: Iterable[AssurancePolicy], source_of: Callable[[str], str | None] = lambda key: None
    ) -> Policies:
        """Check every entry; raises :class:`fw.ConfigError` naming the first one that is broken."""
        source = _source(source_of)
        windows: dict[str, Window] = {}
        for index, entry in enumerate(entries):
            where = f"{POLICY_KEY}[{index}]"
            received = entry.name if isinstance(entry.name, str) else ""
            name = received.strip()
            if not name:
                raise ConfigError(
                    f"{where}.name", source, f"every assurance policy needs a name, got {quoted(received)}"
                )
            if name in windows:
                raise ConfigError(
                    f"{where}.name",
                    source,
                    f"the assurance policy {quoted(name)} is defined twice; names are unique",
                )
            if entry.max_age < timedelta(0):
                raise ConfigError(
                    f"{where}.max_age",
                    source,
                    f"{quoted(format_duration(entry.max_age))} is negative: the assurance policy "
                    f"{quoted(name)} needs a max_age of 0s or a positive duration",
                )
            seconds = int(-(-entry.max_age // timedelta(seconds=1)))
            windows[name] = Window(seconds, bool(entry.confirm))
        return cls(windows)

    def resolve(self, requirement: Requirement) -> Window | None:
        """The window ``requirement`` stands for; ``None`` for a policy name nobody configured."""
        if requirement.kind == "policy":
            return self.windows.get(requirement.name)
        return Window(requirement.seconds, requirement.kind == "confirmed")

    def names(self) -> list[str]:
        return sorted(self.windows)


def _source(source_of: Callable[[str], str | None]) -> str:
    try:
        return source_of(POLICY_KEY) or ""
    except KeyError:
        return ""
