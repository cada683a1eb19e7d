"""Reads ``[tool.fw]`` from the application's ``pyproject.toml``."""

from __future__ import annotations

import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True, slots=True)
class Project:
    """What the ``fw`` command knows about the application it works on."""

    root: Path
    app: str | None
    handlers: tuple[Path, ...]
    config: tuple[Path, ...]
    cbor: bool
    dev_idp: bool
    #: ``[tool.fw.generate] openapi`` as written; the OpenAPI generator says what it may be.
    openapi: object = None

    @property
    def source_dirs(self) -> tuple[Path, ...]:
        return tuple(dict.fromkeys(self.handlers + self.config))

    def put_on_path(self) -> None:
        """Make the project importable uninstalled: its root, and its ``src/`` for the src layout."""
        for folder in (self.root / "src", self.root):
            if folder.is_dir() and str(folder) not in sys.path:
                sys.path.insert(0, str(folder))


class ProjectError(Exception):
    """``[tool.fw]`` is missing or malformed."""


def find_pyproject(start: Path) -> Path | None:
    for folder in (start, *start.parents):
        candidate = folder / "pyproject.toml"
        if candidate.is_file():
            return candidate
    return None


def load_project(start: Path | None = None) -> Project:
    """The project whose ``pyproject.toml`` is nearest to ``start`` (default: the working directory)."""
    pyproject = find_pyproject((start or Path.cwd()).resolve())
    if pyproject is None:
        raise ProjectError("no pyproject.toml found in this directory or any parent")
    with pyproject.open("rb") as handle:
        data = tomllib.load(handle)
    tool: dict[str, Any] = data.get("tool", {}).get("fw", {})
    root = pyproject.parent
    generate = tool.get("generate", {})
    dev = tool.get("dev", {}).get("idp", {})

    def dirs(name: str) -> tuple[Path, ...]:
        value = generate.get(name, [])
        if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
            raise ProjectError(f"{pyproject}: [tool.fw.generate] {name} must be a list of directories")
        return tuple((root / item).resolve() for item in value)

    api = generate.get("api", {})
    return Project(
        root=root,
        app=tool.get("app"),
        handlers=dirs("handlers"),
        config=dirs("config"),
        cbor=bool(api.get("cbor", False)),
        dev_idp=bool(dev.get("enabled", False)),
        openapi=generate.get("openapi"),
    )
