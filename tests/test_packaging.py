"""What ``pyproject.toml`` ships (DESIGN 10.1): the distribution ``fw-web`` with its extras, and
every file the package reads at run time, since a wheel carries only Python packages and the
data files ``[tool.setuptools.package-data]`` names. ``.ci/run`` builds the wheel itself; this
catches a new kind of file (or a folder without ``__init__.py``) before that, in seconds."""

from __future__ import annotations

import tomllib
from pathlib import Path

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
        "auth/passkey/passkey.js",
        "auth/assurance/presence.js",
        "rdb/migrations/env.py",
        "rdb/migrations/script.py.mako",
        "rdb/migrations/versions/fw_0001_revocations_allowlist.py",
    }
    assert expected <= shipped
