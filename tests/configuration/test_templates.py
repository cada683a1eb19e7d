"""``--generate-config toml|env`` templates."""

from __future__ import annotations

import tomllib
from typing import Any

import pytest

import fw
from fw.configuration import registry

from .conftest import PREAMBLE, Declare

# Declarations alike in shape to other tests' sources only: each is the data its own tests read.
SOURCE = (
    PREAMBLE
    + '''
@dataclass
class Limits:
    """Request limits."""

    #: Largest body.
    body: Annotated[int, fw.default("10")]


@dataclass
class Zeta:
    """Registered first, sorted last."""

    #: Third key declared, shown first in env order.
    zz: Annotated[str, fw.default("z")]
    aa: Annotated[timedelta, fw.default("1h30m")]
    limits: Limits
    port: Annotated[int, fw.default("80"), fw.opt("port,p")]
    hidden_env: Annotated[str, fw.env("-")]
    named: Annotated[str, fw.env("A_CUSTOM")]
    tags: Annotated[list[str], fw.default("a,b")]
    api_token: str


@dataclass
class Alpha:
    """First by prefix."""

    on: bool
    idle: timedelta


fw.register_config(Zeta, "zeta")
fw.register_config(Alpha, "alpha")
'''
)


@pytest.fixture
def mod(declare: Declare) -> Any:
    return declare(SOURCE)


def template(kind: str) -> str:
    fw.parse_config(["--generate-config", kind])
    text = registry.requested_template()
    assert text is not None
    return text


def test_toml_tables_are_ordered_by_prefix_then_keys_in_declaration_order(mod: Any) -> None:
    text = template("toml")
    assert text.index("[alpha]") < text.index("[zeta]") < text.index("[zeta.limits]")
    zeta = text[text.index("[zeta]") : text.index("[zeta.limits]")]
    assert [line.split(" = ")[0] for line in zeta.splitlines() if " = " in line] == [
        "zz",
        "aa",
        "port",
        "hidden_env",
        "named",
        "tags",
        "# api_token",
    ]


def test_the_toml_template_carries_help_and_defaults_and_parses(mod: Any) -> None:
    text = template("toml")
    assert "# First by prefix\n[alpha]" in text
    assert '# Third key declared, shown first in env order\nzz = "z"' in text
    assert 'aa = "1h30m0s"' in text
    data = tomllib.loads(text)
    assert data["zeta"]["limits"]["body"] == 10
    assert data["zeta"]["tags"] == ["a", "b"]


def test_the_env_template_is_sorted_and_honours_opt_and_env(mod: Any) -> None:
    text = template("env")
    names = [line.split("=")[0] for line in text.splitlines() if line and not line.startswith("#")]
    assert names == sorted(names)
    assert "PORT" in names and "\nPORT=80\n" in text
    assert "A_CUSTOM" in names
    assert "ZETA_HIDDEN_ENV" not in names and "ZETA_PORT" not in names
    assert "ZETA_AA=1h30m0s" in text and "ZETA_TAGS=a,b" in text


def test_the_template_run_does_not_read_files_or_environment(
    mod: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("APP_ENV", "NOT VALID")
    assert "[zeta]" in template("toml")


def test_a_duration_without_default_is_written_as_a_quoted_zero(mod: Any) -> None:
    assert 'idle = "0s"' in template("toml")
    assert "\nALPHA_IDLE=0s\n" in template("env")


def test_a_secret_is_never_a_value_in_the_toml_template(mod: Any) -> None:
    text = template("toml")
    assert '# api_token = "${ZETA_API_TOKEN}"' in text
    assert "\napi_token =" not in text
    assert "\nZETA_API_TOKEN=\n" in template("env")
