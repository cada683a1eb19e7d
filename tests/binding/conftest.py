"""Generate the fixture application's binders once per session, as ``fw generate`` would."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from fw.generate.binders import generate_binders
from fw.generate.project import Project

HERE = Path(__file__).resolve().parent


def fixture_project(*folders: Path, cbor: bool = False) -> Project:
    return Project(HERE.parent, None, tuple(folders), (), cbor, False)


def write_if_changed(path: Path, text: str) -> None:
    if path.exists() and path.read_text() == text:
        return
    path.write_text(text)
    # A rewrite of the same size within the same second would otherwise reuse the old bytecode.
    for stale in (path.parent / "__pycache__").glob(f"{path.stem}.*.pyc"):
        stale.unlink()


@pytest.fixture(scope="session", autouse=True)
def generated_binders() -> None:
    for output in generate_binders(fixture_project(HERE / "bindapp")):
        write_if_changed(output.path, output.text)
    for output in generate_binders(fixture_project(HERE / "cborapp", cbor=True)):
        write_if_changed(output.path, output.text)


@pytest.fixture
def client() -> Iterator[TestClient]:
    from binding.bindapp.handlers import app

    with TestClient(app) as test_client:
        yield test_client
