"""The startup summary carries the configuration advisories at their level, never with a secret."""

from __future__ import annotations

import io
import json
import re
from typing import Any

import pytest

from fw.configuration import doctor, registry
from fw.configuration.advisory import Advisory
from fw.configuration.summary import Item, write
from fw.testing import configured

ADMIT = [
    "--auth-enabled",
    "--auth-mode=jwt_only",
    "--auth-jwt-revocation-mode=token",
    "--auth-jwt-revocation-on_unavailable=admit",
]


class Terminal(io.StringIO):
    """A stream that says it is a terminal, so the summary is the coloured Rich tree."""

    def isatty(self) -> bool:
        return True


def printed_record(capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    registry.print_summary_once()
    [line] = capsys.readouterr().out.splitlines()
    record: dict[str, Any] = json.loads(line)
    return record


def test_admitting_tokens_while_revocation_is_down_makes_the_summary_an_error_record(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with configured(argv=ADMIT):
        record = printed_record(capsys)
    assert record["level"] == "error"
    [advisory] = record["advisories"]
    assert advisory["level"] == "error"
    assert advisory["key"] == "auth.jwt.revocation.on_unavailable"
    assert advisory["msg"].startswith("auth.jwt.revocation.on_unavailable = 'admit'")
    assert "option:--auth-jwt-revocation-on_unavailable" in advisory["msg"]
    assert record["values"]["auth.jwt.revocation.on_unavailable"]["value"] == "admit"


def test_refusing_while_revocation_is_down_leaves_the_summary_at_info_without_advisories(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with configured(argv=ADMIT[:-1]):
        record = printed_record(capsys)
    assert record["level"] == "info"
    assert "advisories" not in record


def test_a_secret_written_into_the_file_makes_a_warning_record_that_shows_it_masked(
    capsys: pytest.CaptureFixture[str],
) -> None:
    toml = '[session.keyring]\nsecret = "hunter2-hunter2-hunter2"\n'
    with configured(toml=toml, argv=["--session-enabled"]):
        registry.print_summary_once()
    out = capsys.readouterr().out
    record = json.loads(out)
    assert record["level"] == "warning"
    [advisory] = record["advisories"]
    assert advisory == {
        "level": "warning",
        "key": "session.keyring.secret",
        "msg": advisory["msg"],
    }
    assert advisory["msg"].startswith("session.keyring.secret = ***** is written in <toml>:2")
    assert "hunter2" not in out


def test_an_error_outranks_a_warning_in_the_record_level(capsys: pytest.CaptureFixture[str]) -> None:
    toml = '[middleware.rdb]\ndsn = "postgresql://fw:pw-in-file@db:5432/app"\n'
    with configured(toml=toml, argv=ADMIT):
        record = printed_record(capsys)
    assert record["level"] == "error"
    assert [item["level"] for item in record["advisories"]] == ["error", "warning"]
    assert "pw-in-file" not in json.dumps(record)


@pytest.mark.parametrize(
    ("env", "secret"),
    [
        ({"SESSION_KEYRING_SECRET": "kr-9f8e7d6c5b4a"}, "kr-9f8e7d6c5b4a"),
        ({"AUTH_OIDC_CLIENT_SECRET": "cs-0a1b2c3d4e"}, "cs-0a1b2c3d4e"),
        ({"MIDDLEWARE_RDB_DSN": "postgresql://fw:dsn-pw-5566@db:5432/app"}, "dsn-pw-5566"),
        ({"MIDDLEWARE_RDB_DSN": "postgresql://fw:dsn%2Fpw@db:5432/app"}, "dsn/pw"),
    ],
)
def test_an_advisory_never_carries_a_secret_value_even_when_its_message_quotes_one(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], env: dict[str, str], secret: str
) -> None:
    def leaky(*args: Any, **kwargs: Any) -> list[Advisory]:
        return [Advisory("warning", "some.key", f"some.key quotes {secret} here")]

    monkeypatch.setattr(doctor, "advisories", leaky)
    with configured(env=env):
        [advisory] = registry.advisories()
        record = printed_record(capsys)
    assert advisory.msg == "some.key quotes ***** here"
    assert secret not in json.dumps(record)
    assert record["advisories"][0]["msg"] == "some.key quotes ***** here"


def test_the_terminal_tree_prints_each_advisory_in_colour_under_the_tree() -> None:
    out = Terminal()
    advisories = [
        Advisory("error", "a.b", "a.b = 'admit' is risky"),
        Advisory("warning", "c.d", "c.d = ***** is written in config.toml:3"),
    ]
    write([Item("a.b", "admit", "default", "admit")], "dev", None, out, advisories)
    coloured = out.getvalue()
    text = re.sub(r"\x1b\[[0-9;]*m", "", coloured)
    tree_end = text.index("admit")
    error_at = text.index("a.b = 'admit' is risky")
    assert tree_end < error_at < text.index("c.d = ***** is written")
    assert "\x1b[1;31merror:\x1b[0m a.b = 'admit' is risky" in coloured
    assert "\x1b[33mwarning:\x1b[0m c.d" in coloured


def test_the_terminal_tree_escapes_markup_and_control_characters_in_advisories() -> None:
    out = Terminal()
    write([], "dev", None, out, [Advisory("error", "k", "k = '[red]x\x1b[2J'")])
    text = out.getvalue()
    assert "[red]x" in text and "\\x1b[2J" in text and "\x1b[2J" not in text


def test_fw_doctor_and_the_summary_report_the_same_findings(capsys: pytest.CaptureFixture[str]) -> None:
    from fw import configuration

    with configured(argv=ADMIT):
        lines = configuration.doctor_report()
        record = printed_record(capsys)
    assert lines == [f"{item['level']}: {item['msg']}" for item in record["advisories"]]


def test_the_parts_of_a_dsn_the_summary_shows_are_not_masked_in_advisories(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def quoting(*args: Any, **kwargs: Any) -> list[Advisory]:
        return [Advisory("warning", "k", "run fw migrate against db:5432/app (pw-77, sslmode=require)")]

    monkeypatch.setattr(doctor, "advisories", quoting)
    with configured(env={"MIDDLEWARE_RDB_DSN": "postgresql://fw:pw-77@db:5432/app?sslmode=require"}):
        [advisory] = registry.advisories()
    assert advisory.msg == "run fw migrate against db:5432/app (*****, *****)"
