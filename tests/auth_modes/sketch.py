"""A registered mode with nothing behind it, for tests of the registry and of ``fw init``'s choices."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from fw.auth.modes.base import DevEnvironment, DevIssuer, ModeSettings, Scaffold
from fw.configuration.advisory import Advisory
from fw.errors import StartupError
from fw.extension import Extension


@dataclass(frozen=True)
class SketchMode:
    """Satisfies :class:`fw.auth.Mode`; startup refuses it, as it has no extension to build."""

    name: str = "door"
    tables: tuple[str, ...] = ()
    browser: bool = True
    scaffold: Scaffold = field(default_factory=lambda: Scaffold(offered=True))

    def check(self, settings: ModeSettings) -> None:
        return None

    def extension(self, settings: ModeSettings) -> Extension:
        raise StartupError("auth.mode", self.name, "a sketch has no extension")

    def advisories(
        self, values: Mapping[str, Any], sources: Mapping[str, str], app_env: str
    ) -> list[Advisory]:
        return []

    def dev_environment(self, issuer: DevIssuer) -> DevEnvironment | None:
        return None
