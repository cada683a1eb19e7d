"""The OpenAPI 3.1 document: generated from routes and bound types, valid, and served."""

from __future__ import annotations

from typing import Any

import pytest
from openapi_spec_validator import validate
from starlette.testclient import TestClient


@pytest.fixture
def document(client: TestClient) -> dict[str, Any]:
    response = client.get("/openapi.json")
    assert response.status_code == 200
    result: dict[str, Any] = response.json()
    return result


def test_the_document_is_valid_openapi_3_1(document: dict[str, Any]) -> None:
    assert document["openapi"] == "3.1.0"
    validate(document)


def test_every_route_is_documented_and_a_bound_one_with_its_own_method_only(document: dict[str, Any]) -> None:
    assert "/sources/{id}" in document["paths"]
    assert set(document["paths"]["/sources/{id}"]) == {"post"}
    assert set(document["paths"]["/untyped"]) == {"get"}


def test_an_unbound_route_documents_its_path_parameters_and_responses(document: dict[str, Any]) -> None:
    assert document["paths"]["/untyped"]["get"] == {
        "responses": {"200": {"description": "OK"}},
        "operationId": "untyped",
    }
    operation = document["paths"]["/untyped/{item}/notes/{rest}"]["delete"]
    assert operation["parameters"] == [
        {"name": "item", "in": "path", "required": True, "schema": {"type": "string"}},
        {"name": "rest", "in": "path", "required": True, "schema": {"type": "string"}},
    ]
    assert "requestBody" not in operation and set(operation["responses"]) == {"200"}
    assert operation["operationId"] == "untyped_with_wildcards"


def test_without_authentication_no_operation_carries_security(document: dict[str, Any]) -> None:
    assert "securitySchemes" not in document["components"]
    assert not [op for ops in document["paths"].values() for op in ops.values() if "security" in op]


def test_a_pattern_without_method_documents_every_method_and_rest_wildcards(document: dict[str, Any]) -> None:
    operations = document["paths"]["/anything/{rest}"]
    assert set(operations) == {"get", "post", "put", "patch", "delete"}
    assert {"name": "rest", "in": "path", "required": True, "schema": {"type": "string"}} in operations[
        "get"
    ]["parameters"]
    assert len({op["operationId"] for op in operations.values()}) == 5


def test_rules_map_to_schema_keywords(document: dict[str, Any]) -> None:
    rules = document["components"]["schemas"]["Rules"]["properties"]
    assert rules["low"]["minimum"] == 1
    assert rules["high"]["maximum"] == 2.5
    assert (rules["short"]["minLength"], rules["long"]["maxLength"]) == (3, 5)
    assert rules["exact"]["minLength"] == rules["exact"]["maxLength"] == 4
    assert rules["code"]["pattern"] == "^[a-z]+,[0-9]+$"
    assert [rules[k]["format"] for k in ("email", "uid", "day", "clock", "stamp")] == [
        "email", "uuid", "date", "time", "date-time"
    ]  # fmt: skip
    assert rules["reqList"]["minItems"] == 1
    assert set(document["components"]["schemas"]["Rules"]["required"]) == {
        "req", "reqInt", "reqEmail", "reqList"
    }  # fmt: skip


def test_enums_and_defaults_are_documented_and_a_sentinel_default_is_an_extension(
    document: dict[str, Any],
) -> None:
    defaults = document["components"]["schemas"]["Defaults"]["properties"]
    assert (
        defaults["role"]["enum"] == ["admin", "member", "guest"] and defaults["role"]["default"] == "member"
    )
    assert defaults["level"]["x-fw-default"] == -1 and "default" not in defaults["level"]
    assert defaults["empty"]["default"] == ""
    assert defaults["num"]["enum"] == [1, 2, 3]


def test_parameters_carry_their_location_type_and_requirement(document: dict[str, Any]) -> None:
    parameters = document["paths"]["/rules"]["post"]["parameters"]
    assert {
        "name": "X-Need",
        "in": "header",
        "required": True,
        "schema": {"type": "string", "minLength": 1},
    } in (parameters)
    lists = {p["name"]: p for p in document["paths"]["/lists"]["post"]["parameters"]}
    assert lists["tag"]["schema"] == {"type": "array", "items": {"type": "string"}}
    assert lists["tag"]["explode"] is True


def test_untagged_scalars_are_query_parameters_on_bodyless_methods(document: dict[str, Any]) -> None:
    colour = document["paths"]["/anything/{rest}"]
    assert "requestBody" not in colour["get"]


def test_descriptions_come_from_docstrings_and_field_doc_comments(document: dict[str, Any]) -> None:
    schemas = document["components"]["schemas"]
    assert schemas["Profile"]["description"].startswith("A profile update")
    assert schemas["Profile"]["properties"]["nickname"]["description"] == "Shown to other members."
    plain = {p["name"]: p for p in document["paths"]["/plain"]["get"]["parameters"]}
    assert plain["text"]["description"] == "The greeting text."
    assert plain["count"]["description"] == "How many times."
    assert plain["loud"]["description"] == "Shout it."


def test_a_deprecated_paragraph_marks_the_operation_deprecated(document: dict[str, Any]) -> None:
    assert document["paths"]["/plain"]["get"]["deprecated"] is True
    assert "deprecated" not in document["paths"]["/colour"]["get"]


def test_a_400_is_documented_when_the_request_can_be_rejected(document: dict[str, Any]) -> None:
    assert "400" in document["paths"]["/colour"]["get"]["responses"]  # enum-only validation
    assert "400" in document["paths"]["/rules"]["post"]["responses"]
    assert "400" not in document["paths"]["/orgs/{org}/greeting"]["get"]["responses"]
    problem = document["paths"]["/rules"]["post"]["responses"]["400"]["content"]["application/problem+json"]
    assert problem["schema"] == {"$ref": "#/components/schemas/Problem"}


def test_body_media_types_follow_the_shape_of_the_type(document: dict[str, Any]) -> None:
    def media(path: str) -> set[str]:
        return set(document["paths"][path]["post"]["requestBody"]["content"])

    assert media("/upload") == {"multipart/form-data"}
    assert media("/nested") == {"application/json"}
    assert media("/scalars") == {
        "application/json",
        "application/x-www-form-urlencoded",
        "multipart/form-data",
    }


def test_nested_types_are_components_referenced_by_name(document: dict[str, Any]) -> None:
    nested = document["components"]["schemas"]["Nested"]["properties"]
    assert nested["lines"] == {"type": "array", "items": {"$ref": "#/components/schemas/Line"}}
    assert nested["byName"]["additionalProperties"] == {"$ref": "#/components/schemas/Line"}
    assert nested["inner"] == {"anyOf": [{"$ref": "#/components/schemas/Line"}, {"type": "null"}]}
    assert document["components"]["schemas"]["Rest"]["additionalProperties"] is True
