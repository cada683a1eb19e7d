"""pytest plugin: regenerate stale binders and config loaders before an application's tests run,
and warn when a test lets fw read its configuration implicitly.

Registered through the ``pytest11`` entry point, so an application gets it by installing fw.
Regeneration acts only when the tests run inside a project whose ``pyproject.toml`` has
``[tool.fw]``, and before the first ``conftest.py`` is imported: a conftest that imports the
application would otherwise load the old generated modules, and this run would still fail as stale.

An App started in a test without :func:`fw.testing.configured` parses the configuration as a
server would: ``config.dev.toml``, ``.env`` and the shell from the project folder, nothing from
anywhere else (auth off), so the same test passes or fails depending on where it runs; or it
finds a configuration another test or fixture parsed that way, so the result depends on the
order too. The plugin reports both (the parse, and an App starting under a configuration no
``configured`` block gave) as a :class:`fw.testing.UnconfiguredAppWarning` at the test's line.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable
from pathlib import Path

import pytest

from fw.configuration import registry
from fw.testing.configuration import UnconfiguredAppWarning


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


#: The test running now (at most one), where an implicit parse is reported; empty between tests.
_running: list[pytest.Item] = []
#: The tests already warned (one warning per test).
_warned: set[str] = set()
#: The watcher in place before this plugin's, put back when the run ends (pytester nests runs).
_previous: list[Callable[[str], None] | None] = []


def warn_unconfigured(what: str = "parsed its configuration implicitly") -> None:
    """Warn, at the running test's line, that fw is about to parse its configuration implicitly
    or start an App under a configuration no ``fw.testing.configured`` block gave."""
    if _running:
        if _running[-1].nodeid in _warned:
            return  # once per test: an App's start parses, then starts, under the same configuration
        _warned.add(_running[-1].nodeid)
    where = f" in {_running[-1].nodeid}" if _running else ""
    if what.startswith("parsed"):
        read = f"so it read config.dev.toml, .env and the environment as seen from {os.getcwd()}"
    else:
        read = (
            "so it runs under the configuration parsed from the files, .env and the environment "
            f"(as seen from {os.getcwd()}) or left by another test"
        )
    message = (
        f"fw {what}{where}: no fw.testing.configured(...) block was in force, {read} (run from "
        "another folder or in another order, the same test gets another configuration, such as "
        "defaults and auth off). Build and start the App inside "
        "`with fw.testing.configured(toml=..., env=...):`."
    )
    if not _running:
        warnings.warn(UnconfiguredAppWarning(message), stacklevel=3)
        return
    item = _running[-1]
    path, line, _ = item.location
    module = getattr(item, "module", None)
    warnings.warn_explicit(
        UnconfiguredAppWarning(message),
        UnconfiguredAppWarning,
        str(Path(str(item.config.rootpath)) / path),
        (line or 0) + 1,
        module=getattr(module, "__name__", None),
    )


def pytest_configure(config: pytest.Config) -> None:
    _previous.append(registry.watch_implicit_parse(warn_unconfigured))


def pytest_unconfigure(config: pytest.Config) -> None:
    if _previous:
        registry.watch_implicit_parse(_previous.pop())


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_protocol(item: pytest.Item) -> None:
    _running[:] = [item]  # returns None: the default protocol still runs the test


def pytest_runtest_logfinish() -> None:
    _running.clear()
