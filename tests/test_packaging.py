"""What ``pyproject.toml`` ships (DESIGN 10.1): the distribution ``fw-web`` with its extras, and
every file the package reads at run time, since a wheel carries only Python packages and the
data files ``[tool.setuptools.package-data]`` names. The first tests catch a new kind of file (or
a folder without ``__init__.py``) from ``pyproject.toml`` alone; the last build the wheel and sdist
once per session and read what they carry, as ``.ci/package-check`` installs them."""

from __future__ import annotations

import re
import subprocess
import sys
import tarfile
import tomllib
import zipfile
from pathlib import Path

import pytest
from built_distributions import Distributions, built

import fw
from fw.extras import DISTRIBUTION, EXTRAS, pip_install

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = Path(fw.__file__).parent
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())


def shipped_as_data() -> set[Path]:
    patterns = PYPROJECT["tool"]["setuptools"]["package-data"]["fw"]
    return {path for pattern in patterns for path in PACKAGE.glob(pattern) if path.is_file()}


def needs_declaring(path: Path) -> bool:
    """A data file, or a module in a folder that is no package (the migration scripts)."""
    if "__pycache__" in path.parts:
        return False
    return path.suffix != ".py" or not (path.parent / "__init__.py").exists()


# The distribution.
def test_the_distribution_is_fw_web_and_messages_name_it() -> None:
    assert PYPROJECT["project"]["name"] == DISTRIBUTION == "fw-web"
    assert pip_install("redis") == "pip install 'fw-web[redis]'"


def test_every_extra_a_message_names_is_declared_and_the_test_extra_installs_them_all() -> None:
    extras = PYPROJECT["project"]["optional-dependencies"]
    assert set(EXTRAS) <= set(extras)
    assert f"{DISTRIBUTION}[{','.join(EXTRAS)}]" in extras["test"]


def test_the_command_and_the_pytest_plugin_are_entry_points_of_the_distribution() -> None:
    assert PYPROJECT["project"]["scripts"] == {"fw": "fw.cli:main"}
    assert PYPROJECT["project"]["entry-points"]["pytest11"] == {"fw": "fw.testing.pytest_plugin"}


# The files.
def test_every_file_the_package_reads_at_run_time_is_declared_package_data() -> None:
    found = {path for path in PACKAGE.rglob("*") if path.is_file() and needs_declaring(path)}
    assert sorted(str(path.relative_to(PACKAGE)) for path in found - shipped_as_data()) == []


def test_the_scripts_migrations_and_type_marker_are_among_them() -> None:
    shipped = {str(path.relative_to(PACKAGE)) for path in shipped_as_data()}
    expected = {
        "py.typed",
        "auth/webauthn/passkey.js",
        "auth/assurance/presence.js",
        "rdb/migrations/env.py",
        "rdb/migrations/script.py.mako",
        "rdb/migrations/versions/fw_0001_revocations_allowlist.py",
    }
    assert expected <= shipped


# The built distributions (python -m build, once per session).
@pytest.fixture(scope="session")
def distributions(tmp_path_factory: pytest.TempPathFactory) -> Distributions:
    return built(tmp_path_factory)


def package_files() -> set[str]:
    """Every file of the ``fw`` package in this tree, as a path inside the wheel."""
    return {
        str(path.relative_to(PACKAGE.parent))
        for path in PACKAGE.rglob("*")
        if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc"
    }


def test_the_wheel_carries_every_file_of_the_package_templates_scripts_migrations_and_marker(
    distributions: Distributions,
) -> None:
    with zipfile.ZipFile(distributions.wheel) as wheel:
        carried = {name for name in wheel.namelist() if name.startswith("fw/")}
    assert sorted(package_files() - carried) == []
    assert {
        "fw/py.typed",
        "fw/auth/webauthn/passkey.js",
        "fw/auth/assurance/presence.js",
        "fw/rdb/migrations/script.py.mako",
        "fw/rdb/migrations/versions/fw_0001_revocations_allowlist.py",
    } <= carried
    assert any(name.startswith("fw/scaffold/templates/") for name in carried)


def test_the_sdist_carries_the_package_and_the_readme_its_metadata_renders(
    distributions: Distributions,
) -> None:
    with tarfile.open(distributions.sdist) as sdist:
        top = sdist.getnames()[0].split("/")[0]
        carried = {name.removeprefix(f"{top}/src/") for name in sdist.getnames()}
    assert sorted(package_files() - carried) == []
    assert f"{top}/README.md" in carried and f"{top}/pyproject.toml" in carried


def test_the_wheel_and_sdist_pass_twine_check(distributions: Distributions) -> None:
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "twine",
            "check",
            "--strict",
            str(distributions.wheel),
            str(distributions.sdist),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_wheel_names_the_distribution_its_version_and_the_fw_command(
    distributions: Distributions,
) -> None:
    with zipfile.ZipFile(distributions.wheel) as wheel:
        info = f"fw_web-{PYPROJECT['project']['version']}.dist-info"
        metadata = wheel.read(f"{info}/METADATA").decode()
        entry_points = wheel.read(f"{info}/entry_points.txt").decode()
    assert "Name: fw-web" in metadata.splitlines()
    assert f"Version: {PYPROJECT['project']['version']}" in metadata.splitlines()
    assert "fw = fw.cli:main" in entry_points


# The release check .ci/run ends with.
def test_the_release_check_inits_a_project_for_every_auth_choice_and_the_api_preset() -> None:
    from fw.scaffold.options import AUTH_CHOICES, NOT_AVAILABLE

    script = (ROOT / ".ci" / "package-check").read_text()
    [listed] = re.findall(r"^for args in (.+); do$", script, re.MULTILINE)
    checked = [args.strip('"') for args in re.findall(r'"[^"]+"', listed)]
    expected = [f"--auth {mode}" for mode in AUTH_CHOICES if mode not in NOT_AVAILABLE] + ["--preset api"]
    assert sorted(checked) == sorted(expected)
    assert "bash .ci/package-check" in (ROOT / ".ci" / "run").read_text()
