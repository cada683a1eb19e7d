"""Every combination ``fw init`` offers makes a project whose own tests pass.

The matrix is not a sample: it is every ``(preset, auth, session, db)`` that
:func:`fw.scaffold.init_options` accepts, found by asking it about every value of every option
(and the option left out). Projects are generated into a temporary directory, each under a
package name of its own, and the projects needing the same servers run their tests in one
pytest child process with the servers' ``TEST_*`` variables set, the projects' own pytest
options and every warning an error. A combination whose servers
are absent here is skipped with the reason the server fixture gives.
"""

from __future__ import annotations

import itertools
import os
import re
import subprocess
import sys
import tomllib
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest

from fw.scaffold import InitOptions, ScaffoldError, init_options, scaffold
from fw.scaffold.command import parse_init_args
from fw.scaffold.options import DB_CHOICES, PRESETS, SESSION_CHOICES, auth_choices
from fw.scaffold.storage import SERVICE_VARIABLES, services

#: The fixture (tests/conftest.py) that yields each server's address, or skips naming why not.
SERVICE_FIXTURES = {
    "postgres": "postgres_dsn",
    "redis": "redis_url",
    "dynamo": "dynamo_endpoint",
    "firestore": "firestore_emulator",
}
CHILD_TIMEOUT = 600
_OUTCOME = re.compile(r"^(PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS) (\S+?)/tests/test_app\.py(?:::(\S+))?")


@dataclass(frozen=True, slots=True)
class Combination:
    preset: str
    auth: str
    session: str
    db: str

    @property
    def name(self) -> str:
        """The project's package: unique per combination, so one process imports them all."""
        return "_".join(part for part in (self.preset, self.auth, self.session, self.db) if part)

    @property
    def folder(self) -> str:
        """Its directory: not the package name, which the child's working directory would shadow."""
        return self.name.replace("_", "-")

    def choices(self) -> dict[str, str | None]:
        """The options ``fw init`` is given for it (``None``: left to its default)."""
        default = init_options(Path("x"), name="x", preset=self.preset, auth=None)
        return {
            "preset": self.preset,
            "auth": None if self.auth == default.auth else self.auth,
            "session": None if self.session in ("", "rdb") else self.session,
            "db": None if self.db in ("", "sqlite") else self.db,
        }

    def argv(self) -> list[str]:
        """The ``fw init`` command line that makes it."""
        return [f"--{option}={value}" for option, value in self.choices().items() if value is not None]


def offered_combinations() -> list[Combination]:
    """Every distinct project ``fw init`` agrees to make."""
    found: dict[Combination, None] = {}
    options: list[tuple[str | None, ...]] = [
        PRESETS,
        (None, *auth_choices()),
        (None, *SESSION_CHOICES),
        (None, *DB_CHOICES),
    ]
    for preset, auth, session, db in itertools.product(*options):
        assert preset is not None
        try:
            made = init_options(Path("project"), name="x", preset=preset, auth=auth, session=session, db=db)
        except ScaffoldError:
            continue
        found[Combination(made.preset, made.auth, made.session, made.db)] = None
    return list(found)


COMBINATIONS = offered_combinations()


def test_the_matrix_covers_every_mode_store_and_database_fw_init_offers() -> None:
    assert {combination.auth for combination in COMBINATIONS} == {*auth_choices(), "jwt_only"}
    browser = [c for c in COMBINATIONS if c.session]
    assert {c.session for c in browser} == set(SESSION_CHOICES)
    assert {c.db for c in browser if c.session in ("rdb", "cookie", "redis")} == set(DB_CHOICES)
    # 4 web sign-in modes and 2 api ones, each with 3 stores x 2 databases + 2 cloud stores;
    # plus web without sign-in, api without sign-in and api's bearer-token default.
    assert len(COMBINATIONS) == 6 * (3 * 2 + 2) + 3


def _options(root: Path, combination: Combination) -> InitOptions:
    choices = combination.choices()
    preset = choices.pop("preset")
    assert preset is not None
    return init_options(root, name=combination.name, preset=preset, **choices)


@dataclass
class GroupRun:
    """One pytest child over every project needing the same servers: outcomes per project."""

    outcomes: dict[str, list[tuple[str, str]]]
    output: str


class Matrix:
    """Generates and runs the projects of a server group the first time one of them is asked for."""

    def __init__(self, base: Path) -> None:
        self.base = base
        self.runs: dict[tuple[str, ...], GroupRun] = {}

    def run(self, group: tuple[str, ...], addresses: dict[str, str]) -> GroupRun:
        if group not in self.runs:
            try:
                self.runs[group] = self._run(group, addresses)
            except ScaffoldError as failed:  # every project of the group reports it, not only the first
                self.runs[group] = GroupRun({}, f"fw init failed: {failed}")
        return self.runs[group]

    def _run(self, group: tuple[str, ...], addresses: dict[str, str]) -> GroupRun:
        folder = self.base / ("-".join(group) or "no-server")
        folder.mkdir()
        members = [c for c in COMBINATIONS if services(_options(folder / c.folder, c)) == group]
        with ThreadPoolExecutor(max_workers=2) as pool:  # each scaffold waits on two child processes
            list(pool.map(lambda c: scaffold(_options(folder / c.folder, c)), members))
        # This folder is the rootdir, not fw's repo: the projects' own pytest options, minus the
        # paths (PYTHONPATH names every project's src).
        with (folder / members[0].folder / "pyproject.toml").open("rb") as handle:
            own = tomllib.load(handle)["tool"]["pytest"]["ini_options"]
        options = [f"{key} = {value}" for key, value in own.items() if key not in ("testpaths", "pythonpath")]
        (folder / "pytest.ini").write_text("[pytest]\n" + "\n".join(options) + "\n")
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(str(folder / c.folder / "src") for c in members)
        for variable in SERVICE_VARIABLES.values():  # only this group's servers are named
            env.pop(variable, None)
        env.update({SERVICE_VARIABLES[service]: addresses[service] for service in group})
        tests = [f"{c.folder}/tests/test_app.py" for c in members]
        command = [sys.executable, "-m", "pytest", "-W", "error", "-q", "-rA", "-p", "no:cacheprovider"]
        result = subprocess.run(
            [*command, "--import-mode=importlib", *tests],
            cwd=folder,
            env=env,
            capture_output=True,
            text=True,
            timeout=CHILD_TIMEOUT,
            check=False,
        )
        outcomes: dict[str, list[tuple[str, str]]] = {c.folder: [] for c in members}
        for line in result.stdout.splitlines():
            found = _OUTCOME.match(line)
            if found:
                outcomes.setdefault(found[2], []).append((found[1], found[3] or ""))
        return GroupRun(outcomes, result.stdout[-6000:] + result.stderr[-3000:])


@pytest.fixture(scope="module")
def matrix(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Matrix]:
    yield Matrix(tmp_path_factory.mktemp("matrix"))


def _declared_tests(root: Path) -> set[str]:
    text = (root / "tests" / "test_app.py").read_text(encoding="utf-8")
    return set(re.findall(r"^def (test_\w+)\(", text, flags=re.MULTILINE))


@pytest.mark.parametrize("combination", COMBINATIONS, ids=lambda c: c.name)
def test_a_generated_project_passes_every_one_of_its_own_tests(
    combination: Combination, matrix: Matrix, request: pytest.FixtureRequest
) -> None:
    group = services(_options(Path(combination.name), combination))
    fixture: Callable[[str], str] = request.getfixturevalue
    addresses = {service: str(fixture(SERVICE_FIXTURES[service])) for service in group}
    run = matrix.run(group, addresses)
    root = matrix.base / ("-".join(group) or "no-server") / combination.folder
    outcomes = run.outcomes.get(combination.folder)
    assert outcomes, run.output
    assert {status for status, _ in outcomes} == {"PASSED"}, run.output
    assert {test for _, test in outcomes} == _declared_tests(root)


@pytest.mark.parametrize("combination", COMBINATIONS, ids=lambda c: c.name)
def test_each_combination_is_what_its_fw_init_command_line_asks_for(
    combination: Combination, tmp_path: Path
) -> None:
    parsed = parse_init_args([str(tmp_path / "svc"), *combination.argv()])
    assert Combination(parsed.preset, parsed.auth, parsed.session, parsed.db) == combination
