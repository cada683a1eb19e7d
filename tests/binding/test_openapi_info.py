"""The OpenAPI ``info`` names the project the App's handlers belong to, not a fixed placeholder."""

from __future__ import annotations

import importlib
import importlib.metadata
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest
import starlette.routing

import fw
from fw.binding.info import _module_info, api_info
from fw.binding.openapi_route import build_document


@pytest.fixture
def project(tmp_path: Path) -> Iterator[Path]:
    """An importable project folder; its modules are forgotten afterwards."""
    sys.path.insert(0, str(tmp_path))
    _module_info.cache_clear()
    try:
        yield tmp_path
    finally:
        sys.path.remove(str(tmp_path))
        for name in [name for name in sys.modules if name.startswith("shop")]:
            del sys.modules[name]
        _module_info.cache_clear()


def write_project(root: Path, pyproject: str) -> ModuleType:
    (root / "pyproject.toml").write_text(pyproject)
    package = root / "shop"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "app.py").write_text(
        "import fw\napp = fw.App()\n\n@app.route('GET /items')\n"
        "async def items(request):\n    return fw.JSONResponse([])\n"
    )
    return importlib.import_module("shop.app")


def test_the_title_version_and_description_come_from_the_projects_pyproject(project: Path) -> None:
    module = write_project(
        project, '[project]\nname = "shop"\nversion = "2.3.1"\ndescription = "  The shop\'s API. "\n'
    )
    app: fw.App = module.app
    assert build_document(app)["info"] == {
        "title": "shop",
        "version": "2.3.1",
        "description": "The shop's API.",
    }


def test_a_project_without_a_description_gets_none(project: Path) -> None:
    module = write_project(project, '[project]\nname = "shop"\nversion = "1.0"\n')
    assert build_document(module.app)["info"] == {"title": "shop", "version": "1.0"}


def test_a_pyproject_of_tools_only_is_passed_over_for_the_project_above(project: Path) -> None:
    module = write_project(project, '[project]\nname = "outer"\nversion = "4.0"\n')
    (project / "shop" / "pyproject.toml").write_text("[tool.ruff]\nline-length = 100\n")
    assert build_document(module.app)["info"]["title"] == "outer"


def test_a_dynamic_version_not_installed_is_unknown(project: Path) -> None:
    module = write_project(project, '[project]\nname = "shop-not-installed"\ndynamic = ["version"]\n')
    assert build_document(module.app)["info"]["version"] == "0.0.0"


def test_installed_code_is_described_by_its_distribution() -> None:
    info = api_info([starlette.routing.request_response])
    assert info["title"] == "starlette"
    assert info["version"] == importlib.metadata.version("starlette")


def test_an_app_without_routes_still_has_a_title_and_version() -> None:
    assert api_info([]) == {"title": "application", "version": "0.0.0"}


def test_an_explicit_info_replaces_the_projects() -> None:
    document = build_document(fw.App(), info={"title": "Billing", "version": "9"})
    assert document["info"] == {"title": "Billing", "version": "9"}
