"""fw's pytest plugin: an App a test starts without ``fw.testing.configured`` warns
(``fw.testing.UnconfiguredAppWarning``), since its configuration then depends on the folder the
test runs from. The user's tests run in a fresh interpreter in a folder of their own, as a
project's suite would."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import fw.testing
from fw.configuration import registry

USER_TESTS = """
import fw
import fw.testing
from starlette.testclient import TestClient


def create_app():
    app = fw.App()

    @app.route("GET /")
    async def home(request: fw.Request) -> fw.Response:
        return fw.JSONResponse({"hello": "world"})

    return app


def test_forgets_configured():
    with TestClient(create_app()) as client:
        assert client.get("/").json() == {"hello": "world"}


def test_states_its_configuration():
    with fw.testing.configured(toml=""), TestClient(create_app()) as client:
        assert client.get("/").json() == {"hello": "world"}
"""


def _run(folder: Path, *arguments: str) -> subprocess.CompletedProcess[str]:
    plugins = ["-p", "no:cacheprovider", "-p", "no:asyncio"]
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-rA", *plugins, *arguments],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "test_user.py").write_text(USER_TESTS)
    return tmp_path


def test_an_app_started_without_configured_warns_at_the_test_to_use_configured(project: Path) -> None:
    result = _run(project, "test_user.py::test_forgets_configured")
    assert result.returncode == 0, result.stdout + result.stderr
    output = " ".join(result.stdout.split())
    line = USER_TESTS.splitlines().index("def test_forgets_configured():") + 1
    assert f"test_user.py:{line}: UnconfiguredAppWarning" in output  # the line of the test's def
    assert "fw.testing.configured(" in output and str(project) in output
    assert "1 passed, 1 warning" in output


def test_an_app_started_inside_configured_does_not_warn(project: Path) -> None:
    result = _run(project, "-W", "error::fw.testing.UnconfiguredAppWarning", "-k", "states_its_configuration")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "1 passed" in result.stdout and "warning" not in result.stdout.lower()


def test_a_suite_that_makes_the_warning_an_error_refuses_the_unconfigured_app(project: Path) -> None:
    result = _run(project, "-W", "error::fw.testing.UnconfiguredAppWarning")
    assert result.returncode == 1
    assert "FAILED test_user.py::test_forgets_configured" in result.stdout
    assert "UnconfiguredAppWarning" in result.stdout
    assert "1 failed, 1 passed" in result.stdout


def test_the_plugin_watches_implicit_parses_while_this_run_lasts() -> None:
    watcher = registry.watch_implicit_parse(None)
    registry.watch_implicit_parse(watcher)
    assert watcher is not None and watcher.__module__ == "fw.testing.pytest_plugin"
    saved = registry.state()
    registry.restore(registry.unparsed_copy(saved))
    try:
        with pytest.warns(fw.testing.UnconfiguredAppWarning, match="test_the_plugin_watches"):
            registry.ensure_parsed()
    finally:
        registry.restore(saved)


ORDERED_TESTS = """
import fw
from starlette.testclient import TestClient


def test_a_fixture_like_step_parses_the_configuration():
    fw.parse_config([])


def test_then_starts_an_app_without_configured():
    with TestClient(fw.App()) as client:
        assert client.get("/openapi.json").status_code == 200
"""


def test_an_app_started_under_a_configuration_an_earlier_test_parsed_warns_too(tmp_path: Path) -> None:
    (tmp_path / "test_ordered.py").write_text(ORDERED_TESTS)
    result = _run(tmp_path, "test_ordered.py")
    assert result.returncode == 0, result.stdout + result.stderr
    output = " ".join(result.stdout.split())
    line = ORDERED_TESTS.splitlines().index("def test_then_starts_an_app_without_configured():") + 1
    assert f"test_ordered.py:{line}: UnconfiguredAppWarning: fw started an App" in output
    assert "2 passed, 1 warning" in output
