"""What pillars register with the configuration layer: advisory providers and removed keys; and
keys marked ``secret("hide")``, which never appear in any startup output."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

import fw.pillars
from fw import configuration
from fw.configuration import advisory, registry, removed
from fw.configuration.advisory import Advisory, AdvisoryContext
from fw.errors import ConfigError

from .conftest import PREAMBLE, Declare

# Declarations alike in shape to other tests' sources only: each is the data its own tests read.
SOURCE = (
    PREAMBLE
    + """
@dataclass
class Vault:
    #: Where the vault lives.
    url: Annotated[str, fw.default("https://vault.example")]
    unlock_code: Annotated[str, fw.secret("hide")]
    legacy_mode: bool


fw.register_config(Vault, "vault")
"""
)


@pytest.fixture
def vault(declare: Declare, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    monkeypatch.setattr(advisory, "_providers", list(advisory._providers))
    monkeypatch.setattr(removed, "_removed", dict(removed._removed))
    yield declare(SOURCE)


def summary_record(capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    registry.print_summary_once()
    [line] = capsys.readouterr().out.splitlines()
    record: dict[str, Any] = json.loads(line)
    return record


def test_a_registered_provider_reports_through_the_doctor_and_the_summary(
    vault: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    seen: list[AdvisoryContext] = []

    @configuration.register_advisories
    def plain_http(context: AdvisoryContext) -> list[Advisory]:
        seen.append(context)
        url = str(context.values["vault.url"])
        if not url.startswith("http://"):
            return []
        return [Advisory("warning", "vault.url", f"vault.url = {url!r} (from {context.source('vault.url')})")]

    configuration.register_advisories(plain_http)  # a second registration is a no-op
    registry.parse_layers(["--vault-url=http://vault.internal"], {"APP_ENV": "stg"}, "[vault]\n")
    assert configuration.doctor_report() == [
        "warning: vault.url = 'http://vault.internal' (from option:--vault-url)"
    ]
    record = summary_record(capsys)
    assert record["level"] == "warning"
    assert record["advisories"] == [
        {
            "level": "warning",
            "key": "vault.url",
            "msg": "vault.url = 'http://vault.internal' (from option:--vault-url)",
        }
    ]
    assert seen[-1].app_env == "stg"


def test_a_removed_key_is_refused_with_its_fix_when_turned_on(vault: Any) -> None:
    configuration.register_removed_key("vault.legacy_mode", "removed setting: use vault.url instead")
    registry.parse_layers([], {}, "[vault]\nlegacy_mode = false\n")
    with pytest.raises(ConfigError) as caught:
        registry.parse_layers([], {}, "[vault]\nlegacy_mode = true\n")
    assert str(caught.value) == (
        "vault.legacy_mode: removed setting: use vault.url instead (it is set to true) (from file:<toml>:2)"
    )


def test_a_removed_key_is_left_out_of_the_summary_help_and_templates(vault: Any) -> None:
    configuration.register_removed_key("vault.legacy_mode", "removed setting: use vault.url instead")
    registry.parse_layers([], {}, "")
    assert "vault.legacy_mode" not in {item.key for item in registry.summary_items()}
    for request in ("--help", "--generate-config=toml", "--generate-config=env"):
        registry.parse_layers([request], {}, "")
        text = registry.requested_template() or ""
        assert "vault" in text and "legacy" not in text.lower(), request


def test_the_frameworks_removed_provider_logout_is_registered_by_auth(fresh: None) -> None:
    fw.pillars.install()  # what an App, fw.parse_config, fw.testing.configured and fw do first
    with pytest.raises(ConfigError) as caught:
        registry.parse_layers(["--auth-oidc-provider_logout"], {}, "")
    assert caught.value.key == "auth.oidc.provider_logout"
    assert "logout_scope" in str(caught.value)


def test_a_hidden_key_written_in_the_file_is_warned_about_without_its_name_or_value(
    vault: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    registry.parse_layers([], {}, '[vault]\nunlock_code = "open-sesame-4242"\n')
    [line] = configuration.doctor_report()
    assert line.startswith("warning: a hidden secret is written in <toml>:2")
    out = json.dumps(summary_record(capsys))
    assert "unlock_code" not in out and "open-sesame-4242" not in out
    assert "unlock_code" not in line and "open-sesame" not in line


def test_no_advisory_names_a_hidden_key_even_when_a_provider_does(
    vault: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    @configuration.register_advisories
    def leaky(context: AdvisoryContext) -> list[Advisory]:
        return [
            Advisory("error", "vault.unlock_code", "vault.unlock_code is too short for vault.url"),
            Advisory("warning", "vault.url", "vault.unlock_code_rotation is a different key"),
        ]

    registry.parse_layers([], {"VAULT_UNLOCK_CODE": "1234"}, "")
    assert [(item.key, item.msg) for item in registry.advisories()] == [
        ("", "(a hidden setting) is too short for vault.url"),
        ("vault.url", "vault.unlock_code_rotation is a different key"),
    ]
    record = summary_record(capsys)
    assert 'vault.unlock_code"' not in json.dumps(record)
    assert "vault.unlock_code" not in record["values"]
    assert all("vault.unlock_code is" not in line for line in configuration.doctor_report())
