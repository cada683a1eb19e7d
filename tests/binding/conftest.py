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


@pytest.fixture(scope="session", autouse=True)
def generated_binders() -> None:
    for output in generate_binders(fixture_project(HERE / "bindapp")):
        if not output.path.exists() or output.path.read_text() != output.text:
            output.path.write_text(output.text)
    for output in generate_binders(fixture_project(HERE / "cborapp", cbor=True)):
        if not output.path.exists() or output.path.read_text() != output.text:
            output.path.write_text(output.text)


@pytest.fixture
def client() -> Iterator[TestClient]:
    from binding.bindapp.handlers import app

    with TestClient(app) as test_client:
        yield test_client
