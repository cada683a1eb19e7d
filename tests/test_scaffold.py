"""``fw init``: every preset and auth choice makes a project that parses, is up to date, imports
and passes its own tests; every refusal is one line and writes nothing."""

from __future__ import annotations

import ast
import json
import os
import re
import subprocess
import sys
import tomllib
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace

import pytest

from fw.auth.modes import registry
from fw.auth.modes.base import Scaffold
from fw.auth.webauthn import passkey_script
from fw.cli import main
from fw.generate import is_stale
from fw.generate.project import load_project
from fw.scaffold import init_options, scaffold

#: (preset, auth) -> project name; each name is also its package and config prefix, so all
#: projects can be imported by one process (one pytest run covers every project's own tests).
CHOICES = {
    ("web", "oidc_only"): "web_login",
    ("web", "none"): "web_plain",
    ("api", "none"): "api_plain",
    ("api", "oidc_only"): "api_login",
    ("web", "oidc_passkey"): "web_passkey",
    ("web", "passkey_only"): "web_passkey_only",
    ("web", "oauth_only"): "web_oauth",
    ("api", "oauth_only"): "api_oauth",
    ("api", "jwt_only"): "api_bearer",
}
PASSKEY_MODES = ("oidc_passkey", "passkey_only")
#: The modes that sign in at an OpenID provider (fw dev starts the development provider).
PROVIDER_MODES = ("oidc_only", "oidc_passkey")
#: The modes fw dev serves a development provider for: the OpenID ones, X's stand-in and
#: jwt_only's development token issuer.
DEV_PROVIDER_MODES = (*PROVIDER_MODES, "oauth_only", "jwt_only")
SUBPROCESS_TIMEOUT = 300
OIDC_PARTS = ("ISSUER", "CLIENT_ID", "CLIENT_SECRET")


def _run(args: list[str], cwd: Path, pythonpath: list[Path]) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(str(path) for path in pythonpath)
    return subprocess.run(
        args, cwd=cwd, env=env, capture_output=True, text=True, timeout=SUBPROCESS_TIMEOUT, check=False
    )


@pytest.fixture(scope="module")
def projects(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str], Path]:
    base = tmp_path_factory.mktemp("projects")
    made: dict[tuple[str, str], Path] = {}
    for (preset, auth), name in CHOICES.items():
        root = base / name.replace("_", "-")
        chosen = None if auth == "jwt_only" else auth  # the api preset's default, never an --auth choice
        scaffold(init_options(root, name=None, preset=preset, auth=chosen))
        made[(preset, auth)] = root
    return made


def _files(root: Path) -> set[str]:
    return {
        str(path.relative_to(root))
        for path in root.rglob("*")
        if path.is_file()
        and not {"__pycache__", ".pytest_cache", ".fw", ".mypy_cache", ".ruff_cache"}.intersection(path.parts)
        and not path.name.endswith(".sqlite3")
    }


def test_every_choice_makes_the_same_set_of_files(projects: dict[tuple[str, str], Path]) -> None:
    for (preset, auth), root in projects.items():
        name = root.name.replace("-", "_")
        static = {f"src/{name}/static/favicon.ico"}
        if preset == "web":
            pages = ["base", "home", *(["account"] if auth != "none" else [])]
            pages += ["login"] if auth in PASSKEY_MODES else []
            static |= {f"src/{name}/templates/{page}.html" for page in pages}
            static.add(f"src/{name}/static/style.css")
        if auth in PASSKEY_MODES:
            static.add(f"src/{name}/static/passkey.js")
        migrations = set() if auth in ("none", "jwt_only") else {"migrations/README.md"}
        assert _files(root) == static | migrations | {
            "pyproject.toml",
            "README.md",
            ".gitignore",
            ".env.example",
            "config.dev.toml",
            "config.prod.toml",
            "tests/test_app.py",
            f"src/{name}/__init__.py",
            f"src/{name}/main.py",
            f"src/{name}/settings.py",
            f"src/{name}/_fw_config.py",
            f"src/{name}/openapi.json",
            f"src/{name}/handlers/__init__.py",
            f"src/{name}/models.py",
            f"src/{name}/_fw_binders.py",
            f"src/{name}/handlers/api/__init__.py",
            f"src/{name}/handlers/api/greetings.py",
            f"src/{name}/handlers/api/_fw_binders.py",
            f"src/{name}/handlers/_fw_binders.py",
        }


def test_every_generated_file_parses(projects: dict[tuple[str, str], Path]) -> None:
    for root in projects.values():
        for path in root.rglob("*.py"):
            ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for name in ("pyproject.toml", "config.dev.toml", "config.prod.toml"):
            with (root / name).open("rb") as handle:
                tomllib.load(handle)
        [document] = root.glob("src/*/openapi.json")
        spec = json.loads(document.read_text(encoding="utf-8"))
        assert "/greetings" in spec["paths"]


def test_the_tool_table_points_at_the_app_and_its_generated_directories(
    projects: dict[tuple[str, str], Path],
) -> None:
    for (_, auth), root in projects.items():
        name = root.name.replace("-", "_")
        with (root / "pyproject.toml").open("rb") as handle:
            tool = tomllib.load(handle)["tool"]
        assert tool["fw"]["app"] == f"{name}.main:app"
        assert tool["fw"]["generate"] == {"handlers": [f"src/{name}/handlers"], "config": [f"src/{name}"]}
        assert tool["pytest"]["ini_options"]["pythonpath"] == ["src"]
        assert tool["fw"].get("migrations") == (None if auth in ("none", "jwt_only") else "migrations")
        dev_idp = tool["fw"].get("dev", {}).get("idp", {}).get("enabled", False)
        assert dev_idp is (auth in DEV_PROVIDER_MODES), auth


def test_browser_login_config_keeps_secrets_out_and_durations_quoted(
    projects: dict[tuple[str, str], Path],
) -> None:
    for (preset, auth), root in projects.items():
        with (root / "config.dev.toml").open("rb") as handle:
            config = tomllib.load(handle)
        name = root.name.replace("-", "_")
        assert config[name] == {"greeting": "Hello"}
        if auth == "none":
            assert "auth" not in config and "session" not in config
            continue
        auth_table = config["auth"]
        if auth == "jwt_only":
            assert "session" not in config
            assert auth_table["mode"] == "jwt_only" and auth_table["protection"]["include"] == ["/me"]
            assert auth_table["jwt"]["audience"] == [root.name.replace("-", "_")]
            continue
        assert config["session"] == {"enabled": True, "backend": "rdb"}
        assert auth_table["backend"] == "rdb"
        assert config["middleware"]["rdb"]["dsn"] == f"sqlite:///{name}.sqlite3"
        assert auth_table["mode"] == auth
        assert auth_table["session"]["ttl"] == "24h"
        if auth == "oidc_only":
            expected = "redirect" if preset == "web" else "unauthorized"
            assert auth_table["protection"]["unauthenticated"] == expected
        assert ("oidc" in auth_table) is (auth in PROVIDER_MODES)
        if auth == "oauth_only":
            assert auth_table["oauth"]["provider"] == "x"
            endpoints = {"authorization_endpoint", "token_endpoint", "user_endpoint"}
            assert not endpoints & set(auth_table["oauth"])  # X's own unless fw dev injects them
        else:
            assert "oauth" not in auth_table


REFERENCE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


def _references(root: Path, name: str) -> set[str]:
    lines = (root / name).read_text(encoding="utf-8").splitlines()
    return {found for line in lines if not line.lstrip().startswith("#") for found in REFERENCE.findall(line)}


def test_the_dev_config_names_no_variable_that_only_fw_dev_sets(
    projects: dict[tuple[str, str], Path],
) -> None:
    # The provider's and the token issuer's variables are the settings' own environment
    # variables: fw dev and the tests set them, and a test with sign-in off needs none of them.
    for root in projects.values():
        assert _references(root, "config.dev.toml") == set(), root.name


def test_the_prod_config_references_every_secret_and_address_of_the_deployment(
    projects: dict[tuple[str, str], Path],
) -> None:
    expected = {
        "none": set(),
        "jwt_only": {"AUTH_JWT_ISSUER"},
        "oidc_only": {"DATABASE_URL", "PUBLIC_HOST", *(f"AUTH_OIDC_{part}" for part in OIDC_PARTS)},
        "oidc_passkey": {"DATABASE_URL", "PUBLIC_HOST", *(f"AUTH_OIDC_{part}" for part in OIDC_PARTS)},
        "oauth_only": {"DATABASE_URL", "PUBLIC_HOST", "AUTH_OAUTH_CLIENT_ID", "AUTH_OAUTH_CLIENT_SECRET"},
        "passkey_only": {"DATABASE_URL", "PUBLIC_HOST"},
    }
    for (_, auth), root in projects.items():
        assert _references(root, "config.prod.toml") == expected[auth], root.name
        text = (root / "config.prod.toml").read_text(encoding="utf-8")
        assert "allow_loopback_http" not in text and "127.0.0.1" not in text


def test_the_env_example_lists_every_variable_the_config_files_reference(
    projects: dict[tuple[str, str], Path],
) -> None:
    for root in projects.values():
        text = (root / ".env.example").read_text(encoding="utf-8")
        upper = root.name.replace("-", "_").upper()
        assert f"# {upper}_GREETING=Hello" in text.splitlines()
        lines = [line for line in text.splitlines() if line and not line.startswith("#")]
        assignments = {line.partition("=")[0] for line in lines}
        referenced = _references(root, "config.dev.toml") | _references(root, "config.prod.toml")
        assert assignments == referenced, root.name


def test_the_env_example_names_the_database_and_redis_variables_of_the_stores(tmp_path: Path) -> None:
    root = tmp_path / "stores"
    scaffold(init_options(root, name=None, preset="web", auth="oidc_only", session="redis", db="postgres"))
    example = (root / ".env.example").read_text(encoding="utf-8")
    prod = (root / "config.prod.toml").read_text(encoding="utf-8")
    for variable in ("DATABASE_URL", "REDIS_URL", "PUBLIC_HOST"):
        assert f"\n{variable}=\n" in example
        assert "${" + variable + "}" in prod


def test_fw_generate_reports_a_new_project_up_to_date(projects: dict[tuple[str, str], Path]) -> None:
    for root in projects.values():
        result = _run([sys.executable, "-m", "fw.cli", "generate"], root, [root / "src"])
        assert result.returncode == 0, result.stderr
        assert result.stdout.strip() == "generated code is up to date"


def test_each_project_imports_its_app(projects: dict[tuple[str, str], Path]) -> None:
    base = next(iter(projects.values())).parent
    sources = [root / "src" for root in projects.values()]
    names = [root.name.replace("-", "_") for root in projects.values()]
    check = "import fw\n" + "".join(
        f"import {name}.main\nassert isinstance({name}.main.app, fw.App)\n" for name in names
    )
    imported = _run([sys.executable, "-c", check], base, sources)
    assert imported.returncode == 0, imported.stderr


# Refusals: one line on stderr, exit status 1, nothing written.
def _refusal(capsys: pytest.CaptureFixture[str], argv: list[str]) -> str:
    assert main(argv) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.splitlines()
    assert len(lines) == 1, captured.err
    assert lines[0].startswith("fw: ")
    return lines[0]


def test_an_existing_file_is_named_and_nothing_is_written_without_force(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "my-service"
    target.mkdir()
    (target / "config.dev.toml").write_text("# mine\n")
    monkeypatch.chdir(target)  # no pyproject.toml here or above: init must not need one

    line = _refusal(capsys, ["init"])
    assert str(target / "config.dev.toml") in line and "--force" in line
    assert _files(target) == {"config.dev.toml"}
    assert (target / "config.dev.toml").read_text() == "# mine\n"

    assert main(["init", "--force", "--preset", "api"]) == 0
    out = capsys.readouterr().out
    assert "wrote src/my_service/main.py" in out
    assert out.splitlines()[-1].startswith("next: pip install -e . && fw dev")
    assert "[my_service]" in (target / "config.dev.toml").read_text()
    assert (target / "src" / "my_service" / "handlers" / "_fw_binders.py").is_file()

    # Again over the whole project: the generated files are unchanged but must not look stale.
    assert main(["init", "--force", "--preset", "api"]) == 0
    assert not is_stale(load_project(target))


def test_jwt_only_is_refused_with_the_reason(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    line = _refusal(capsys, ["init", str(tmp_path / "svc"), "--auth", "jwt_only"])
    assert "jwt_only is not offered" in line and "docs/auth-jwt.md" in line
    assert not (tmp_path / "svc").exists()


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["--auth", "none", "--session", "redis"], "--session redis: this project has no sign-in"),
        (["--auth", "none", "--db", "postgres"], "--db postgres: this project has no sign-in"),
        (["--preset", "api", "--session", "cookie"], "is a bearer-token API (jwt_only) and keeps no"),
        (["--preset", "api", "--db", "sqlite"], "is a bearer-token API (jwt_only)"),
        (["--session", "dynamo", "--db", "postgres"], "every record is kept in DynamoDB (auth.backend too)"),
        (["--session", "firestore", "--db", "sqlite"], "every record is kept in Firestore"),
        (["--session", "memcached"], "--session 'memcached' is not a choice: use one of rdb, cookie, redis"),
        (["--db", "mysql"], "--db 'mysql' is not a choice: use one of sqlite, postgres"),
    ],
)
def test_stores_that_do_not_fit_the_project_are_refused_naming_the_option(
    argv: list[str], expected: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    line = _refusal(capsys, ["init", str(tmp_path / "svc"), *argv])
    assert expected in line
    assert not (tmp_path / "svc").exists()


def test_a_cookie_session_project_gets_a_fresh_key_in_its_uncommitted_env_file(tmp_path: Path) -> None:
    keys = []
    for name in ("one", "two"):
        scaffold(init_options(tmp_path / name, name=None, preset="web", auth="oidc_only", session="cookie"))
        env = (tmp_path / name / ".env").read_text(encoding="utf-8")
        [line] = [line for line in env.splitlines() if not line.startswith("#")]
        variable, _, key = line.partition("=")
        assert variable == "SESSION_KEYRING_SECRET" and len(key) >= 43
        keys.append(key)
        assert ".env" in (tmp_path / name / ".gitignore").read_text().splitlines()
        config = (tmp_path / name / "config.dev.toml").read_text()
        assert 'keyring.secret = "${SESSION_KEYRING_SECRET}"' in config
    assert keys[0] != keys[1]


def test_a_cloud_store_keeps_every_record_and_the_project_needs_its_extra(tmp_path: Path) -> None:
    root = tmp_path / "cloud"
    scaffold(init_options(root, name=None, preset="web", auth="passkey_only", session="dynamo"))
    with (root / "config.dev.toml").open("rb") as handle:
        config = tomllib.load(handle)
    assert config["session"]["backend"] == config["auth"]["backend"] == "dynamo"
    assert "rdb" not in config["middleware"]
    assert config["middleware"]["dynamo"]["table_prefix"] == "cloud_"
    with (root / "pyproject.toml").open("rb") as handle:
        project = tomllib.load(handle)
    assert project["project"]["dependencies"] == ["fw-web[docs,passkeys,dynamo]"]
    assert "migrations" not in project["tool"]["fw"]


@pytest.mark.parametrize("mode", ["later_mode"])
def test_modes_fw_does_not_implement_yet_are_refused(
    mode: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    offered_only = SimpleNamespace(name=mode, scaffold=Scaffold(offered=True))
    monkeypatch.setitem(registry._modes, mode, offered_only)  # undone after the test
    line = _refusal(capsys, ["init", str(tmp_path / "svc"), "--auth", mode])
    assert f"--auth {mode} is not available yet" in line
    assert not (tmp_path / "svc").exists()


def test_a_passkey_project_configures_its_relying_party_for_localhost(
    projects: dict[tuple[str, str], Path],
) -> None:
    for (_, auth), root in projects.items():
        if auth not in PASSKEY_MODES:
            continue
        with (root / "config.dev.toml").open("rb") as handle:
            config = tomllib.load(handle)
        passkey = config["auth"]["passkey"]
        assert passkey["rp_id"] == "localhost"
        assert passkey["origins"] == [f"http://localhost:{config['server']['port']}"]
        assert config["auth"]["recovery"]["policy"] == ("oidc" if auth == "oidc_passkey" else "administrator")
        if auth == "passkey_only":
            assert config["auth"]["registration"]["policy"] == "administrator"


def test_a_passkey_project_gets_the_very_script_fw_serves(projects: dict[tuple[str, str], Path]) -> None:
    for mode in PASSKEY_MODES:
        root = projects[("web", mode)]
        name = root.name.replace("-", "_")
        assert (root / "src" / name / "static" / "passkey.js").read_bytes() == passkey_script()


@pytest.mark.parametrize("mode", PASSKEY_MODES)
def test_a_passkey_mode_with_the_api_preset_is_refused(
    mode: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    line = _refusal(capsys, ["init", str(tmp_path / "svc"), "--preset", "api", "--auth", mode])
    assert f"--auth {mode} signs people in on browser pages" in line and "--preset web" in line
    assert not (tmp_path / "svc").exists()


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["--name", "My-App"], "'My-App' is not a lower-case Python identifier"),
        (["--name", "2fast"], "'2fast' is not a lower-case Python identifier"),
        (["--name", "import"], "'import' is not a lower-case Python identifier"),
        (["--name", "json"], "'json' would shadow"),
        (["--name", "fw"], "'fw' would shadow"),
        (["--name", "auth"], "'auth' would shadow"),
        (["--name", "café"], "is not a lower-case Python identifier"),
        (["--auth", "ldap"], "--auth 'ldap' is not a choice"),
        (["--preset", "cli"], "--preset 'cli' is not a choice"),
        (["--colour"], "unrecognized arguments: --colour"),
    ],
)
def test_bad_choices_are_refused_in_one_line(
    argv: list[str], expected: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    line = _refusal(capsys, ["init", str(tmp_path / "svc"), *argv])
    assert expected in line
    assert not (tmp_path / "svc").exists()


def test_a_directory_name_that_is_no_identifier_asks_for_a_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    line = _refusal(capsys, ["init", str(tmp_path / "2024 service")])
    assert "'2024_service' is not a lower-case Python identifier" in line
    assert "pass --name" in line


def test_a_file_in_place_of_the_directory_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "svc").write_text("")
    line = _refusal(capsys, ["init", str(tmp_path / "svc")])
    assert "is not a directory" in line


def test_each_project_declares_what_its_tests_linter_and_type_checker_need(
    projects: dict[tuple[str, str], Path],
) -> None:
    for (_, auth), root in projects.items():
        project = tomllib.loads((root / "pyproject.toml").read_text())
        test = project["project"]["optional-dependencies"]["test"]
        assert {"pytest>=8", "pytest-asyncio>=0.24", "ruff>=0.5", "mypy>=1.10"} <= set(test)
        assert ("soft-fido2>=0.4.56" in test) == (auth in PASSKEY_MODES), auth  # SoftAuthenticator
        assert project["project"]["dependencies"][0].startswith("fw-web[")
        pytest_options = project["tool"]["pytest"]["ini_options"]
        assert pytest_options["asyncio_default_fixture_loop_scope"] == "function"
        assert project["tool"]["mypy"]["strict"] is True


# Each project as its developer meets it: its README, its linter and type checker, its own
# tests (in its own directory, so its own pytest settings apply) and its pages.
CHOICE_IDS = list(CHOICES.values())
#: Generous: every project's ruff, mypy, own tests and pages, three at a time, on a slow machine.
CHECKS_TIMEOUT = 900


def _in_project(args: list[str], root: Path) -> subprocess.CompletedProcess[str]:
    """``args`` in the project's directory with its ``src`` importable (as an editable install
    makes it), under none of the shell's ``AUTH_*`` or ``TEST_*`` variables."""
    env = {key: value for key, value in os.environ.items() if not key.startswith(("AUTH_", "TEST_"))}
    env["PYTHONPATH"] = str(root / "src")
    return subprocess.run(
        args, cwd=root, env=env, capture_output=True, text=True, timeout=SUBPROCESS_TIMEOUT, check=False
    )


#: Serves a project's pages with sign-in off: nothing but AUTH_ENABLED=false is set, no provider
#: or issuer variable; prints what the pages answered on its last line.
PAGES = """
import json, pathlib
import fw.testing
from starlette.testclient import TestClient
from {name}.main import create_app

env = {{"AUTH_ENABLED": "false", "{upper}_GREETING": "<script>alert(1)</script>"}}
config = pathlib.Path("config.dev.toml").read_text("utf-8")
found = {{}}
with fw.testing.configured(toml=config, env=env), TestClient(create_app()) as client:
    for path in ("/", "/favicon.ico", "/static/style.css"):
        response = client.get(path)
        found[path] = {{
            "status": response.status_code,
            "type": response.headers.get("content-type", ""),
            "cache": response.headers.get("cache-control", ""),
            "text": response.text if path == "/" else "",
        }}
print("PAGES " + json.dumps(found))
"""


@dataclass
class Checked:
    """What a project's own tools said, run in its own directory."""

    ruff: subprocess.CompletedProcess[str]
    mypy: subprocess.CompletedProcess[str]
    tests: subprocess.CompletedProcess[str]
    pages: subprocess.CompletedProcess[str]


def _check(root: Path, mypy_cache: Path) -> Checked:
    tools = Path(sys.executable).parent
    name = root.name.replace("-", "_")
    pytest_command = [sys.executable, "-m", "pytest", "-W", "error", "-q", "-p", "no:cacheprovider", "-rA"]
    return Checked(
        ruff=_in_project([str(tools / "ruff"), "check", "--no-cache", "."], root),
        mypy=_in_project([str(tools / "mypy"), "--strict", "--cache-dir", str(mypy_cache)], root),
        tests=_in_project(pytest_command, root),
        pages=_in_project([sys.executable, "-c", PAGES.format(name=name, upper=name.upper())], root),
    )


@pytest.fixture(scope="module")
def checked(projects: dict[tuple[str, str], Path]) -> dict[tuple[str, str], Checked]:
    """Every project checked once, a few at a time; the first alone, so that the others find
    fw's part of the shared mypy cache already written."""
    cache = next(iter(projects.values())).parent / "mypy-cache"
    first, *rest = projects
    results = {first: _check(projects[first], cache)}
    with ThreadPoolExecutor(max_workers=3) as pool:
        done = pool.map(lambda choice: _check(projects[choice], cache), rest)
        results.update(zip(rest, done, strict=True))
    return results


@pytest.mark.parametrize("choice", list(CHOICES), ids=CHOICE_IDS)
def test_the_readme_says_how_to_install_run_sign_in_test_and_deploy(
    choice: tuple[str, str], projects: dict[tuple[str, str], Path]
) -> None:
    _, auth = choice
    readme = (projects[choice] / "README.md").read_text(encoding="utf-8")
    assert "python -m venv .venv && .venv/bin/pip install -e '.[test]'" in readme
    assert "fw dev" in readme and ".venv/bin/pytest" in readme and "docs/deployment.md" in readme
    if auth == "jwt_only":
        assert "fw token --sub alice" in readme
        assert 'curl -H "Authorization: Bearer $TOKEN" http://127.0.0.1:8000/me' in readme
    elif auth == "passkey_only":
        assert "fw passkey bootstrap ada" in readme and "http://localhost:8000/auth/login" in readme
    elif auth != "none":
        assert "**alice**" in readme


@pytest.mark.timeout(CHECKS_TIMEOUT)  # the first one waits for every project's checks
@pytest.mark.parametrize("choice", list(CHOICES), ids=CHOICE_IDS)
def test_a_project_passes_ruff_and_mypy_strict_as_written(
    choice: tuple[str, str], checked: dict[tuple[str, str], Checked]
) -> None:
    ruff, mypy = checked[choice].ruff, checked[choice].mypy
    assert ruff.returncode == 0, ruff.stdout + ruff.stderr
    assert mypy.returncode == 0, mypy.stdout + mypy.stderr
    assert "no issues found" in mypy.stdout


@pytest.mark.timeout(CHECKS_TIMEOUT)  # the first one waits for every project's checks
@pytest.mark.parametrize("choice", list(CHOICES), ids=CHOICE_IDS)
def test_a_project_passes_its_own_tests_without_a_single_warning(
    choice: tuple[str, str], projects: dict[tuple[str, str], Path], checked: dict[tuple[str, str], Checked]
) -> None:
    run = checked[choice].tests
    assert run.returncode == 0, run.stdout[-6000:] + run.stderr[-3000:]
    text = (projects[choice] / "tests" / "test_app.py").read_text(encoding="utf-8")
    declared = set(re.findall(r"^def (test_\w+)\(", text, re.MULTILINE))
    passed = set(re.findall(r"^PASSED tests/test_app\.py::(\w+)", run.stdout, re.MULTILINE))
    assert passed == declared, run.stdout[-6000:]
    assert "warning" not in run.stdout.lower()


@pytest.mark.timeout(CHECKS_TIMEOUT)  # the first one waits for every project's checks
@pytest.mark.parametrize("choice", list(CHOICES), ids=CHOICE_IDS)
def test_pages_are_escaped_uncached_styled_and_have_a_favicon_with_sign_in_off(
    choice: tuple[str, str], checked: dict[tuple[str, str], Checked]
) -> None:
    run = checked[choice].pages
    assert run.returncode == 0, run.stderr[-3000:]
    [line] = [line for line in run.stdout.splitlines() if line.startswith("PAGES ")]
    found = json.loads(line.removeprefix("PAGES "))
    assert found["/favicon.ico"]["status"] == 200
    assert found["/favicon.ico"]["type"] in ("image/x-icon", "image/vnd.microsoft.icon")
    home = found["/"]
    assert home["status"] == 200
    assert "max-age" not in home["cache"]
    if choice[0] == "api":
        assert json.loads(home["text"])["greeting"] == "<script>alert(1)</script>"
        return
    assert found["/static/style.css"]["status"] == 200
    assert found["/static/style.css"]["type"].startswith("text/css")
    page = home["text"]
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page and "<script>alert" not in page
    assert '<html lang="en">' in page and "<main>" in page and "<title>" in page
    assert '<link rel="stylesheet" href="/static/style.css">' in page
    assert '<link rel="icon" href="/favicon.ico">' in page


def test_no_page_is_written_as_a_python_string_with_hand_called_escaping(
    projects: dict[tuple[str, str], Path],
) -> None:
    for root in projects.values():
        for path in root.glob("src/*/*.py"):
            text = path.read_text(encoding="utf-8")
            assert "html.escape" not in text and "<html" not in text and "Cache-Control" not in text
