"""Serves /openapi.json (interim until the binding pillar lands)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from starlette.routing import BaseRoute

if TYPE_CHECKING:
    from fw.app import App


def openapi_routes(app: App) -> list[BaseRoute]:
    return []
