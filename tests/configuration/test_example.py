"""The example application reads its configuration through ``fw.config``."""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from starlette.testclient import TestClient

import fw
from fw.configuration import registry

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def example_app(monkeypatch: pytest.MonkeyPatch) -> Iterator[fw.App]:
    """A fresh ``examples.hello`` App, never started: an App keeps the configuration it started
    under, so this test's options must not meet the App another test started (nor leave theirs)."""
    monkeypatch.syspath_prepend(str(ROOT))
    module = importlib.import_module("examples.hello.app")
    yield importlib.reload(module).app
    importlib.reload(module)


def test_the_example_index_shows_configured_values(fresh: None, example_app: fw.App) -> None:
    app = example_app
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
