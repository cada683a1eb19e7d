from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fw.configuration.tomlfile import parse_file
from fw.errors import ConfigError


def parse(text: str) -> object:
    return parse_file(text, "config.toml", {})


def test_tables_dotted_keys_arrays_and_comments_are_read_with_their_lines() -> None:
    layer = parse_file(
        '# top\n[app]\nname = "x" # trailing\nmailer.host = "h"\n'
        'ports = [\n  "a",\n  "b",\n]\n[app.db]\nsize = 3\n',
        "config.toml",
        {},
    )
    assert layer.values["app.name"].value == "x"
    assert layer.values["app.name"].line == 3
    assert layer.values["app.mailer.host"].line == 4
    assert layer.values["app.ports"].value == ["a", "b"]
    assert layer.values["app.ports"].line == 5
    assert layer.values["app.db.size"].line == 10
    assert layer.source(10) == "file:config.toml:10"


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ('[app]\n"quoted" = 1\n', 2),
        ("[app]\n'literal' = 1\n", 2),
        ('[app."sub"]\nx = 1\n', 1),
        ('[app]\nouter."inner" = 1\n', 2),
    ],
)
def test_quoted_keys_are_refused_naming_the_line(text: str, line: int) -> None:
    with pytest.raises(ConfigError, match="quoted keys") as caught:
        parse(text)
    assert caught.value.source == f"file:config.toml:{line}"


def test_inline_tables_are_refused_naming_the_line() -> None:
    with pytest.raises(ConfigError, match="inline tables") as caught:
        parse('[app]\nok = 1\nmailer = { host = "h" }\n')
    assert caught.value.source == "file:config.toml:3"
    assert caught.value.key == "app.mailer"


def test_nested_arrays_are_refused_naming_the_line() -> None:
    with pytest.raises(ConfigError, match="nested arrays") as caught:
        parse("[app]\nmatrix = [\n  [1, 2],\n]\n")
    assert caught.value.source == "file:config.toml:3"


def test_brackets_and_braces_inside_strings_are_just_text() -> None:
    layer = parse_file('[app]\nx = "[{not a table}]"\ny = [\'a]\', "b{"]\n', "c.toml", {})
    assert layer.values["app.x"].value == "[{not a table}]"
    assert layer.values["app.y"].value == ["a]", "b{"]


def test_multiline_strings_do_not_confuse_the_scan() -> None:
    layer = parse_file('[app]\ntext = """\nfirst = [[\n{ x }\n"""\nafter = 1\n', "c.toml", {})
    assert layer.values["app.text"].value == "first = [[\n{ x }\n"
    assert layer.values["app.after"].line == 6


def test_syntax_errors_name_the_line() -> None:
    with pytest.raises(ConfigError, match="invalid TOML") as caught:
        parse("[app]\nname = \n")
    assert caught.value.source == "file:config.toml:2"


def test_keys_after_a_table_array_header_belong_to_that_element() -> None:
    layer = parse('[app]\nname = "top"\n[[app.servers]]\nhost = "a"\n[[app.servers]]\nhost = "b"\nport = 2\n')
    assert layer.values["app.name"].value == "top"  # type: ignore[attr-defined]
    elements = layer.arrays["app.servers"]  # type: ignore[attr-defined]
    assert [element["host"].value for element in elements] == ["a", "b"]
    assert elements[1]["port"].line == 7
    assert "app.host" not in layer.values  # type: ignore[attr-defined]


_bare = st.from_regex(r"[a-z][a-z0-9_]{0,8}", fullmatch=True)
_scalar = st.one_of(
    st.integers(min_value=-(10**9), max_value=10**9).map(str),
    st.booleans().map(lambda b: "true" if b else "false"),
    st.text(alphabet="abcxyz []{}#=.'", max_size=12).map(lambda s: '"' + s + '"'),
)


@given(st.dictionaries(_bare, _scalar, min_size=1, max_size=6))
def test_every_bare_key_of_the_subset_is_found_on_its_own_line(entries: dict[str, str]) -> None:
    text = "[t]\n" + "".join(f"{key} = {value}\n" for key, value in entries.items())
    layer = parse_file(text, "p.toml", {})
    for line, key in enumerate(entries, start=2):
        assert layer.values[f"t.{key}"].line == line


@given(_bare, st.sampled_from(['"', "'"]), _bare)
def test_a_quoted_key_is_refused_wherever_it_appears(table: str, quote: str, key: str) -> None:
    with pytest.raises(ConfigError, match="quoted keys"):
        parse(f"[{table}]\n{quote}{key}{quote} = 1\n")


@given(_bare, st.lists(st.integers(min_value=0, max_value=9), min_size=1, max_size=3))
def test_an_array_inside_an_array_is_always_refused(key: str, items: list[int]) -> None:
    with pytest.raises(ConfigError, match="nested arrays"):
        parse(f"[t]\n{key} = [{items!r}]\n")


@given(_bare, _bare, _scalar, st.sampled_from(["{{ x = {v} }}", "[{{ x = {v} }}]", "[\n  {{ x = {v} }},\n]"]))
def test_an_inline_table_is_always_refused_on_its_line(table: str, key: str, value: str, shape: str) -> None:
    text = f"[{table}]\n{key} = {shape.format(v=value)}\n"
    with pytest.raises(ConfigError, match="inline tables") as caught:
        parse(text)
    line = next(index for index, row in enumerate(text.splitlines(), start=1) if "{" in row)
    assert caught.value.source == f"file:config.toml:{line}"
    assert caught.value.key == f"{table}.{key}"


@given(st.one_of(st.text(max_size=40), st.text(alphabet="[]{}\"'=#.,\n\\ ab1$-_\t", max_size=60)))
def test_any_text_either_parses_or_fails_with_one_config_error(text: str) -> None:
    try:
        parse_file(text, "fuzz.toml", {})
    except ConfigError as error:
        assert error.source.startswith("file:fuzz.toml")


def test_only_line_feeds_end_lines_so_unicode_separators_keep_positions() -> None:
    layer = parse_file('[t]\r\na = "x\u2028y"\r\nb = 1\n# note\x85 d = {\nc = 2\n', "c.toml", {})
    assert layer.values["t.a"].value == "x\u2028y"
    assert [layer.values[key].line for key in ("t.a", "t.b", "t.c")] == [2, 3, 5]
