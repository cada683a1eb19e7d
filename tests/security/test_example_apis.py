"""Schemathesis against the OpenAPI document every example application serves, in process.

Each example runs configured as ``fw dev`` runs it (its ``config.dev.toml``, the development
provider or X stand-in injected through the environment, a database of the test's own). Its
``/openapi.json`` must be valid OpenAPI listing every route the example declares (bound or not),
and every documented operation is driven with schema-valid and schema-violating requests: no
answer is a server error.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from openapi_spec_validator import validate
from schemathesis import GenerationMode
from starlette.testclient import TestClient

from fw.testing import configured, identity_provider, oauth_provider

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

# Imported before any configuration is parsed: examples register their settings at import time.
import examples.hello.app  # noqa: E402
import examples.login.app  # noqa: E402
import examples.oauth.app  # noqa: E402
import examples.passkeys.app  # noqa: E402, F401

EXAMPLES = {"hello": 5, "login": 4, "oauth": 2, "passkeys": 4}  # example -> documented operations


@contextlib.contextmanager
def running_example(name: str, folder: Path) -> Iterator[Any]:
    """The example's App under its development configuration, started (lifespan on)."""
    import importlib

    if name == "hello":
        with configured(toml=""):
            app = importlib.import_module("examples.hello.app").app
            with TestClient(app, base_url="http://localhost:8000"):
                yield app
        return
    toml = (ROOT / "examples" / name / "config.dev.toml").read_text()
    dsn = f"sqlite:///{folder / 'example.sqlite3'}"
    toml = "\n".join(f'dsn = "{dsn}"' if line.startswith("dsn = ") else line for line in toml.splitlines())
    import asyncio

    from fw.rdb.migrate import upgrade

    asyncio.run(upgrade(dsn))
    provider_context = oauth_provider() if name == "oauth" else identity_provider()
    with provider_context as provider, configured(toml=toml, env=provider.env):
        app = importlib.import_module(f"examples.{name}.app").app
        with TestClient(app, base_url="http://localhost:8000"):
            yield app


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_every_example_serves_valid_openapi_and_survives_schemathesis(name: str, tmp_path: Path) -> None:
    with running_example(name, tmp_path) as app:
        with TestClient(app, base_url="http://localhost:8000") as client:
            document = client.get("/openapi.json").json()
        validate(document)
        schema = schemathesis.openapi.from_asgi("/openapi.json", app)
        operations = [result.ok() for result in schema.get_all_operations()]
        assert len(operations) == EXAMPLES[name], [f"{op.method} {op.path}" for op in operations]
        for operation in operations:
            raw = operation.definition.raw
            # A request can only violate the schema of an operation that declares an input.
            violable = bool(raw.get("parameters")) or "requestBody" in raw
            modes = (GenerationMode.POSITIVE, GenerationMode.NEGATIVE)
            for mode in modes if violable else modes[:1]:

                @given(case=operation.as_strategy(generation_mode=mode))
                @settings(
                    max_examples=60, deadline=None, suppress_health_check=list(HealthCheck), database=None
                )
                def run(case: Any) -> None:
                    response = case.call()
                    assert response.status_code < 500, (case.method, case.path, response.text[:300])

                run()
