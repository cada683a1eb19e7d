"""The example application reads its configuration through ``fw.config``."""

from __future__ import annotations

import importlib
from datetime import timedelta
from pathlib import Path

import pytest
from starlette.testclient import TestClient

import fw
from fw.configuration import registry

ROOT = Path(__file__).resolve().parents[2]


def test_the_example_index_shows_configured_values(fresh: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(ROOT))
    app = importlib.import_module("examples.hello.app").app
    hello = importlib.import_module("examples.hello.settings").HelloConfig
    fw.register_config(hello, "hello")
    fw.parse_config(
        [
            "--hello-greeting",
            "Hi",
            "--hello-names",
            "Ada",
            "--hello-names",
            "Grace",
            "--hello-cache_for",
            "2m",
        ]
    )
    assert fw.config(hello).cache_for == timedelta(minutes=2)
    with TestClient(app) as client:
        body = client.get("/").json()
    assert body["greeting"] == "Hi, Ada and Grace!"
    assert body["cache_for_seconds"] == 120
    assert registry.source_of("hello.greeting") == "option:--hello-greeting"
