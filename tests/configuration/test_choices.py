"""Choice keys: a ``Literal`` or ``fw.enum`` declares the values once; every source is checked."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import fw
from fw import configuration
from fw.configuration import choices, registry
from fw.errors import ConfigError

from .conftest import PREAMBLE, Declare

SOURCE = (
    PREAMBLE
    + """
from typing import Literal


@dataclass
class Rule:
    effect: Literal["allow", "deny"] = "allow"


@dataclass
class Shop:
    #: How prices are rounded.
    rounding: Annotated[Literal["up", "down", "even"], fw.default("even")]
    #: Where orders go.
    queue: Annotated[str, fw.enum("memory, disk"), fw.default("memory")]
    #: Which audit trail to keep (empty: none).
    audit: Annotated[str, fw.enum("short,full")]
    tier: Literal["", "gold", "silver"]
    rules: list[Rule]


@dataclass
class Export:
    format: Annotated[Literal["csv", "json"], fw.default("csv")]


fw.register_config(Shop, "shop")
fw.register_subcommand(Export, "export", "Export the orders")
"""
)


@pytest.fixture
def shop(declare: Declare) -> Iterator[Any]:
    saved = dict(choices._extra)
    yield declare(SOURCE)
    choices._extra.clear()
    choices._extra.update(saved)


def parse(argv: list[str] | None = None, env: dict[str, str] | None = None, toml: str = "") -> None:
    registry.parse_layers(argv or [], env or {}, toml)


def refusal(argv: list[str] | None = None, env: dict[str, str] | None = None, toml: str = "") -> ConfigError:
    with pytest.raises(ConfigError) as caught:
        parse(argv, env, toml)
    return caught.value


def test_declared_defaults_and_listed_values_load(shop: Any) -> None:
    parse()
    loaded = fw.config(shop.Shop)
    assert (loaded.rounding, loaded.queue, loaded.audit, loaded.tier) == ("even", "memory", "", "")
    parse(["--shop-rounding", "up", "--shop-queue=disk", "--shop-audit=full", "--shop-tier=gold"])
    loaded = fw.config(shop.Shop)
    assert (loaded.rounding, loaded.queue, loaded.audit, loaded.tier) == ("up", "disk", "full", "gold")


@pytest.mark.parametrize(
    ("layers", "source"),
    [
        ({"argv": ["--shop-rounding=sideways"]}, "option:--shop-rounding"),
        ({"env": {"SHOP_ROUNDING": "sideways"}}, "env:SHOP_ROUNDING"),
        ({"toml": '[shop]\nrounding = "sideways"\n'}, "file:<toml>:2"),
    ],
)
def test_a_value_outside_a_literal_is_refused_naming_key_value_source_and_choices(
    shop: Any, layers: dict[str, Any], source: str
) -> None:
    error = refusal(**layers)
    assert error.key == "shop.rounding"
    assert error.source == source
    assert str(error) == (
        f"shop.rounding: 'sideways' is not a choice; use one of: up, down, even (from {source})"
    )


def test_a_value_outside_an_enum_is_refused_the_same_way(shop: Any) -> None:
    error = refusal(env={"SHOP_QUEUE": "cloud"})
    assert (error.key, error.source) == ("shop.queue", "env:SHOP_QUEUE")
    assert "'cloud' is not a choice; use one of: memory, disk" in str(error)


def test_an_enum_key_without_a_default_may_be_left_empty_meaning_not_set(shop: Any) -> None:
    parse(toml='[shop]\naudit = ""\n')
    assert fw.config(shop.Shop).audit == ""
    assert "use one of: short, full, or empty" in str(refusal(argv=["--shop-audit=most"]))


def test_an_enum_key_with_a_default_refuses_an_empty_value(shop: Any) -> None:
    error = refusal(env={"SHOP_QUEUE": ""})
    assert error.key == "shop.queue" and "'' is not a choice" in str(error)


def test_a_literal_listing_the_empty_string_accepts_it(shop: Any) -> None:
    parse(argv=["--shop-tier="])
    assert fw.config(shop.Shop).tier == ""


def test_table_array_elements_and_sub_command_options_are_checked_too(shop: Any) -> None:
    error = refusal(toml='[[shop.rules]]\neffect = "maybe"\n')
    assert (error.key, error.source) == ("shop.rules[0].effect", "file:<toml>:2")
    assert "use one of: allow, deny" in str(error)
    error = refusal(argv=["export", "--format=xml"])
    assert (error.key, error.source) == ("format", "option:--format")
    assert "use one of: csv, json" in str(error)


def test_extend_choices_widens_a_key_before_parsing(shop: Any) -> None:
    configuration.extend_choices("shop.queue", "cloud", "tape")
    configuration.extend_choices("shop.queue", "cloud")
    parse(env={"SHOP_QUEUE": "cloud"})
    assert fw.config(shop.Shop).queue == "cloud"
    assert configuration.choices_of("shop.queue") == ("memory", "disk", "cloud", "tape")
    assert "use one of: memory, disk, cloud, tape" in str(refusal(env={"SHOP_QUEUE": "cd"}))


def test_extending_a_key_that_declares_no_choices_is_refused_at_parsing(shop: Any) -> None:
    configuration.extend_choices("shop.qeue", "cloud")
    error = refusal()
    assert error.key == "shop.qeue" and "declares choices" in str(error)


@pytest.mark.parametrize("value", ["", "a,b"])
def test_a_choice_name_must_be_non_empty_without_commas(value: str) -> None:
    with pytest.raises(ValueError, match="not a choice name"):
        configuration.extend_choices("auth.mode", value)


def test_choices_of_an_undeclared_key_is_a_key_error(shop: Any) -> None:
    with pytest.raises(KeyError):
        configuration.choices_of("shop.nothing")


def test_help_and_both_templates_show_the_choices(shop: Any) -> None:
    configuration.extend_choices("shop.queue", "cloud")
    parse(["--help"])
    usage = registry.requested_template() or ""
    [line] = [row for row in usage.splitlines() if "--shop-rounding" in row]
    assert "How prices are rounded (one of: up, down, even; default even; env SHOP_ROUNDING)" in line
    assert "one of: memory, disk, cloud" in usage and "one of: short, full, or empty" in usage
    parse(["--generate-config=toml"])
    toml = registry.requested_template() or ""
    assert '# How prices are rounded (one of: up, down, even)\nrounding = "even"' in toml
    assert '# # one of: allow, deny\n# effect = "allow"' in toml
    parse(["--generate-config=env"])
    env = registry.requested_template() or ""
    assert (
        "# shop.audit: Which audit trail to keep (empty: none) (one of: short, full, or empty)\nSHOP_AUDIT="
        in env
    )


def test_the_generated_loader_carries_the_declared_choices(shop: Any) -> None:
    text = (Path(shop.__file__).parent / "_fw_config.py").read_text()
    assert "choices=('up', 'down', 'even')" in text
    assert "choices=('memory', 'disk')" in text
    assert "choices=('', 'short', 'full')" in text
