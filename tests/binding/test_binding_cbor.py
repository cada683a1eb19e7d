"""CBOR bodies, accepted only when the binders were generated with ``api.cbor = true``."""

from __future__ import annotations

from collections.abc import Iterator

import cbor2
import pytest
from starlette.testclient import TestClient

import fw.testing

from .cborapp.handlers import app, shapes


@pytest.fixture
def cbor_client() -> Iterator[TestClient]:
    with TestClient(app) as client:
        yield client


def post(client: TestClient, payload: object, kind: str = "application/cbor") -> dict[str, object]:
    response = client.post("/shapes", content=cbor2.dumps(payload), headers={"content-type": kind})
    result: dict[str, object] = response.json()
    result["_status"] = response.status_code
    return result


def test_a_cbor_map_binds_with_native_byte_strings(cbor_client: TestClient) -> None:
    result = post(
        cbor_client, {"name": "tri", "blob": b"\x01\x02", "points": [{"x": 1, "y": 2}], "ratio": 0.5}
    )
    assert result == {"_status": 200, "name": "tri", "blob": "AQI=", "points": [[1, 2]], "ratio": 0.5}


def test_any_plus_cbor_media_type_is_cbor(cbor_client: TestClient) -> None:
    result = post(cbor_client, {"name": "n"}, kind="application/vnd.example+cbor")
    assert result["_status"] == 200 and result["name"] == "n"


def test_json_still_works_when_cbor_is_enabled(cbor_client: TestClient) -> None:
    response = cbor_client.post("/shapes", json={"name": "j", "blob": "AQI="})
    assert response.json()["blob"] == "AQI="


@pytest.mark.parametrize("payload", [[1, 2], "text", {1: "int key"}, {"name": float("nan")}])
def test_a_cbor_body_that_is_not_a_text_keyed_map_is_a_bind_error(
    cbor_client: TestClient, payload: object
) -> None:
    result = post(cbor_client, payload)
    assert result["_status"] == 400
    assert result["errors"] == [{"field": "body", "location": "payload", "message": "invalid CBOR body"}]


def test_malformed_cbor_is_a_bind_error(cbor_client: TestClient) -> None:
    response = cbor_client.post("/shapes", content=b"\xbf\x61", headers={"content-type": "application/cbor"})
    assert response.status_code == 400


def test_wrong_types_inside_cbor_are_field_errors(cbor_client: TestClient) -> None:
    result = post(cbor_client, {"name": "", "points": [{"x": "1"}], "ratio": "x"})
    assert result["errors"] == [
        {"field": "name", "location": "payload", "message": "required"},
        {"field": "points[0].x", "location": "payload", "message": "invalid int"},
        {"field": "ratio", "location": "payload", "message": "invalid float"},
    ]


def test_a_cbor_body_over_server_cbor_max_body_is_413() -> None:
    with fw.testing.configured(toml="[server]\ncbor_max_body = 64\n"):
        limited = fw.App()
        limited.add_route("POST /shapes", shapes)
        with TestClient(limited) as client:
            assert post(client, {"name": "x" * 10})["_status"] == 200
            assert post(client, {"name": "x" * 100})["_status"] == 413


def test_a_self_referencing_cbor_value_is_a_bind_error_not_a_crash(cbor_client: TestClient) -> None:
    loop: dict[str, object] = {"label": "a"}
    loop["next"] = loop
    raw = cbor2.dumps(loop, value_sharing=True)
    response = cbor_client.post("/nodes", content=raw, headers={"content-type": "application/cbor"})
    assert response.status_code == 400
    assert response.json()["errors"] == [
        {"field": "body", "location": "payload", "message": "body nested too deeply"}
    ]
