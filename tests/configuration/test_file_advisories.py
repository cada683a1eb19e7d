"""Advisories about the configuration file itself: keys no registration declares, and no file
outside ``dev``. Both are warnings in ``fw doctor`` and the startup summary, never a refusal."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import fw
from fw import configuration
from fw.configuration import registry
from fw.settings import ServerSettings
from fw.testing import configured


@pytest.fixture
def workdir(fresh: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.delenv("APP_ENV", raising=False)
    fw.set_config_load_options(working_dir=tmp_path, search_paths=["config.{env}.toml"])
    return tmp_path


def unknown(toml: str) -> list[str]:
    with configured(toml=toml):
        return configuration.doctor_report()


# Unknown keys.
def test_a_misspelt_key_is_named_with_its_file_line_and_the_nearest_declared_key(workdir: Path) -> None:
    path = workdir / "config.dev.toml"
    path.write_text("[server]\nhost = '127.0.0.1'\n\n# the port\nprot = 8000\n")
    fw.parse_config([])
    assert configuration.doctor_report() == [
        f"warning: unknown key server.prot ({path}:5); did you mean server.port?"
    ]


def test_a_misspelt_table_is_matched_by_the_whole_key() -> None:
    assert unknown("[sever]\nport = 8000\n") == [
        "warning: unknown key sever.port (<toml>:2); did you mean server.port?"
    ]


def test_a_key_like_no_declared_one_is_reported_as_ignored() -> None:
    assert unknown("[shop]\ncolour = 'red'\n") == [
        "warning: unknown key shop.colour (<toml>:2); "
        "no registered configuration declares it, so it is ignored"
    ]


def test_an_unknown_key_in_a_table_array_element_names_the_element() -> None:
    toml = (
        "[[auth.assurance.policy]]\nname = 'recent'\n\n"
        "[[auth.assurance.policy]]\nname = 'x'\nmax_agee = '5m'\n"
    )
    assert unknown(toml) == [
        "warning: unknown key auth.assurance.policy[1].max_agee (<toml>:6); "
        "did you mean auth.assurance.policy[1].max_age?"
    ]


def test_an_unknown_table_array_is_named_as_one() -> None:
    assert unknown("[[auth.assurance.polcy]]\nname = 'x'\n") == [
        "warning: unknown table array [[auth.assurance.polcy]] (<toml>:1); "
        "did you mean [[auth.assurance.policy]]?"
    ]


def test_every_unknown_key_is_reported_in_file_order() -> None:
    found = unknown("[server]\nprot = 1\nhots = 'x'\nport = 8001\n")
    assert [line.split(" (")[0] for line in found] == [
        "warning: unknown key server.prot",
        "warning: unknown key server.hots",
    ]
    assert found[1].endswith("did you mean server.host?")


def test_an_unknown_key_still_loads_and_reaches_the_summary_as_a_warning(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with configured(toml="[server]\nport = 8001\nprot = 8000\n"):
        assert fw.config(ServerSettings).port == 8001
        registry.print_summary_once()
    record = json.loads(capsys.readouterr().out)
    assert record["level"] == "warning"
    assert record["advisories"] == [
        {
            "level": "warning",
            "key": "server.prot",
            "msg": "unknown key server.prot (<toml>:3); did you mean server.port?",
        }
    ]


# No file outside dev.
def test_app_env_other_than_dev_without_a_file_names_the_files_searched(
    workdir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fw.parse_config([])  # dev needs no file
    assert configuration.doctor_report() == []
    monkeypatch.setenv("APP_ENV", "prod")
    fw.parse_config([])
    assert configuration.doctor_report() == [
        "warning: APP_ENV=prod but no configuration file was found (searched config.prod.toml): every key "
        "is at its default unless the environment or an option sets it"
    ]
    (workdir / "config.prod.toml").write_text("[server]\nport = 8001\n")
    fw.parse_config([])
    assert configuration.doctor_report() == []


def test_the_default_search_names_every_place_it_looked(
    fresh: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("APP_ENV", "stg")
    fw.set_config_load_options(
        working_dir=tmp_path, user_config_dir=tmp_path / "user", system_config_dir=Path("/nowhere/shop")
    )
    fw.parse_config([])
    [line] = configuration.doctor_report()
    searched = "config.stg.toml, config/config.stg.toml, user/config.toml, /nowhere/shop/config.toml"
    assert f"(searched {searched})" in line


def test_given_layers_without_a_file_say_none_was_given() -> None:
    with configured(env={"APP_ENV": "stg"}):
        [line] = configuration.doctor_report()
    assert line.startswith("warning: APP_ENV=stg but no configuration file was given:")


# What fw doctor says it checked.
def test_the_checked_line_names_the_environment_the_file_and_what_was_compared(workdir: Path) -> None:
    path = workdir / "config.dev.toml"
    path.write_text("[server]\nport = 8001\nprot = 8000\n")
    fw.parse_config([])
    checked = configuration.doctor_checked()
    assert checked.startswith(f"configuration (APP_ENV=dev, file {path} setting 2): ")
    assert "the file's keys compared with them" in checked
