"""The startup summary: winning sources, secret masking, DSN masking, dependon and falsy."""

from __future__ import annotations

import io
import json
from typing import Any

import pytest

import fw
from fw.configuration import registry
from fw.configuration.masking import mask_dsn
from fw.configuration.schema import SECRET_WORDS
from fw.configuration.summary import write_json, write_tree

from .conftest import PREAMBLE, Declare

WORD_FIELDS = "\n".join(f"    my_{word}_x: str" for word in SECRET_WORDS)

SOURCE = (
    PREAMBLE
    + f"""
@dataclass
class Vault:
    token: str
    label: str


@dataclass
class Words:
{WORD_FIELDS}
    plain: str
    shown_password: Annotated[str, fw.secret("show")]
    hidden: Annotated[str, fw.secret("hide")]
    masked_plain: Annotated[str, fw.secret("mask")]
    dsn: str
    masked_dsn: Annotated[str, fw.secret("mask")]
    vault: Annotated[Vault, fw.secret("show")]
    UPPER_Password: str


@dataclass
class Extra:
    note: Annotated[str, fw.default("x")]
    deeper: Vault


@dataclass
class Gate:
    extra: Annotated[Extra, fw.dependon(".enabled")]
    enabled: bool
    name: str
    level: Annotated[int, fw.falsy("0")]
    wait: Annotated[timedelta, fw.falsy("0s")]
    by_enabled: Annotated[str, fw.default("x"), fw.dependon(".enabled")]
    by_name: Annotated[str, fw.default("x"), fw.dependon("gate.name")]
    by_level: Annotated[str, fw.default("x"), fw.dependon(".level")]
    by_wait: Annotated[str, fw.default("x"), fw.dependon(".wait")]
    chained: Annotated[str, fw.default("x"), fw.dependon(".by_enabled")]
    defaulted: Annotated[int, fw.default("5"), fw.falsy("0")]


fw.register_config(Words, "words")
fw.register_config(Gate, "gate")
"""
)


@pytest.fixture
def mod(declare: Declare) -> Any:
    return declare(SOURCE)


def summary(argv: list[str]) -> dict[str, tuple[str, str]]:
    fw.parse_config(argv)
    return {item.key: (item.value, item.source) for item in registry.summary_items()}


def fill_words() -> list[str]:
    argv = [f"--words-my_{word}_x=v" for word in SECRET_WORDS]
    for name in ("plain", "shown_password", "hidden", "masked_plain", "UPPER_Password"):
        argv.append(f"--words-{name.lower() if name != 'UPPER_Password' else 'upper_password'}=v")
    argv += ["--words-vault-token=t", "--words-vault-label=l"]
    return argv


@pytest.mark.parametrize("word", SECRET_WORDS)
def test_each_secret_word_in_the_key_path_masks_the_value(mod: Any, word: str) -> None:
    items = summary(fill_words())
    assert items[f"words.my_{word}_x"] == ("*****", f"option:--words-my_{word}_x")


def test_detection_uses_the_lower_cased_key_path(mod: Any) -> None:
    assert summary(fill_words())["words.upper_password"][0] == "*****"


def test_other_keys_are_shown(mod: Any) -> None:
    assert summary(fill_words())["words.plain"] == ("v", "option:--words-plain")


def test_explicit_secret_tags_always_win(mod: Any) -> None:
    items = summary(fill_words())
    assert items["words.shown_password"][0] == "v"
    assert "words.hidden" not in items
    assert items["words.masked_plain"][0] == "*****"
    assert items["words.vault.token"][0] == "t"


def test_an_empty_secret_is_shown_empty_not_masked(mod: Any) -> None:
    assert summary([])["words.my_password_x"] == ("", "default")


@pytest.mark.parametrize(
    ("dsn", "shown"),
    [
        (
            "postgresql://user:pw@db.example:5432/app?sslmode=require",
            "postgresql://*****@db.example:5432/app",
        ),
        ("postgresql://user@db.example/app", "postgresql://*****@db.example/app"),
        ("redis://:pw@127.0.0.1:6379/0", "redis://*****@127.0.0.1:6379/0"),
        ("sqlite:///fw.sqlite3", "sqlite:///fw.sqlite3"),
        ("mysql://db.example:3306/app#frag", "mysql://db.example:3306/app"),
        ("postgresql://u:p@[::1]:5432/app", "postgresql://*****@[::1]:5432/app"),
        ("not a dsn", "*****"),
        ("postgresql://u:p@host:notaport/app", "*****"),
        ("", ""),
    ],
)
def test_dsn_masking_keeps_scheme_host_port_and_path(dsn: str, shown: str) -> None:
    assert mask_dsn(dsn) == shown


def test_a_key_ending_in_dsn_is_dsn_masked_unless_tagged(mod: Any) -> None:
    dsn = "postgresql://u:p@db:5432/app?x=1"
    items = summary([f"--words-dsn={dsn}", f"--words-masked_dsn={dsn}"])
    assert items["words.dsn"][0] == "postgresql://*****@db:5432/app"
    assert items["words.masked_dsn"][0] == "*****"


def test_the_framework_dsn_is_dsn_masked(mod: Any) -> None:
    items = summary(["--middleware-rdb-dsn", "postgresql://fw:pw@127.0.0.1:5432/test"])
    assert items["middleware.rdb.dsn"][0] == "postgresql://*****@127.0.0.1:5432/test"


def test_the_cloud_store_settings_show_where_the_store_is_but_never_credentials(
    mod: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "aws-secret-from-the-environment")
    items = summary(
        [
            "--session-enabled",
            "--session-backend=dynamo",
            "--auth-enabled",
            "--auth-backend=firestore",
            "--middleware-dynamo-endpoint_url",
            "http://AKIAEXAMPLE:s3cr3t@127.0.0.1:8000/?X-Amz-Security-Token=sts-9f2e",
            "--middleware-firestore-project",
            "shop",
            "--middleware-firestore-emulator_host",
            "127.0.0.1:8081",
        ]
    )
    assert items["middleware.dynamo.endpoint_url"][0] == "http://*****@127.0.0.1:8000/"
    assert items["middleware.firestore.project"][0] == "shop"
    assert items["middleware.firestore.emulator_host"][0] == "127.0.0.1:8081"
    shown = " ".join(value for value, _ in items.values())
    for credential in ("AKIAEXAMPLE", "s3cr3t", "sts-9f2e", "aws-secret-from-the-environment"):
        assert credential not in shown


def test_dependon_hides_entries_while_the_parent_is_off(mod: Any) -> None:
    items = summary([])
    hidden = {"gate.by_enabled", "gate.by_name", "gate.by_level", "gate.by_wait", "gate.chained"}
    assert hidden.isdisjoint(items)
    items = summary(["--gate-enabled", "--gate-name=n", "--gate-level=2", "--gate-wait=1ms"])
    assert hidden <= set(items)


def test_dependon_is_transitive(mod: Any) -> None:
    items = summary(["--gate-by_enabled=x"])
    assert "gate.chained" not in items
    items = summary(["--gate-enabled", "--gate-by_enabled="])
    assert "gate.chained" not in items


def test_falsy_is_compared_by_value(mod: Any) -> None:
    for text in ("0s", "0ms", "0h"):
        assert "gate.by_wait" not in summary([f"--gate-wait={text}"])


def test_dependon_is_a_display_filter_only(mod: Any) -> None:
    summary(["--gate-by_enabled=kept"])
    assert fw.config(mod.Gate).by_enabled == "kept"


def test_a_default_wins_over_falsy(mod: Any) -> None:
    fw.parse_config([])
    cfg = fw.config(mod.Gate)
    assert (cfg.defaulted, cfg.level) == (5, 0)


def test_the_json_record_is_one_line_with_values_and_sources(mod: Any) -> None:
    fw.parse_config(["--gate-level=3"])
    out = io.StringIO()
    write_json(registry.summary_items(), "dev", None, out)
    text = out.getvalue()
    assert text.count("\n") == 1
    record = json.loads(text)
    assert record["values"]["gate.level"] == {"value": 3, "source": "option:--gate-level"}
    assert record["values"]["words.my_token_x"]["value"] == ""
    assert record["app_env"] == "dev"


def test_the_summary_is_printed_once(mod: Any, capsys: pytest.CaptureFixture[str]) -> None:
    fw.parse_config([])
    registry.print_summary_once()
    registry.print_summary_once()
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 1 and json.loads(lines[0])["msg"] == "configuration"


def test_a_terminal_gets_a_tree(mod: Any) -> None:
    fw.parse_config(["--words-plain=v"])
    out = io.StringIO()
    write_tree(registry.summary_items(), "dev", None, out)
    text = out.getvalue()
    assert "words" in text and "plain = v" in text and "option:--words-plain" in text


def test_an_empty_value_reads_as_empty_quotes_in_the_tree(mod: Any) -> None:
    fw.parse_config([])
    out = io.StringIO()
    write_tree(registry.summary_items(), "dev", None, out)
    assert 'plain = ""  default' in out.getvalue()


def test_dependon_on_a_nested_struct_covers_its_whole_subtree(mod: Any) -> None:
    subtree = {"gate.extra.note", "gate.extra.deeper.label", "gate.extra.deeper.token"}
    assert subtree.isdisjoint(summary(["--gate-extra-deeper-label=l"]))
    assert subtree <= set(summary(["--gate-enabled"]))
    assert fw.config(mod.Gate).extra.note == "x"


def test_control_characters_in_a_value_cannot_restyle_the_terminal(mod: Any) -> None:
    fw.parse_config(["--words-plain=\x1b[31mred\x1b[0m \u202eevil [bold]x[/bold]"])
    out = io.StringIO()
    write_tree(registry.summary_items(), "dev", None, out)
    text = out.getvalue()
    assert "\x1b" not in text and "\u202e" not in text
    assert "plain = \\x1b[31mred\\x1b[0m \\u202eevil [bold]x[/bold]" in text
