"""Advisories: findings about settings that load but are risky, reported by ``fw doctor`` and
carried by the startup summary at their level.

The configuration layer knows no pillar's rules: a pillar that has findings to report (auth: a
revocation store that admits tokens while down, a relative redirect URL outside ``dev``)
registers a provider with :func:`register_advisories`; the configuration layer adds its own
(secrets written into the file) and masks every secret in what is reported.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal


@dataclass(frozen=True, slots=True)
class Advisory:
    """One finding: its level, the key it is about, and the sentence explaining it."""

    #: ``note`` reports a fact to act on outside fw (a URL to register), never a problem.
    level: Literal["error", "warning", "note"]
    key: str
    msg: str

    def line(self) -> str:
        return f"{self.level}: {self.msg}"


@dataclass(frozen=True, slots=True)
class AdvisoryContext:
    """What a provider reads: the resolved values and their sources by key, and ``APP_ENV``."""

    values: Mapping[str, Any]
    sources: Mapping[str, str]
    app_env: str

    def source(self, key: str) -> str:
        """Where ``key``'s value came from (``default`` when no source set it)."""
        return self.sources.get(key, "default")


AdvisoryProvider = Callable[[AdvisoryContext], Iterable[Advisory]]

_providers: list[AdvisoryProvider] = []


def register_advisories(provider: AdvisoryProvider) -> AdvisoryProvider:
    """Add a pillar's advisory provider (once; registering it again is a no-op). Usable as a decorator."""
    if provider not in _providers:
        _providers.append(provider)
    return provider


def provided(context: AdvisoryContext) -> list[Advisory]:
    """Every registered provider's findings, in registration order."""
    return [advisory for provider in _providers for advisory in provider(context)]
