"""Layering and sources: default < file < environment < command line, with the winner recorded."""

from __future__ import annotations

import os
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

import fw
from fw.configuration import registry
from fw.errors import ConfigError

from .conftest import PREAMBLE, Declare

SOURCE = (
    PREAMBLE
    + """
@dataclass
class Server:
    host: Annotated[str, fw.default("127.0.0.1")]
    weight: int


@dataclass
class AppConfig:
    port: Annotated[int, fw.default("8080"), fw.opt("port,p"), fw.key("listen_port")]
    timeout: Annotated[timedelta, fw.default("30s")]
    hosts: list[str]
    debug: bool
    name: Annotated[str, fw.default("app")]
    blocked: Annotated[str, fw.env("-")]
    exact: Annotated[str, fw.env("EXACT_NAME")]
    nick: Annotated[str, fw.falsy("none")]
    servers: list[Server]


fw.register_config(AppConfig, "app")
"""
)


@pytest.fixture
def app(declare: Declare, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    module = declare(SOURCE)
    work = tmp_path / "work"
    work.mkdir()
    fw.set_config_load_options(
        working_dir=work, user_config_dir=tmp_path / "user", system_config_dir=tmp_path / "sys"
    )
    for name in list(os.environ):
        if name.startswith(("APP_", "EXACT_", "PORT", "DOTENV_")):
            monkeypatch.delenv(name)
    return module


def work(tmp_path: Path) -> Path:
    return tmp_path / "work"


def test_declared_defaults_apply_when_nothing_sets_a_key(app: Any) -> None:
    fw.parse_config([])
    cfg = fw.config(app.AppConfig)
    assert (cfg.port, cfg.timeout, cfg.hosts, cfg.debug, cfg.name) == (
        8080,
        timedelta(seconds=30),
        [],
        False,
        "app",
    )
    assert registry.source_of("app.listen_port") == "default"


def test_each_layer_overrides_the_one_below(
    app: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (work(tmp_path) / "config.dev.toml").write_text('[app]\nlisten_port = 1\nname = "file"\ndebug = true\n')
    monkeypatch.setenv("PORT", "2")
    monkeypatch.setenv("APP_NAME", "env")
    fw.parse_config(["--port", "3"])
    cfg = fw.config(app.AppConfig)
    assert (cfg.port, cfg.name, cfg.debug, cfg.timeout) == (3, "env", True, timedelta(seconds=30))
    assert registry.source_of("app.listen_port") == "option:--port"
    assert registry.source_of("app.name") == "env:APP_NAME"
    assert registry.source_of("app.debug") == f"file:{work(tmp_path) / 'config.dev.toml'}:4"
    assert registry.source_of("app.timeout") == "default"


def test_key_opt_and_env_overrides_follow_the_spec_example(app: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PORT", "9")
    fw.parse_config([])
    assert fw.config(app.AppConfig).port == 9
    fw.parse_config(["-p", "7"])
    assert fw.config(app.AppConfig).port == 7
    with pytest.raises(ConfigError, match="unknown option --app-listen_port"):
        fw.parse_config(["--app-listen_port", "5"])
    with pytest.raises(ConfigError, match="unknown option --app-port"):
        fw.parse_config(["--app-port", "5"])


def test_env_dash_blocks_environment_input(app: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("APP_BLOCKED", "from-env")
    fw.parse_config([])
    assert fw.config(app.AppConfig).blocked == ""
    fw.parse_config(["--app-blocked", "cli"])
    assert fw.config(app.AppConfig).blocked == "cli"


def test_an_exact_env_name_replaces_the_derived_one(app: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("APP_EXACT", "derived")
    monkeypatch.setenv("EXACT_NAME", "exact")
    fw.parse_config([])
    assert fw.config(app.AppConfig).exact == "exact"


def test_lists_come_from_arrays_commas_and_repeated_options(
    app: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (work(tmp_path) / "config.dev.toml").write_text('[app]\nhosts = ["a", "b"]\n')
    fw.parse_config([])
    assert fw.config(app.AppConfig).hosts == ["a", "b"]
    monkeypatch.setenv("APP_HOSTS", "c, d")
    fw.parse_config([])
    assert fw.config(app.AppConfig).hosts == ["c", "d"]
    fw.parse_config(["--app-hosts", "e", "--app-hosts=f"])
    assert fw.config(app.AppConfig).hosts == ["e", "f"]


def test_table_arrays_come_from_the_file_with_per_element_defaults(app: Any, tmp_path: Path) -> None:
    (work(tmp_path) / "config.dev.toml").write_text(
        '[app]\nname = "x"\n[[app.servers]]\nweight = 1\n[[app.servers]]\nhost = "b"\nweight = 2\n'
    )
    fw.parse_config([])
    servers = fw.config(app.AppConfig).servers
    assert [(s.host, s.weight) for s in servers] == [("127.0.0.1", 1), ("b", 2)]
    assert registry.source_of("app.servers[1].host").endswith("config.dev.toml:6")
    assert registry.source_of("app.servers[0].host") == "default"


@pytest.mark.parametrize("toml", ['[app]\nservers = "x"\n', '[app.servers]\nhost = "x"\n'])
def test_a_table_array_written_as_a_value_or_a_table_is_refused(app: Any, tmp_path: Path, toml: str) -> None:
    (work(tmp_path) / "config.dev.toml").write_text(toml)
    with pytest.raises(ConfigError, match=r"expected \[\[app.servers\]\] tables") as caught:
        fw.parse_config([])
    assert caught.value.source.endswith("config.dev.toml:2")


def test_falsy_fills_an_unset_field_and_an_empty_value(
    app: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fw.parse_config([])
    assert fw.config(app.AppConfig).nick == "none"
    monkeypatch.setenv("APP_NICK", "")
    fw.parse_config([])
    assert fw.config(app.AppConfig).nick == "none"
    fw.parse_config(["--app-nick", "bob"])
    assert fw.config(app.AppConfig).nick == "bob"


def test_an_absent_key_leaves_the_lower_value(
    app: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (work(tmp_path) / "config.dev.toml").write_text('[app]\nname = "file"\n')
    monkeypatch.setenv("APP_DEBUG", "true")
    fw.parse_config([])
    assert fw.config(app.AppConfig).name == "file"


@pytest.mark.parametrize(
    ("toml", "message", "line"),
    [
        ("[app]\nlisten_port = 1.5\n", "float", 2),
        ('[app]\n\nlisten_port = "80"\n', "expected an integer", 3),
        ("[app]\ntimeout = 30\n", "bare number", 2),
        ('[app]\ntimeout = "soon"\n', "invalid duration", 2),
        ('[app]\ndebug = "yes"\n', "expected true or false", 2),
        ('[app]\nhosts = "a"\n', "array of strings", 2),
        ("[app]\nhosts = [1, 2]\n", "array", 2),
        ("[app]\nname = 2024-01-01\n", "date", 2),
    ],
)
def test_a_file_value_of_the_wrong_type_names_key_and_line(
    app: Any, tmp_path: Path, toml: str, message: str, line: int
) -> None:
    path = work(tmp_path) / "config.dev.toml"
    path.write_text(toml)
    with pytest.raises(ConfigError, match=message) as caught:
        fw.parse_config([])
    assert caught.value.source == f"file:{path}:{line}"
    assert caught.value.key.startswith("app.")


@pytest.mark.parametrize(
    ("var", "text", "message"),
    [
        ("PORT", "eighty", "invalid int"),
        ("APP_TIMEOUT", "30", "unit is required"),
        ("APP_DEBUG", "yes", "invalid bool"),
    ],
)
def test_a_bad_environment_value_names_the_variable(
    app: Any, monkeypatch: pytest.MonkeyPatch, var: str, text: str, message: str
) -> None:
    monkeypatch.setenv(var, text)
    with pytest.raises(ConfigError, match=message) as caught:
        fw.parse_config([])
    assert caught.value.source == f"env:{var}"


def test_references_in_env_and_options_stay_untouched(app: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("APP_NAME", "${HOME}")
    fw.parse_config(["--app-exact", "${HOME}"])
    cfg = fw.config(app.AppConfig)
    assert (cfg.name, cfg.exact) == ("${HOME}", "${HOME}")


def test_file_references_read_the_raw_variable_regardless_of_env_markers(
    app: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("APP_BLOCKED", "raw")
    (work(tmp_path) / "config.dev.toml").write_text('[app]\nblocked = "${APP_BLOCKED}"\n')
    fw.parse_config([])
    assert fw.config(app.AppConfig).blocked == "raw"
    assert registry.source_of("app.blocked").startswith("file:")


# APP_ENV and the file search.
def test_app_env_selects_the_file(app: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (work(tmp_path) / "config.dev.toml").write_text('[app]\nname = "dev"\n')
    (work(tmp_path) / "config.prod.toml").write_text('[app]\nname = "prod"\n')
    fw.parse_config([])
    assert fw.config(app.AppConfig).name == "dev"
    monkeypatch.setenv("APP_ENV", "prod")
    fw.parse_config([])
    assert fw.config(app.AppConfig).name == "prod"
    monkeypatch.setenv("APP_ENV", "")
    fw.parse_config([])
    assert fw.config(app.AppConfig).name == "dev"


@pytest.mark.parametrize("token", ["Prod", "prod env", "prod/1", "é"])
def test_an_invalid_app_env_token_fails(app: Any, monkeypatch: pytest.MonkeyPatch, token: str) -> None:
    monkeypatch.setenv("APP_ENV", token)
    with pytest.raises(ConfigError, match="invalid environment") as caught:
        fw.parse_config([])
    assert caught.value.key == "APP_ENV"


def test_the_search_order_is_first_readable_wins_without_merging(app: Any, tmp_path: Path) -> None:
    base = work(tmp_path)
    (tmp_path / "sys").mkdir()
    (tmp_path / "sys" / "config.toml").write_text('[app]\nname = "system"\ndebug = true\n')
    fw.parse_config([])
    assert fw.config(app.AppConfig).name == "system"
    (tmp_path / "user").mkdir()
    (tmp_path / "user" / "config.toml").write_text('[app]\nname = "user"\n')
    fw.parse_config([])
    cfg = fw.config(app.AppConfig)
    assert (cfg.name, cfg.debug) == ("user", False)
    (base / "config").mkdir()
    (base / "config" / "config.dev.toml").write_text('[app]\nname = "config-dir"\n')
    fw.parse_config([])
    assert fw.config(app.AppConfig).name == "config-dir"
    (base / "config.dev.toml").write_text('[app]\nname = "cwd"\n')
    fw.parse_config([])
    assert fw.config(app.AppConfig).name == "cwd"


def test_a_plain_config_toml_in_the_project_is_never_read(app: Any, tmp_path: Path) -> None:
    (work(tmp_path) / "config.toml").write_text('[app]\nname = "plain"\n')
    (work(tmp_path) / "config").mkdir()
    (work(tmp_path) / "config" / "config.toml").write_text('[app]\nname = "plain"\n')
    fw.parse_config([])
    assert fw.config(app.AppConfig).name == "app"


def test_config_path_replaces_the_search(app: Any, tmp_path: Path) -> None:
    (work(tmp_path) / "config.dev.toml").write_text('[app]\nname = "searched"\n')
    chosen = tmp_path / "chosen.toml"
    chosen.write_text('[app]\nname = "chosen"\n')
    fw.parse_config(["--config-path", str(chosen)])
    assert fw.config(app.AppConfig).name == "chosen"
    fw.parse_config([f"--config-path={chosen}"])
    assert registry.source_of("app.name") == f"file:{chosen}:2"


@pytest.mark.parametrize("target", ["missing.toml", "."])
def test_a_missing_or_directory_config_path_fails_without_fallback(
    app: Any, tmp_path: Path, target: str
) -> None:
    (work(tmp_path) / "config.dev.toml").write_text('[app]\nname = "searched"\n')
    with pytest.raises(ConfigError) as caught:
        fw.parse_config(["--config-path", str(tmp_path / target)])
    assert caught.value.source == "option:--config-path"


def test_search_paths_can_be_replaced_before_parsing(app: Any, tmp_path: Path) -> None:
    (work(tmp_path) / "settings-dev.toml").write_text('[app]\nname = "custom"\n')
    fw.set_config_load_options(search_paths=["settings-{env}.toml"])
    fw.parse_config([])
    assert fw.config(app.AppConfig).name == "custom"


# Dotenv files.
def test_dotenv_files_apply_in_order_under_the_process_environment(
    app: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    base = work(tmp_path)
    (base / ".env").write_text("APP_NAME=dotenv\nAPP_EXACT=base\nEXACT_NAME=e1\nAPP_NICK=n1\n")
    (base / ".env.local").write_text("APP_NAME=local\nEXACT_NAME=e2\n")
    (base / ".env.dev").write_text("export APP_NAME='dev'\n")
    (base / ".env.dev.local").write_text('APP_NAME="dev-local" # comment\n')
    (base / ".env.prod").write_text("APP_NAME=prod\n")
    fw.parse_config([])
    cfg = fw.config(app.AppConfig)
    assert (cfg.name, cfg.exact, cfg.nick) == ("dev-local", "e2", "n1")
    assert registry.source_of("app.name") == "env:APP_NAME (.env.dev.local:1)"
    monkeypatch.setenv("APP_NAME", "process")
    fw.parse_config([])
    assert fw.config(app.AppConfig).name == "process"


def test_a_malformed_dotenv_line_names_file_and_line(app: Any, tmp_path: Path) -> None:
    (work(tmp_path) / ".env").write_text("# ok\nthis is not an assignment\n")
    with pytest.raises(ConfigError, match="dotenv") as caught:
        fw.parse_config([])
    assert caught.value.source == ".env:2"


def test_file_references_can_use_dotenv_variables(app: Any, tmp_path: Path) -> None:
    (work(tmp_path) / ".env.local").write_text("DOTENV_SECRET=s3cret\n")
    (work(tmp_path) / "config.dev.toml").write_text('[app]\nname = "${DOTENV_SECRET}"\n')
    fw.parse_config([])
    assert fw.config(app.AppConfig).name == "s3cret"


# Shapes, unknown keys and odd input.
def test_unknown_keys_and_tables_are_ignored(app: Any, tmp_path: Path) -> None:
    (work(tmp_path) / "config.dev.toml").write_text(
        '[app]\nname = "known"\nunknown = 1\nmore.nested = "x"\n[elsewhere]\nx = 1.5\n'
        "[[app.servers]]\nweight = 1\nextra = true\n"
    )
    fw.parse_config([])
    cfg = fw.config(app.AppConfig)
    assert (cfg.name, [s.weight for s in cfg.servers]) == ("known", [1])


@pytest.mark.parametrize(
    ("toml", "key", "message"),
    [
        ("app = 5\n", "app", "expected the [app] table, found the integer 5"),
        ("[[app]]\nname = 'x'\n", "app", "expected the [app] table, found [[app]] elements"),
        ("[app.name]\nx = 1\n", "app.name.x", "app.name is a value, not a table"),
        ("[app]\nname.first = 'x'\n", "app.name.first", "app.name is a value, not a table"),
        ("[app]\nservers = 'x'\n", "app.servers", "expected [[app.servers]] tables"),
    ],
)
def test_a_known_name_written_in_the_wrong_shape_is_refused(
    app: Any, tmp_path: Path, toml: str, key: str, message: str
) -> None:
    path = work(tmp_path) / "config.dev.toml"
    path.write_text(toml)
    with pytest.raises(ConfigError) as caught:
        fw.parse_config([])
    assert message in caught.value.reason
    assert caught.value.key == key
    assert caught.value.source.startswith(f"file:{path}:")


def test_table_array_elements_never_come_from_env_or_options(
    app: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("APP_SERVERS_HOST", "env-host")
    monkeypatch.setenv("APP_SERVERS", "a,b")
    fw.parse_config([])
    assert fw.config(app.AppConfig).servers == []
    for option in ("--app-servers", "--app-servers-host"):
        with pytest.raises(ConfigError, match="unknown option"):
            fw.parse_config([option, "x"])


def test_an_empty_option_value_takes_the_falsy_value(app: Any) -> None:
    fw.parse_config(["--app-nick="])
    assert fw.config(app.AppConfig).nick == "none"
    assert registry.source_of("app.nick") == "option:--app-nick"


def test_an_empty_file_string_takes_the_falsy_value(app: Any, tmp_path: Path) -> None:
    (work(tmp_path) / "config.dev.toml").write_text('[app]\nnick = ""\n')
    fw.parse_config([])
    assert fw.config(app.AppConfig).nick == "none"


@pytest.mark.parametrize("text", ["", " 80", "80 ", "1_000", "0x50", "٣", "+", "1e3"])
def test_an_int_is_plain_decimal_digits_and_nothing_is_coerced(
    app: Any, monkeypatch: pytest.MonkeyPatch, text: str
) -> None:
    monkeypatch.setenv("PORT", text)
    with pytest.raises(ConfigError, match="invalid int") as caught:
        fw.parse_config([])
    assert (caught.value.key, caught.value.source) == ("app.listen_port", "env:PORT")


def test_integers_beyond_64_bits_are_refused_in_every_source(
    app: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    huge = str(2**63)
    with pytest.raises(ConfigError, match="64-bit") as caught:
        fw.parse_config(["--port", huge])
    assert caught.value.source == "option:--port"
    fw.parse_config(["--port", str(2**63 - 1)])
    assert fw.config(app.AppConfig).port == 2**63 - 1
    (work(tmp_path) / "config.dev.toml").write_text(f"[app]\nlisten_port = {huge}\n")
    with pytest.raises(ConfigError, match="64-bit") as caught:
        fw.parse_config([])
    assert caught.value.key == "app.listen_port"


def test_a_very_long_bad_value_is_echoed_cut_short(app: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("APP_TIMEOUT", "9" * 5000 + "x")
    with pytest.raises(ConfigError, match=r"\(5001 characters\)") as caught:
        fw.parse_config([])
    assert len(str(caught.value)) < 300


@pytest.mark.parametrize("name", ["config.dev.toml", ".env"])
def test_a_file_that_is_not_utf8_is_refused_naming_it(app: Any, tmp_path: Path, name: str) -> None:
    (work(tmp_path) / name).write_bytes(b"\xff\xfe[app]\n")
    with pytest.raises(ConfigError, match="not UTF-8 text") as caught:
        fw.parse_config([])
    assert name in caught.value.source


def test_a_syntax_error_names_the_key_written_on_that_line(app: Any, tmp_path: Path) -> None:
    path = work(tmp_path) / "config.dev.toml"
    path.write_text('[app]\nname = "a"\nname = "b"\n')
    with pytest.raises(ConfigError, match="invalid TOML") as caught:
        fw.parse_config([])
    assert (caught.value.key, caught.value.source) == ("app.name", f"file:{path}:3")


def test_an_app_env_too_long_for_a_file_name_simply_finds_no_file(
    app: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("APP_ENV", "a" * 300)
    fw.parse_config([])
    assert registry.state().file is None


@pytest.mark.parametrize("token", ["dev", "stg", "prod", "eu-west_2", "0"])
def test_any_token_of_lower_case_letters_digits_dash_and_underscore_is_an_environment(
    app: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, token: str
) -> None:
    (work(tmp_path) / f"config.{token}.toml").write_text(f'[app]\nname = "{token}"\n')
    monkeypatch.setenv("APP_ENV", token)
    fw.parse_config([])
    assert fw.config(app.AppConfig).name == token
