"""Registration, reading, generated loaders and the process-level behaviour of ``fw.run``."""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

import fw
from fw.auth.settings import AuthSettings, JwtSettings
from fw.configuration import registry
from fw.errors import ConfigError
from fw.generate.config import _FW_DIR, generate_folders
from fw.settings import ServerSettings

from .conftest import PREAMBLE, Declare, write_package

ROOT = Path(__file__).resolve().parents[2]

# Declarations alike in shape to other tests' sources only: each is the data its own tests read.
SOURCE = (
    PREAMBLE
    + """
@dataclass
class Inner:
    level: Annotated[int, fw.default("3")]


@dataclass
class Conf:
    name: Annotated[str, fw.default("declared")]
    wait: Annotated[timedelta, fw.default("2s")]
    inner: Inner


@dataclass
class NeverRegistered:
    name: Annotated[str, fw.default("declared")]
    inner: Inner


fw.register_config(Conf, "conf")
"""
)


@pytest.fixture
def mod(declare: Declare) -> Any:
    return declare(SOURCE)


def test_a_registered_but_unparsed_prefix_returns_declared_defaults(mod: Any) -> None:
    cfg = fw.config(mod.Conf)
    assert (cfg.name, cfg.wait, cfg.inner.level) == ("declared", timedelta(seconds=2), 3)


def test_an_unregistered_type_returns_its_zero_value(mod: Any) -> None:
    fw.parse_config([])
    cfg = fw.config(mod.NeverRegistered)
    assert (cfg.name, cfg.inner.level) == ("", 0)


def test_config_accepts_a_request_or_none(mod: Any) -> None:
    fw.parse_config(["--conf-name", "x"])
    assert fw.config(mod.Conf, None).name == "x"
    assert fw.config(mod.Conf, object()).name == "x"


def test_registering_after_parsing_is_refused(mod: Any) -> None:
    fw.parse_config([])
    with pytest.raises(RuntimeError, match="after parse_config"):
        fw.register_config(mod.NeverRegistered, "late")
    with pytest.raises(RuntimeError, match="after parse_config"):
        fw.register_subcommand(mod.NeverRegistered, "late", "")


def test_load_options_after_parsing_are_refused(mod: Any) -> None:
    fw.parse_config([])
    with pytest.raises(RuntimeError, match="before parsing"):
        fw.set_config_load_options(search_paths=["x.toml"])


def test_unknown_load_options_are_refused(fresh: None) -> None:
    with pytest.raises(TypeError, match="unknown option"):
        fw.set_config_load_options(search_dir="x")


def test_a_prefix_holds_one_type(mod: Any) -> None:
    with pytest.raises(RuntimeError, match="already registered"):
        fw.register_config(mod.NeverRegistered, "conf")


def test_an_empty_prefix_is_refused(mod: Any) -> None:
    with pytest.raises(ValueError, match="non-empty"):
        fw.register_config(mod.NeverRegistered, "")


def test_a_type_without_a_generated_loader_names_the_type_and_fw_generate(
    fresh: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.syspath_prepend(str(tmp_path))
    name, _ = write_package(tmp_path, {"settings.py": SOURCE})
    importlib.import_module(f"{name}.settings")
    with pytest.raises(ConfigError, match=r"no generated configuration loader for .*Conf.*fw generate"):
        fw.parse_config([])
    del sys.modules[f"{name}.settings"]


def test_a_stale_loader_names_the_type_and_fw_generate(
    fresh: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.syspath_prepend(str(tmp_path))
    name, folder = write_package(tmp_path, {"settings.py": SOURCE})
    for output in generate_folders([folder]):
        output.path.write_text(output.text)
    changed = SOURCE.replace('name: Annotated[str, fw.default("declared")]\n    wait', "name: str\n    wait")
    (folder / "settings.py").write_text(changed)
    importlib.import_module(f"{name}.settings")
    with pytest.raises(ConfigError, match=r"stale.*fw generate") as caught:
        fw.parse_config([])
    assert "Conf" in str(caught.value)


def test_the_framework_settings_are_registered_with_their_prefixes(fresh: None) -> None:
    fw.parse_config([])
    assert fw.config(ServerSettings).max_request_body == 10 * 1024 * 1024
    assert fw.config(AuthSettings).session.ttl == timedelta(hours=24)
    assert registry.source_of("middleware.rdb.dsn") == "default"


def test_the_removed_provider_logout_key_is_rejected_naming_logout_scope() -> None:
    with pytest.raises(ConfigError, match="logout_scope") as caught:
        fw.configuration.load(AuthSettings, "auth", toml="[auth.oidc]\nprovider_logout = true\n")
    assert caught.value.key == "auth.oidc.provider_logout"
    assert caught.value.source == "file:<toml>:2"
    assert fw.configuration.load(AuthSettings, "auth", toml="[auth.oidc]\nprovider_logout = false\n")


def test_load_resolves_one_type_from_given_layers_without_touching_state(fresh: None) -> None:
    before = fw.config(ServerSettings)
    auth = fw.configuration.load(
        AuthSettings,
        "auth",
        toml='[auth]\nenabled = true\nmode = "jwt_only"\n[auth.jwt]\nissuer = "https://idp"\n',
        env={"AUTH_JWT_AUDIENCE": "a,b"},
        argv=["--auth-jwt-max_token_lifetime", "5m"],
    )
    assert isinstance(auth.jwt, JwtSettings)
    assert (auth.enabled, auth.mode, auth.jwt.issuer) == (True, "jwt_only", "https://idp")
    assert (auth.jwt.audience, auth.jwt.max_token_lifetime) == (["a", "b"], timedelta(minutes=5))
    assert not registry.state().parsed
    assert fw.config(ServerSettings) == before


def test_load_refuses_a_prefix_the_type_was_not_generated_for() -> None:
    with pytest.raises(ConfigError, match="generated for prefix 'server'"):
        fw.configuration.load(ServerSettings, "srv")


def test_the_committed_framework_loader_matches_the_generator() -> None:
    [output] = generate_folders([_FW_DIR])
    assert output.path == _FW_DIR / "_fw_config.py"
    assert output.path.read_text() == output.text, "src/fw/_fw_config.py is stale: run `fw generate`"


def test_the_committed_example_loader_matches_the_generator() -> None:
    folder = ROOT / "examples" / "hello"
    [output] = generate_folders([folder])
    assert output.path.read_text() == output.text, "examples/hello/_fw_config.py is stale: run `fw generate`"


def _run_example(
    *args: str, cwd: Path, extra_env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HELLO_", "APP_ENV", "SERVER_"))}
    env["PYTHONPATH"] = str(ROOT)
    env.update(extra_env or {})
    return subprocess.run(
        [sys.executable, "-m", "examples.hello.app", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_a_bad_option_prints_one_line_and_exits_1_without_traceback(tmp_path: Path) -> None:
    result = _run_example("--bad-option", cwd=tmp_path)
    assert result.returncode == 1
    assert result.stderr == "fw: unknown option --bad-option (from option:--bad-option)\n"
    assert "Traceback" not in result.stderr


def test_a_bad_file_value_exits_1_naming_key_and_line(tmp_path: Path) -> None:
    (tmp_path / "config.dev.toml").write_text("[hello]\n\ncache_for = 90\n")
    result = _run_example(cwd=tmp_path)
    assert result.returncode == 1
    assert "hello.cache_for" in result.stderr and "config.dev.toml:3" in result.stderr
    assert "Traceback" not in result.stderr


def test_generate_config_prints_the_template_and_exits_0(tmp_path: Path) -> None:
    result = _run_example("--generate-config", "toml", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "[hello]\n" in result.stdout and 'greeting = "Hello"' in result.stdout
    assert "provider_logout" not in result.stdout


def test_names_follow_the_spec_example(declare: Declare, monkeypatch: pytest.MonkeyPatch) -> None:
    module = declare(
        PREAMBLE
        + """
@dataclass
class Mailer:
    from_address: str


@dataclass
class App:
    mailer: Mailer


fw.register_config(App, "app")
"""
    )
    fw.parse_config(["--app-mailer-from_address", "cli@example.com"])
    assert fw.config(module.App).mailer.from_address == "cli@example.com"
    monkeypatch.setenv("APP_MAILER_FROM_ADDRESS", "env@example.com")
    fw.parse_config([])
    assert fw.config(module.App).mailer.from_address == "env@example.com"
    assert fw.configuration.load(
        module.App, "app", toml='[app.mailer]\nfrom_address = "file@example.com"\n'
    ).mailer == module.Mailer("file@example.com")


@pytest.mark.parametrize(
    ("setup", "needle"),
    [
        ({"HELLO_CACHE_FOR": "90"}, "hello.cache_for: invalid duration '90'"),
        ({"APP_ENV": "Prod"}, "APP_ENV: invalid environment 'Prod'"),
        ({"SERVER_PORT": "9" * 30}, "server.port: invalid int"),
        ({".env": b"\xff"}, "is not UTF-8 text"),
        ({".env": b"NOT AN ASSIGNMENT\n"}, "invalid dotenv line"),
        ({"config.dev.toml": b"[hello]\nmailer = 1\n"}, "expected the [hello.mailer] table"),
        ({"config.dev.toml": b'[hello]\n"greeting" = 1\n'}, "quoted keys are not supported"),
    ],
)
def test_bad_environment_and_files_exit_1_with_one_line(
    tmp_path: Path, setup: dict[str, Any], needle: str
) -> None:
    env = {name: value for name, value in setup.items() if isinstance(value, str)}
    for name, content in setup.items():
        if isinstance(content, bytes):
            (tmp_path / name).write_bytes(content)
    result = _run_example(cwd=tmp_path, extra_env=env)
    assert result.returncode == 1
    assert result.stderr.startswith("fw: ") and result.stderr.count("\n") == 1, result.stderr
    assert needle in result.stderr
    assert result.stdout == ""


def test_generate_config_env_prints_the_env_template_and_exits_0(tmp_path: Path) -> None:
    result = _run_example("--generate-config=env", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "\nHELLO_GREETING=Hello\n" in result.stdout and "SERVER_PORT=8000" in result.stdout
    assert "Uvicorn" not in result.stderr


def test_fw_generate_reports_configuration_errors_with_file_and_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from fw.cli import main

    monkeypatch.syspath_prepend(str(tmp_path))
    name, folder = write_package(
        tmp_path,
        {
            "settings.py": PREAMBLE
            + "\n@dataclass\nclass C:\n    ratio: float\n\n\nfw.register_config(C, 'c')\n"
        },
    )
    (tmp_path / "pyproject.toml").write_text(f'[tool.fw.generate]\nconfig = ["{name}"]\n')
    assert main(["--project", str(tmp_path), "generate"]) == 1
    err = capsys.readouterr().err
    lines = (folder / "settings.py").read_text().splitlines()
    line = lines.index("    ratio: float") + 1
    assert f"{folder / 'settings.py'}:{line}: C.ratio (c.ratio): unsupported type float" in err
    assert not (folder / "_fw_config.py").exists()


def test_help_prints_the_options_and_exits_0_without_serving(tmp_path: Path) -> None:
    result = _run_example("--help", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("usage: python -m examples.hello.app [options]")
    assert "--hello-cache_for DURATION  " in result.stdout
    assert "How long clients may cache the greeting (default 1m30s; env HELLO_CACHE_FOR)" in result.stdout
    assert "Uvicorn" not in result.stderr
