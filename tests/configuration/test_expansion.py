"""``${NAME}`` references in TOML strings, every edge the spec names."""

from __future__ import annotations

import pytest

from fw.configuration.tomlfile import UndefinedVariables, parse_file
from fw.errors import ConfigError
from fw.testing import configured

ENV = {"HOST": "db.internal", "EMPTY": "", "USER": "svc"}


def value(toml_value: str) -> object:
    return parse_file(f"[app]\nx = {toml_value}\n", "c.toml", ENV).values["app.x"].value


def test_a_whole_string_is_replaced() -> None:
    assert value('"${HOST}"') == "db.internal"


def test_a_reference_may_be_part_of_a_value() -> None:
    assert value('"postgresql://${USER}@${HOST}:5432/app"') == "postgresql://svc@db.internal:5432/app"


def test_array_elements_are_expanded() -> None:
    assert value('["${HOST}", "plain"]') == ["db.internal", "plain"]


def test_table_array_fields_are_expanded() -> None:
    layer = parse_file('[[app.s]]\nhost = "${HOST}"\n', "c.toml", ENV)
    assert layer.arrays["app.s"][0]["host"].value == "db.internal"


def test_an_undefined_name_fails_naming_it_and_the_line() -> None:
    with pytest.raises(ConfigError, match="undefined variable MISSING") as caught:
        parse_file('[app]\n\nx = "${MISSING}"\n', "c.toml", ENV)
    assert caught.value.key == "app.x"
    assert caught.value.source == "file:c.toml:3"


def test_every_undefined_name_of_the_file_is_named_in_one_error() -> None:
    text = '[app]\nx = "${ONE}"\ny = "${HOST}/${TWO}"\nz = ["${THREE}", "plain"]\n'
    with pytest.raises(UndefinedVariables) as caught:
        parse_file(text, "c.toml", ENV)
    assert caught.value.names == ("ONE", "TWO", "THREE")
    assert caught.value.source == "file:c.toml"
    assert str(caught.value) == (
        "undefined variables ONE (app.x, line 2), TWO (app.y, line 3), THREE (app.z, line 4) "
        "(from file:c.toml)"
    )


def test_a_name_referenced_in_several_places_is_named_once_with_each_place() -> None:
    text = '[app]\nx = "${GONE}${GONE}"\n[[app.s]]\nhost = "${GONE}"\nport = "${ALSO}"\n'
    with pytest.raises(ConfigError) as caught:
        parse_file(text, "c.toml", ENV)
    assert caught.value.reason == (
        "undefined variables GONE (app.x, line 2; app.s.host, line 4), ALSO (app.s.port, line 5)"
    )


def test_loading_the_configuration_names_every_undefined_variable_at_once() -> None:
    toml = '[auth.oidc]\nissuer = "${AUTH_OIDC_ISSUER}"\nclient_id = "${AUTH_OIDC_CLIENT_ID}"\n'
    with pytest.raises(UndefinedVariables) as caught, configured(toml=toml):
        pass
    assert caught.value.names == ("AUTH_OIDC_ISSUER", "AUTH_OIDC_CLIENT_ID")
    assert str(caught.value).startswith("undefined variables AUTH_OIDC_ISSUER (auth.oidc.issuer, line 2), ")


def test_a_variable_set_to_empty_expands_to_empty() -> None:
    assert value('"a${EMPTY}b"') == "ab"


def test_a_double_dollar_is_a_literal_dollar() -> None:
    assert value('"price: $$5 and $${HOST}"') == "price: $5 and ${HOST}"


@pytest.mark.parametrize("text", ['"$HOST"', '"a$"', '"$ 5"', '"$(cmd)"'])
def test_every_other_dollar_stays(text: str) -> None:
    assert value(text) == text.strip('"')


def test_there_is_no_default_form() -> None:
    with pytest.raises(ConfigError, match="no default form"):
        value('"${HOST:-fallback}"')


def test_an_unterminated_reference_fails() -> None:
    with pytest.raises(ConfigError, match="unterminated"):
        value('"${HOST"')


def test_keys_numbers_and_bools_are_never_expanded() -> None:
    layer = parse_file("[app]\nn = 5\nb = true\n", "c.toml", ENV)
    assert layer.values["app.n"].value == 5
    assert layer.values["app.b"].value is True


def test_expanded_values_are_marked_as_references() -> None:
    layer = parse_file('[app]\nx = "${HOST}"\ny = "plain"\n', "c.toml", ENV)
    assert layer.values["app.x"].expanded
    assert not layer.values["app.y"].expanded
