"""Schemathesis drives the example application through its own OpenAPI document, in process.

Every generated request must get a documented, conforming answer: no server error, schema-valid
requests accepted, documented status codes and content types, conforming problem documents.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def operations() -> list[Any]:
    from examples.hello.app import app

    schema = schemathesis.openapi.from_asgi("/openapi.json", app)
    return [result.ok() for result in schema.get_all_operations()]


def test_the_example_documents_its_binding_routes() -> None:
    labels = {f"{op.method.upper()} {op.path}" for op in operations()}
    assert {"POST /orgs/{org}/members", "POST /members/{member}/avatar", "GET /members/search"} <= labels


@pytest.mark.parametrize("operation", operations(), ids=lambda op: f"{op.method.upper()} {op.path}")
def test_the_example_api_conforms_to_its_document(operation: Any) -> None:
    @given(case=operation.as_strategy())
    @settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck), database=None)
    def run(case: Any) -> None:
        case.call_and_validate()

    run()


def test_the_example_document_is_valid_openapi() -> None:
    from openapi_spec_validator import validate
    from starlette.testclient import TestClient

    from examples.hello.app import app

    with TestClient(app) as client:
        document = client.get("/openapi.json").json()
    validate(document)
    add_member = document["paths"]["/orgs/{org}/members"]["post"]
    assert add_member["summary"] == "Add a member to an organization."
    assert document["paths"]["/members/search"]["get"]["deprecated"] is True


def test_fw_generate_writes_the_served_document_next_to_the_app_for_review() -> None:
    """The committed ``openapi.json`` is current and is exactly what ``/openapi.json`` serves."""
    import json

    from openapi_spec_validator import validate
    from starlette.testclient import TestClient

    from examples.hello.app import app
    from fw.generate.binders import generate_binders
    from fw.generate.project import load_project

    outputs = {output.path: output.text for output in generate_binders(load_project(ROOT))}
    path = ROOT / "examples" / "hello" / "openapi.json"
    assert path in outputs
    assert path.read_text() == outputs[path], "run `fw generate`: examples/hello/openapi.json is stale"
    written = json.loads(outputs[path])
    validate(written)
    with TestClient(app) as client:
        assert client.get("/openapi.json").json() == written
