"""Composes the authentication pieces into the App according to ``[auth]`` (interim)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from fw.app import App, Extension


def extension_for(app: App) -> Extension | None:
    return None
