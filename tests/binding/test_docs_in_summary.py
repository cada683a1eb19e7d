"""The startup summary shows the ``server.docs`` in effect: what ``/docs`` serves, not the
declared ``false`` of a key left unset."""

from __future__ import annotations

import sys

import pytest
from starlette.testclient import TestClient

import fw
from fw.configuration import registry, source_of
from fw.testing import configured


def shown_docs() -> tuple[str, str]:
    [item] = [item for item in registry.summary_items() if item.key == "server.docs"]
    return item.value, item.source


def test_left_unset_in_dev_the_summary_says_docs_are_on_and_they_are_served() -> None:
    with configured(env={"APP_ENV": "dev"}), TestClient(fw.App()) as client:
        assert shown_docs() == ("true", "default (on in APP_ENV=dev)")
        assert client.get("/docs").status_code == 200
        assert source_of("server.docs") == "default"  # what was loaded is unchanged


def test_left_unset_in_dev_without_the_docs_extra_the_summary_says_off_and_why(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "swagger_ui_bundle", None)  # as if the extra were not installed
    with configured(env={"APP_ENV": "dev"}):
        value, source = shown_docs()
    assert value == "false"
    assert source.startswith("default (on in APP_ENV=dev, but the docs extra is missing: pip install")
