"""Fixtures for configuration tests: a fresh registry, and throwaway packages run through the generator.

Each declared package gets a unique name, is generated with the real ``fw generate`` code and
then imported, so every test exercises the same path an application does.
"""

from __future__ import annotations

import importlib
import sys
import textwrap
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType

import pytest

from fw.configuration import registry
from fw.generate.config import generate_folders


@pytest.fixture
def fresh() -> Iterator[None]:
    """A registry holding only the framework's own registrations; the previous one comes back after."""
    saved = registry.state()
    registry.reset()
    yield
    registry.restore(saved)


Declare = Callable[..., ModuleType]


def write_package(root: Path, files: dict[str, str]) -> tuple[str, Path]:
    name = f"fwcfg_{uuid.uuid4().hex[:10]}"
    folder = root / name
    folder.mkdir(parents=True)
    (folder / "__init__.py").write_text("")
    for file, text in files.items():
        (folder / file).write_text(textwrap.dedent(text).lstrip())
    return name, folder


@pytest.fixture
def declare(tmp_path: Path, fresh: None, monkeypatch: pytest.MonkeyPatch) -> Iterator[Declare]:
    """Write ``settings.py`` into a new package, generate its loader, import it (registering)."""
    monkeypatch.syspath_prepend(str(tmp_path))

    def make(source: str, module: str = "settings") -> ModuleType:
        name, folder = write_package(tmp_path, {f"{module}.py": source})
        for output in generate_folders([folder]):
            output.path.write_text(output.text)
        return importlib.import_module(f"{name}.{module}")

    yield make
    for name in [mod for mod in sys.modules if mod.startswith("fwcfg_")]:
        del sys.modules[name]


PREAMBLE = """
from __future__ import annotations
from dataclasses import dataclass
from datetime import timedelta
from typing import Annotated
import fw
"""
