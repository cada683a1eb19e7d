"""``fw init``: every preset and auth choice makes a project that parses, is up to date, imports
and passes its own tests; every refusal is one line and writes nothing."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path
from types import SimpleNamespace

import pytest

from fw.auth.modes import registry
from fw.auth.modes.base import Scaffold
from fw.auth.passkey import passkey_script
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
#: The modes fw dev serves a development provider for: the OpenID ones and X's stand-in.
DEV_PROVIDER_MODES = (*PROVIDER_MODES, "oauth_only")
SUBPROCESS_TIMEOUT = 300


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
        if path.is_file() and not {"__pycache__", ".pytest_cache", ".fw"}.intersection(path.parts)
    }


def test_every_choice_makes_the_same_set_of_files(projects: dict[tuple[str, str], Path]) -> None:
    for (_, auth), root in projects.items():
        name = root.name.replace("-", "_")
        script = {"public/passkey.js"} if auth in PASSKEY_MODES else set()
        migrations = set() if auth in ("none", "jwt_only") else {"migrations/README.md"}
        assert _files(root) == script | migrations | {
            "pyproject.toml",
            ".gitignore",
            ".env.example",
            "config.dev.toml",
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
        for name in ("pyproject.toml", "config.dev.toml"):
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
        assert dev_idp is (auth in DEV_PROVIDER_MODES)


def test_browser_login_config_keeps_secrets_out_and_durations_quoted(
    projects: dict[tuple[str, str], Path],
) -> None:
    for (preset, auth), root in projects.items():
        with (root / "config.dev.toml").open("rb") as handle:
            config = tomllib.load(handle)
        name = root.name.replace("-", "_")
        assert config[name] == {"greeting": "Hello", "cache_for": "1m"}
        if auth == "none":
            assert "auth" not in config and "session" not in config
            continue
        auth_table = config["auth"]
        if auth == "jwt_only":
            assert "session" not in config
            assert auth_table["mode"] == "jwt_only" and auth_table["protection"]["include"] == ["/me"]
            assert auth_table["jwt"]["issuer"] == "${AUTH_JWT_ISSUER}"
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
        if auth in PROVIDER_MODES:
            assert auth_table["oidc"]["client_secret"] == "${AUTH_OIDC_CLIENT_SECRET}"
            assert auth_table["oidc"]["issuer"] == "${AUTH_OIDC_ISSUER}"
        else:
            assert "oidc" not in auth_table
        if auth == "oauth_only":
            assert auth_table["oauth"]["provider"] == "x"
            assert auth_table["oauth"]["client_secret"] == "${AUTH_OAUTH_CLIENT_SECRET}"
            endpoints = {"authorization_endpoint", "token_endpoint", "user_endpoint"}
            assert not endpoints & set(auth_table["oauth"])  # X's own unless fw dev injects them
        else:
            assert "oauth" not in auth_table


def test_the_env_example_lists_what_to_set_and_comments_out_what_the_file_gives(
    projects: dict[tuple[str, str], Path],
) -> None:
    for (_, auth), root in projects.items():
        text = (root / ".env.example").read_text(encoding="utf-8")
        upper = root.name.replace("-", "_").upper()
        assert f"# {upper}_GREETING=Hello" in text.splitlines()
        assignments = [line for line in text.splitlines() if line and not line.startswith("#")]
        if auth == "oauth_only":
            assert assignments == ["AUTH_OAUTH_CLIENT_ID=", "AUTH_OAUTH_CLIENT_SECRET="]
        elif auth == "jwt_only":
            assert assignments == ["AUTH_JWT_ISSUER="]
        elif auth not in PROVIDER_MODES:
            assert assignments == []
        else:
            assert assignments == ["AUTH_OIDC_CLIENT_ID=", "AUTH_OIDC_CLIENT_SECRET=", "AUTH_OIDC_ISSUER="]


def test_fw_generate_reports_a_new_project_up_to_date(projects: dict[tuple[str, str], Path]) -> None:
    for root in projects.values():
        result = _run([sys.executable, "-m", "fw.cli", "generate"], root, [root / "src"])
        assert result.returncode == 0, result.stderr
        assert result.stdout.strip() == "generated code is up to date"


def test_each_project_imports_its_app_and_passes_its_own_tests(
    projects: dict[tuple[str, str], Path],
) -> None:
    base = next(iter(projects.values())).parent
    sources = [root / "src" for root in projects.values()]
    names = [root.name.replace("-", "_") for root in projects.values()]
    check = "import fw\n" + "".join(
        f"import {name}.main\nassert isinstance({name}.main.app, fw.App)\n" for name in names
    )
    imported = _run([sys.executable, "-c", check], base, sources)
    assert imported.returncode == 0, imported.stderr

    tests = [str(root / "tests" / "test_app.py") for root in projects.values()]
    run = _run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--import-mode=importlib", *tests],
        base,
        sources,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "45 passed" in run.stdout


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
        assert (projects[("web", mode)] / "public" / "passkey.js").read_bytes() == passkey_script()


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


def test_passkey_projects_declare_the_software_authenticator_their_tests_sign_in_with(
    projects: dict[tuple[str, str], Path],
) -> None:
    import tomllib

    for (_, auth), root in projects.items():
        extras = tomllib.loads((root / "pyproject.toml").read_text())["project"]["optional-dependencies"]
        assert extras["test"][0] == "pytest>=8"
        assert ("soft-fido2>=0.4.56" in extras["test"]) == (auth in PASSKEY_MODES), auth
