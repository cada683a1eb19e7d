"""Command-line forms and sub-commands."""

from __future__ import annotations

from typing import Any

import pytest

import fw
from fw.configuration import registry
from fw.errors import ConfigError

from .conftest import PREAMBLE, Declare

SOURCE = (
    PREAMBLE
    + '''
@dataclass
class Cli:
    port: Annotated[int, fw.default("80"), fw.opt("port,p")]
    verbose: bool
    tags: list[str]
    wait: Annotated[timedelta, fw.default("1s")]


# Declarations alike in shape only: each is the command line its tests parse.
@dataclass
class Migrate:
    """Apply migrations."""

    target: Annotated[str, fw.arg("required")]
    label: Annotated[str, fw.arg("optional")]
    extra: Annotated[list[str], fw.arg("*")]
    dry_run: bool
    steps: Annotated[int, fw.default("1"), fw.opt("steps,n")]


@dataclass
class Serve:
    reload: bool


fw.register_config(Cli, "cli")
fw.register_subcommand(Migrate, "migrate", "Apply migrations")
fw.register_subcommand(Serve, "serve", "Serve")
'''
)


@pytest.fixture
def mod(declare: Declare) -> Any:
    return declare(SOURCE)


def cfg(mod: Any, argv: list[str]) -> Any:
    fw.parse_config(argv)
    return fw.config(mod.Cli)


@pytest.mark.parametrize(
    "argv", [["--port", "81"], ["--port=81"], ["-p", "81"], ["-p=81"], ["--port", "1", "--port", "81"]]
)
def test_long_and_short_options_take_a_value_separately_or_after_equals(mod: Any, argv: list[str]) -> None:
    assert cfg(mod, argv).port == 81
    assert (
        registry.source_of("cli.port")
        == f"option:{argv[-2] if '=' not in argv[-1] else argv[-1].split('=')[0]}"
    )


def test_a_short_option_glued_to_its_value_is_unknown(mod: Any) -> None:
    with pytest.raises(ConfigError, match="unknown option -p81"):
        cfg(mod, ["-p81"])


def test_a_bare_bool_option_means_true_and_false_can_be_written(mod: Any) -> None:
    assert cfg(mod, ["--cli-verbose"]).verbose is True
    assert cfg(mod, ["--cli-verbose=false"]).verbose is False
    assert cfg(mod, ["--cli-verbose=true"]).verbose is True


def test_an_invalid_bool_fails(mod: Any) -> None:
    with pytest.raises(ConfigError, match="invalid bool") as caught:
        cfg(mod, ["--cli-verbose=maybe"])
    assert (caught.value.key, caught.value.source) == ("cli.verbose", "option:--cli-verbose")


def test_a_bool_option_never_swallows_the_next_argument(mod: Any) -> None:
    with pytest.raises(ConfigError, match="unknown sub-command"):
        cfg(mod, ["--cli-verbose", "false"])


def test_repeated_list_options_accumulate(mod: Any) -> None:
    assert cfg(mod, ["--cli-tags", "a", "--cli-tags=b,c"]).tags == ["a", "b,c"]


def test_an_unknown_option_fails(mod: Any) -> None:
    with pytest.raises(ConfigError, match="unknown option --nope") as caught:
        cfg(mod, ["--nope"])
    assert caught.value.source == "option:--nope"


def test_a_missing_value_fails(mod: Any) -> None:
    with pytest.raises(ConfigError, match="missing value for --port"):
        cfg(mod, ["--port"])


def test_an_invalid_value_names_key_and_option(mod: Any) -> None:
    with pytest.raises(ConfigError, match="unit is required") as caught:
        cfg(mod, ["--cli-wait", "5"])
    assert (caught.value.key, caught.value.source) == ("cli.wait", "option:--cli-wait")


def test_generate_config_is_recognised_and_validated(mod: Any) -> None:
    fw.parse_config(["--generate-config", "toml"])
    assert registry.requested_template() is not None
    with pytest.raises(ConfigError, match="toml or env"):
        fw.parse_config(["--generate-config=yaml"])


# Sub-commands.
def test_only_the_selected_sub_command_returns_options(mod: Any) -> None:
    fw.parse_config(["migrate", "head"])
    options = fw.command(mod.Migrate)
    assert options is not None
    assert (options.target, options.label, options.extra, options.dry_run, options.steps) == (
        "head",
        "",
        [],
        False,
        1,
    )
    assert fw.command(mod.Serve) is None


def test_no_sub_command_selected_returns_none(mod: Any) -> None:
    fw.parse_config([])
    assert fw.command(mod.Migrate) is None


def test_options_may_precede_or_follow_positionals(mod: Any) -> None:
    fw.parse_config(["--port", "9", "migrate", "--dry_run", "head", "v2", "-n", "3", "x", "y"])
    options = fw.command(mod.Migrate)
    assert options is not None
    assert (options.target, options.label, options.extra, options.dry_run, options.steps) == (
        "head",
        "v2",
        ["x", "y"],
        True,
        3,
    )
    assert fw.config(mod.Cli).port == 9


def test_global_options_are_accepted_after_the_sub_command(mod: Any) -> None:
    fw.parse_config(["migrate", "head", "--port", "5"])
    assert fw.config(mod.Cli).port == 5


def test_a_missing_required_positional_fails(mod: Any) -> None:
    with pytest.raises(ConfigError, match="missing required argument") as caught:
        fw.parse_config(["migrate"])
    assert caught.value.key == "target"


def test_an_unknown_sub_command_fails(mod: Any) -> None:
    with pytest.raises(ConfigError, match="unknown sub-command"):
        fw.parse_config(["deploy"])


def test_a_double_dash_ends_options(mod: Any) -> None:
    fw.parse_config(["migrate", "--", "--not-an-option"])
    options = fw.command(mod.Migrate)
    assert options is not None and options.target == "--not-an-option"


def test_sub_command_fields_never_read_the_environment(mod: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DRY_RUN", "true")
    monkeypatch.setenv("MIGRATE_DRY_RUN", "true")
    fw.parse_config(["migrate", "head"])
    options = fw.command(mod.Migrate)
    assert options is not None and options.dry_run is False


def test_the_deprecated_alias_still_registers(mod: Any) -> None:
    with pytest.warns(DeprecationWarning, match="register_subcommand"):
        fw.subcommand(mod.Serve, "serve", "Serve")


def test_help_lists_every_option_with_its_help_default_and_variable(mod: Any) -> None:
    fw.parse_config(["--port", "1", "--help"])
    text = registry.requested_template()
    assert text is not None
    assert "--port, -p INT" in text and "(default 80; env PORT)" in text
    assert "--cli-wait DURATION" in text and "default 1s" in text
    assert "--cli-tags TEXT" in text and "repeatable" in text
    assert "migrate <target> [label] [extra...]: Apply migrations" in text
    assert "--steps, -n INT" in text
    assert "--generate-config toml|env" in text and "--config-path FILE" in text


def test_help_never_shows_a_secret_default(declare: Declare) -> None:
    declare(
        PREAMBLE
        + """
@dataclass
class Vault:
    api_token: Annotated[str, fw.default("tok-123")]
    dsn: Annotated[str, fw.default("postgresql://u:pw@db:5432/app")]


fw.register_config(Vault, "vault")
"""
    )
    fw.parse_config(["--help"])
    text = registry.requested_template()
    assert text is not None and "tok-123" not in text and "pw" not in text
    assert "default postgresql://*****@db:5432/app" in text
