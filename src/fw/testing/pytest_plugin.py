"""pytest plugin: regenerate stale binders and config loaders before an application's tests run.

Registered through the ``pytest11`` entry point, so an application gets it by installing fw.
It acts only when the tests run inside a project whose ``pyproject.toml`` has ``[tool.fw]``.
"""

from __future__ import annotations

from pathlib import Path

import pytest


def pytest_configure(config: pytest.Config) -> None:
    from fw.generate import GenerationFailed, generate, is_stale
    from fw.generate.project import ProjectError, load_project

    try:
        project = load_project(Path(str(config.rootpath)))
    except ProjectError:
        return
    if not (project.handlers or project.config) or not is_stale(project):
        return
    try:
        generate(project)
    except GenerationFailed as failure:
        raise pytest.UsageError(f"fw generate failed:\n{failure}") from None
