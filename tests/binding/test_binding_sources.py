"""Where each field's value comes from, and how every declared type binds."""

from __future__ import annotations

import base64
from typing import Any

import pytest

import fw

from .bindapp.models import Lists, Nested, RawRest, Rest, Scalars, Sources, Upload
from .support import bind, errors_of

pytestmark = pytest.mark.asyncio

SOURCES_BODY = {"name": "from-body", "pOnly": "p", "firstName": "Ada", "alias": "al", "qOnly": "ignored"}


async def test_an_untagged_scalar_reads_the_query_before_the_body() -> None:
    bound = await bind(Sources, query="name=from-query", json=SOURCES_BODY, path_params={"id": "1"})
    assert bound.name == "from-query"
    bound = await bind(Sources, json=SOURCES_BODY, path_params={"id": "1"})
    assert bound.name == "from-body"


async def test_query_and_payload_fields_read_only_their_own_source() -> None:
    bound = await bind(
        Sources, query="pOnly=from-query", json={"qOnly": "from-body"}, path_params={"id": "1"}
    )
    assert bound.p_only == ""
    assert bound.q_only == ""


async def test_path_header_cookie_and_method_fields_bind_their_source() -> None:
    bound = await bind(
        Sources,
        method="PATCH",
        path_params={"id": "42"},
        headers=[("X-Token", "secret"), ("Cookie", "other=1; sid=abc")],
        json=SOURCES_BODY,
    )
    assert (bound.id, bound.token, bound.session, bound.verb) == (42, "secret", "abc", "PATCH")


async def test_wire_names_default_to_lower_camel_case_and_markers_rename() -> None:
    bound = await bind(Sources, json={"firstName": "Ada", "first_name": "wrong", "alias": "x"})
    assert bound.first_name == "Ada"
    assert bound.renamed == "x"


async def test_init_false_and_classvar_fields_are_never_bound() -> None:
    bound = await bind(Sources, json={"internal": "client", "KIND": "client", "kind": "client"})
    assert bound.internal == "server"
    assert Sources.KIND == "sources"


async def test_path_header_and_cookie_fields_never_consume_body_keys() -> None:
    bound = await bind(Sources, json={"id": 9, "X-Token": "t", "token": "t", "sid": "s", "session": "s"})
    assert (bound.id, bound.token, bound.session) == (0, "", "")


async def test_repeated_header_and_cookie_values_are_refused() -> None:
    found = await errors_of(
        Sources, headers=[("X-Token", "a"), ("X-Token", "b"), ("Cookie", "sid=1"), ("Cookie", "sid=2")]
    )
    assert ("X-Token", "header", "must not be repeated") in found
    assert ("sid", "cookie", "must not be repeated") in found


async def test_a_bad_path_value_is_reported_at_the_path_location() -> None:
    assert await errors_of(Sources, path_params={"id": "x1"}) == [("id", "path", "invalid int")]


async def test_scalars_bind_from_json_with_their_types() -> None:
    blob = base64.b64encode(b"\x00\xffhi").decode()
    bound = await bind(
        Scalars,
        json={"text": "t", "count": -3, "ratio": 2, "flag": True, "blob": blob, "maybe": 5, "note": None},
    )
    assert (bound.text, bound.count, bound.ratio, bound.flag, bound.blob) == (
        "t",
        -3,
        2.0,
        True,
        b"\x00\xffhi",
    )
    assert bound.maybe == 5
    assert bound.note is None


async def test_scalars_bind_from_form_text() -> None:
    bound = await bind(
        Scalars, form={"text": "t", "count": "7", "ratio": "0.5", "flag": "false", "maybe": "1"}
    )
    assert (bound.text, bound.count, bound.ratio, bound.flag, bound.maybe) == ("t", 7, 0.5, False, 1)


async def test_markers_inside_an_optional_annotation_still_apply() -> None:
    assert (await bind(Scalars, query="cap=3")).capped == 3
    assert (await bind(Scalars)).capped is None
    assert await errors_of(Scalars, query="cap=9") == [("cap", "query", "must be <= 5")]


async def test_absent_fields_take_zero_values_and_optionals_are_none() -> None:
    bound = await bind(Scalars)
    assert (bound.text, bound.count, bound.ratio, bound.flag, bound.blob) == ("", 0, 0.0, False, b"")
    assert bound.maybe is None and bound.note is None


async def test_bytes_bind_from_base64_in_every_source() -> None:
    encoded = base64.b64encode(b"raw bytes").decode()
    bound = await bind(Scalars, query={"qb": encoded}, headers=[("X-Blob", encoded)], form={"blob": encoded})
    assert bound.q_blob == bound.h_blob == bound.blob == b"raw bytes"
    found = await errors_of(Scalars, query={"qb": "not base64!"}, json={"blob": 12})
    assert ("qb", "query", "invalid base64") in found
    assert ("blob", "payload", "invalid base64") in found


async def test_wrong_json_types_are_reported_per_field() -> None:
    found = await errors_of(
        Scalars, json={"text": 1, "count": "1", "ratio": "x", "flag": 1, "maybe": True, "note": []}
    )
    assert found == [
        ("text", "payload", "invalid string"),
        ("count", "payload", "invalid int"),
        ("ratio", "payload", "invalid float"),
        ("flag", "payload", "invalid bool"),
        ("maybe", "payload", "invalid int"),
        ("note", "payload", "invalid string"),
    ]


async def test_a_query_list_collects_repeated_keys_and_drops_empty_values() -> None:
    bound = await bind(Lists, query="tag=a&tag=&tag=b&n=1&n=2")
    assert bound.tags == ["a", "b"]
    assert bound.nums == [1, 2]


async def test_an_absent_or_empty_query_list_is_an_empty_list_or_none_when_optional() -> None:
    assert (await bind(Lists)).tags == []
    assert (await bind(Lists, query="tag=&tag=")).tags == []
    assert (await bind(Lists)).maybe_tags is None
    assert (await bind(Lists, query="mt=&mt=")).maybe_tags is None
    assert (await bind(Lists, query="mt=&mt=a")).maybe_tags == ["a"]


async def test_brackets_and_commas_are_taken_literally() -> None:
    bound = await bind(Lists, query="tag[]=x&tag=a,b")
    assert bound.brackets == ["x"]
    assert bound.tags == ["a,b"]


async def test_one_unparsable_list_element_fails_the_request() -> None:
    assert await errors_of(Lists, query="n=1&n=two&n=3") == [("n[1]", "query", "invalid int")]


async def test_an_untagged_list_comes_from_the_body_not_the_query() -> None:
    assert (await bind(Lists, query="bodyTags=q")).body_tags == []
    assert (await bind(Lists, json={"bodyTags": ["a", "b"]})).body_tags == ["a", "b"]
    assert (await bind(Lists, form={"bodyTags": ["a", "b"]})).body_tags == ["a", "b"]


NESTED = {
    "lines": [{"sku": "a", "qty": 1}, {"sku": "b", "qty": 2}],
    "byName": {"x": {"sku": "x", "qty": 3}},
    "matrix": [[1, 2], [3]],
    "counts": {"a": 1},
    "inner": {"sku": "i", "qty": 4},
    "deep": {"k": [{"sku": "d", "qty": 5}]},
    "head": {"sku": "h", "qty": 6},
}


async def test_nested_dataclasses_lists_and_maps_bind_from_json_at_any_depth() -> None:
    bound = await bind(Nested, json=NESTED)
    assert [line.sku for line in bound.lines] == ["a", "b"]
    assert bound.by_name["x"].qty == 3
    assert bound.matrix == [[1, 2], [3]]
    assert bound.counts == {"a": 1}
    assert bound.inner is not None and bound.inner.sku == "i"
    assert bound.deep["k"][0].qty == 5
    assert bound.head.qty == 6


async def test_nested_failures_name_dotted_wire_paths() -> None:
    bad: dict[str, Any] = {
        **NESTED,
        "lines": [{"sku": "a", "qty": 1}, {"sku": "b", "qty": 1}, {"sku": "", "qty": 0}],
        "byName": {"x": {"sku": "x", "qty": "3"}},
        "matrix": [[1, "2"]],
        "counts": {"a": 1.5},
        "deep": {"k": [{"qty": 1}]},
        "head": [],
    }
    assert await errors_of(Nested, json=bad) == [
        ("lines[2].sku", "payload", "required"),
        ("lines[2].qty", "payload", "must be >= 1"),
        ("byName.x.qty", "payload", "invalid int"),
        ("matrix[0][1]", "payload", "invalid int"),
        ("counts.a", "payload", "invalid int"),
        ("deep.k[0].sku", "payload", "required"),
        ("head", "payload", "invalid object"),
    ]


async def test_an_absent_nested_dataclass_is_bound_from_nothing_and_an_optional_one_is_none() -> None:
    found = await errors_of(Nested, json={})
    assert found == [("head.sku", "payload", "required")]
    bound = await bind(Nested, json={"head": {"sku": "h"}})
    assert bound.inner is None and bound.lines == [] and bound.by_name == {}


async def test_form_bodies_carry_flat_keys_only() -> None:
    found = await errors_of(Nested, form={"head.sku": "x", "head": "x"})
    assert found == [("head.sku", "payload", "required")]


async def test_a_multipart_file_binds_name_type_size_and_content() -> None:
    bound = await bind(
        Upload,
        files={"doc": ("notes.txt", b"hello file", "text/plain")},
        form={"title": "T", "raw": base64.b64encode(b"r").decode()},
    )
    assert bound.doc == fw.File("notes.txt", "text/plain", 10, b"hello file")
    assert (bound.title, bound.raw) == ("T", b"r")


async def test_a_file_is_none_when_absent_or_not_multipart() -> None:
    assert (await bind(Upload, form={"title": "T"})).doc is None
    assert (await bind(Upload, json={"doc": "x"})).doc is None


async def test_a_rest_map_holds_every_body_key_no_sibling_consumed() -> None:
    bound = await bind(Rest, json={"name": "n", "n": 2, "extra": 1, "other": {"a": [1]}})
    assert (bound.name, bound.count) == ("n", 2)
    assert bound.extra == {"extra": 1, "other": {"a": [1]}}


async def test_a_form_rest_map_holds_strings_and_skips_files() -> None:
    bound = await bind(Rest, files={"upload": ("f", b"x", "text/plain")}, form={"name": "n", "k": "v"})
    assert bound.extra == {"k": "v"}
    bound = await bind(Rest, form={"name": "n", "k": "1"})
    assert bound.extra == {"k": "1"}


async def test_a_rest_map_is_empty_not_none_without_remaining_keys() -> None:
    assert (await bind(Rest, json={"name": "n"})).extra == {}
    assert (await bind(Rest)).extra == {}


async def test_a_raw_json_rest_map_keeps_values_as_json_text() -> None:
    bound = await bind(RawRest, json={"name": "n", "a": {"b": [1, True]}, "s": "x"})
    assert bound.extra == {"a": '{"b":[1,true]}', "s": '"x"'}
    assert all(isinstance(value, fw.RawJSON) for value in bound.extra.values())


async def test_a_json_body_that_is_not_an_object_is_a_bind_error() -> None:
    for body in (b"[1,2]", b'"text"', b"3", b"null"):
        assert await errors_of(Rest, body=body, content_type="application/json") == [
            ("body", "payload", "invalid JSON body")
        ]


async def test_a_json_suffix_media_type_is_json() -> None:
    bound = await bind(Rest, body=b'{"name":"n"}', content_type="application/merge-patch+json; charset=utf-8")
    assert bound.name == "n"


async def test_a_body_in_an_unsupported_media_type_is_415() -> None:
    with pytest.raises(fw.Problem) as caught:
        await bind(Rest, body=b"name=n", content_type="text/plain")
    assert caught.value.status == 415
    with pytest.raises(fw.Problem) as caught:
        await bind(Rest, body=b"\xa1dname", content_type="application/cbor")
    assert caught.value.status == 415


async def test_a_type_without_body_fields_ignores_the_body() -> None:
    from .bindapp.models import EnumOnly

    bound = await bind(EnumOnly, query="colour=red", body=b"garbage", content_type="text/plain")
    assert bound.colour == "red"


async def test_one_request_can_be_bound_into_several_types() -> None:
    from .support import make_request

    request = make_request(files={"doc": ("a.txt", b"abc", "text/plain")}, form={"title": "T", "name": "n"})
    upload = await fw.parse(Upload, request)
    rest = await fw.parse(Rest, request)
    assert upload.doc is not None and upload.doc.content == b"abc"
    assert rest.name == "n" and rest.extra == {"title": "T"}
