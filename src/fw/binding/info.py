"""The OpenAPI ``info`` of an App: the title, version and description of the project it belongs to.

A reader of the API reference wants to know which service and which release it describes, and
the project already says so in ``pyproject.toml``; repeating it in code would drift. The project
is the one the App's handlers live in:

1. the nearest ``pyproject.toml`` above the first handler's module file that has a ``[project]``
   table: its ``name`` (the title), ``version`` and ``description`` (a module under
   ``site-packages`` is installed code and skips this step);
2. else (an installed deployment, no source tree) the installed distribution that ships the
   handler's top-level package: the same three values as ``pip install`` recorded them.

A ``version`` listed in ``[project] dynamic`` is read from the installed distribution. Without
either, the title is the handlers' top-level package and the version ``0.0.0``. The committed
document ``fw generate`` writes and the one the App serves come from the same function, so they
stay identical.
"""

from __future__ import annotations

import importlib.metadata
import inspect
import sys
import tomllib
from collections.abc import Callable, Iterable
from functools import cache
from pathlib import Path
from typing import Any

UNKNOWN_VERSION = "0.0.0"
_INSTALLED = frozenset({"site-packages", "dist-packages"})


def api_info(handlers: Iterable[Callable[..., Any]]) -> dict[str, str]:
    """``{"title", "version"[, "description"]}`` for the project of the first handler with a module."""
    for handler in handlers:
        module = getattr(inspect.unwrap(handler), "__module__", None)
        if isinstance(module, str) and module:
            return dict(_module_info(module))
    return {"title": "application", "version": UNKNOWN_VERSION}


@cache
def _module_info(module: str) -> tuple[tuple[str, str], ...]:
    top = module.partition(".")[0]
    found = _from_pyproject(_module_file(module)) or _from_distribution(top)
    info = found or {"title": top, "version": UNKNOWN_VERSION}
    return tuple(info.items())


def _module_file(module: str) -> Path | None:
    loaded = sys.modules.get(module)
    file = getattr(loaded, "__file__", None)
    return Path(file).resolve() if isinstance(file, str) else None


def _from_pyproject(file: Path | None) -> dict[str, str] | None:
    if file is None or _INSTALLED.intersection(file.parts):
        return None  # installed code: its distribution says, not a project the venv sits in
    for folder in file.parents:
        candidate = folder / "pyproject.toml"
        if not candidate.is_file():
            continue
        try:
            project = tomllib.loads(candidate.read_text(encoding="utf-8")).get("project")
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
            return None
        if not isinstance(project, dict) or not isinstance(project.get("name"), str):
            continue  # a pyproject.toml of tools only: the project is further up
        return _info(project["name"], project.get("version"), project.get("description"))
    return None


def _from_distribution(top: str) -> dict[str, str] | None:
    names = importlib.metadata.packages_distributions().get(top, [])
    for name in names:
        try:
            metadata = importlib.metadata.metadata(name)
        except importlib.metadata.PackageNotFoundError:
            continue
        summary = (metadata.get_all("Summary") or [""])[0]
        return _info(metadata["Name"], metadata["Version"], summary)
    return None


def _info(name: str, version: object, description: object) -> dict[str, str]:
    if not isinstance(version, str) or not version:
        installed = _installed_version(name)
        version = installed or UNKNOWN_VERSION
    info = {"title": name, "version": version}
    if isinstance(description, str) and description.strip():
        info["description"] = description.strip()
    return info


def _installed_version(name: str) -> str | None:
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return None
