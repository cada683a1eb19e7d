"""pytest plugin: regenerate stale binders and config loaders before an application's tests run.

Registered through the ``pytest11`` entry point, so an application gets it by installing fw.
It acts only when the tests run inside a project whose ``pyproject.toml`` has ``[tool.fw]``, and
before the first ``conftest.py`` is imported: a conftest that imports the application would
otherwise load the old generated modules, and this run would still fail as stale.
"""

from __future__ import annotations

from pathlib import Path

import pytest


def regenerate(rootpath: Path) -> None:
    """Regenerate the project at ``rootpath`` when what its generated code depends on changed."""
    from fw.generate import GenerationFailed, regenerate_if_stale
    from fw.generate.project import ProjectError, load_project

    try:
        project = load_project(rootpath)
    except ProjectError:
        return
    if not (project.handlers or project.config):
        return
    try:
        regenerate_if_stale(project)
    except GenerationFailed as failure:
        raise pytest.UsageError(f"fw generate failed:\n{failure}") from None


@pytest.hookimpl(tryfirst=True)
def pytest_load_initial_conftests(early_config: pytest.Config) -> None:
    regenerate(Path(str(early_config.rootpath)))
