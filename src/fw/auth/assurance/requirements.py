"""What a guarded handler demands of the session: ``max_age``, ``confirmed`` or a named ``policy``.

A requirement is a plain value built where the handler is declared, before configuration is
parsed, so a named policy stays a name until the running mode resolves it (:mod:`.policies`).
Every requirement resolves to one :class:`Window`: how many seconds back a proof may lie and
whether only a re-proof a guard asked for counts. A window of zero seconds is never filled by
elapsed time: only the step-up it asked for satisfies it, once.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from typing import Literal

#: ``max_age``: any recent proof counts (the login included); ``confirmed``: only a re-proof a
#: guard asked for; ``policy``: an ``[[auth.assurance.policy]]`` entry decides.
RequirementKind = Literal["max_age", "confirmed", "policy"]


@dataclass(frozen=True, slots=True)
class Window:
    """A resolved requirement: proofs at most ``seconds`` old, and whether they must be re-proofs."""

    seconds: int
    confirm: bool

    @property
    def once(self) -> bool:
        """A zero-width window: satisfied only by the step-up it asked for, and only once."""
        return self.seconds == 0

    def describe(self) -> str:
        kind = "confirmed" if self.confirm else "max_age"
        return f"{kind}({self.seconds}s)"


@dataclass(frozen=True, slots=True)
class Requirement:
    """One guard's demand; build it with :func:`max_age`, :func:`confirmed` or :func:`policy`."""

    kind: RequirementKind
    seconds: int = 0
    name: str = ""

    def describe(self) -> str:
        if self.kind == "policy":
            return f"policy({self.name!r})"
        return f"{self.kind}({self.seconds}s)"


def _seconds(window: timedelta, what: str) -> int:
    if not isinstance(window, timedelta):
        raise TypeError(f"fw.auth.{what} takes a datetime.timedelta, not {type(window).__name__}")
    if window < timedelta(0):
        raise ValueError(f"fw.auth.{what}: the window must not be negative (got {window})")
    # Whole seconds, rounded up: a window is never narrowed below what the code says.
    return int(-(-window // timedelta(seconds=1)))


def max_age(window: timedelta) -> Requirement:
    """Any proof (the login included) at most ``window`` old; ``timedelta(0)``: a step-up, used once."""
    return Requirement("max_age", _seconds(window, "max_age"))


def confirmed(window: timedelta) -> Requirement:
    """Only a re-proof a guard asked for, at most ``window`` old; a login never fills it.

    ``confirmed(timedelta(0))`` means "confirm this attempt": satisfied once, by the step-up it
    asked for; elapsed time never satisfies it.
    """
    return Requirement("confirmed", _seconds(window, "confirmed"))


def policy(name: str) -> Requirement:
    """The ``[[auth.assurance.policy]]`` entry called ``name`` (checked when the App starts)."""
    if not isinstance(name, str) or not name:
        raise ValueError("fw.auth.policy needs the name of an [[auth.assurance.policy]] entry")
    return Requirement("policy", name=name)
