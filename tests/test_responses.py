"""fw.JSONResponse renders what Starlette's JSONResponse renders, byte for byte, error for error."""

from __future__ import annotations

import datetime
import enum
import json
import math
from collections import OrderedDict
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from starlette import responses
from starlette.background import BackgroundTask

import fw
from fw import responses as fw_responses
from fw.problems import PROBLEM_MEDIA_TYPE, ProblemResponse
from fw.responses import MAX_PLAIN_DEPTH, JSONResponse, render_json


def starlette_outcome(content: Any) -> tuple[str, Any]:
    try:
        return "body", responses.JSONResponse(content).body
    except Exception as error:  # the error is what is compared
        return type(error).__name__, str(error)


def fw_outcome(content: Any) -> tuple[str, Any]:
    try:
        return "body", JSONResponse(content).body
    except Exception as error:  # the error is what is compared
        return type(error).__name__, str(error)


scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats()
    | st.floats(min_value=-1e17, max_value=1e17)
    | st.floats(min_value=-1e-3, max_value=1e-3)
    | st.text()
    | st.text(alphabet=st.characters(codec="utf-8") | st.sampled_from('\x00\x1f\x7f"\\\u2028\ud800'))
)
keys = st.text() | st.integers() | st.floats() | st.booleans() | st.none()
content = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=5)
        | st.lists(inner, max_size=5).map(tuple)
        | st.dictionaries(st.text(max_size=8), inner, max_size=5)
        | st.dictionaries(keys, inner, max_size=3)
    ),
    max_leaves=30,
)


class Colour(enum.Enum):
    RED = "red"


class Size(enum.IntEnum):
    SMALL = 1


class Name(str):
    pass


class Count(int):
    pass


class Ratio(float):
    pass


def cyclic() -> list[Any]:
    loop: list[Any] = [1]
    loop.append({"again": loop})
    return loop


def nested(depth: int) -> Any:
    value: Any = "leaf"
    for _ in range(depth):
        value = {"child": [value]}
    return value


class ProblemJSON(JSONResponse):
    media_type = "application/problem+json"


class PlainText(JSONResponse):
    media_type = "text/plain"


class TestTheBodyIsStarlettes:
    @settings(max_examples=1500, deadline=None)
    @given(content)
    def test_generated_content_renders_the_same_bytes_or_raises_the_same_error(self, value: Any) -> None:
        assert fw_outcome(value) == starlette_outcome(value)

    @pytest.mark.parametrize(
        "value",
        [
            {"sub": "anonymous"},
            [],
            {},
            "",
            0,
            -0.0,
            0.0001,
            9999999999999998.0,
            1e16,
            1e-5,
            5e-324,
            1.7976931348623157e308,
            2**63 - 1,
            -(2**63),
            2**64 - 1,
            2**64,
            -(2**63) - 1,
            10**100,
            math.nan,
            math.inf,
            [-math.inf],
            {"text": 'é ✓ 𝄞 \u2028 \x00 \x1f \x7f " \\ / \n\t'},
            "\ud800",
            {"a": {"b": ["\udfff"]}},
            (1, "two", (3.5, None)),
            {1: "int key"},
            {2.5: "float key"},
            {True: "bool key"},
            {None: "none key"},
            {("tuple", "key"): 1},
            Colour.RED,
            {"size": Size.SMALL},
            [Name("a str subclass")],
            Count(7),
            Ratio(0.5),
            OrderedDict(a=1),
            {"when": datetime.datetime(2026, 11, 26, tzinfo=datetime.UTC)},
            {1, 2},
            b"bytes",
            object(),
            cyclic(),
            nested(MAX_PLAIN_DEPTH - 1),
            nested(MAX_PLAIN_DEPTH + 5),
            nested(2000),
        ],
        ids=lambda value: type(value).__name__,
    )
    def test_every_edge_renders_the_same_bytes_or_raises_the_same_error(self, value: Any) -> None:
        assert fw_outcome(value) == starlette_outcome(value)

    def test_plain_content_is_rendered_without_the_standard_library_encoder(
        self, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        def refuse(*args: Any, **kwargs: Any) -> str:
            raise AssertionError("json.dumps was called for plain content")

        value = {"sub": "user-1", "n": 3, "ratio": 0.25, "ok": True, "none": None, "list": [1, "a", (2,)]}
        expected = json.dumps(value, separators=(",", ":")).encode()
        monkeypatch.setattr(fw_responses.json, "dumps", refuse)
        assert render_json(value) == expected

    def test_other_content_is_rendered_by_the_standard_library_encoder(
        self, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        calls: list[Any] = []
        dumps = json.dumps

        def counted(value: Any, **kwargs: Any) -> str:
            calls.append(value)
            return dumps(value, **kwargs)

        monkeypatch.setattr(fw_responses.json, "dumps", counted)
        assert render_json({"big": 1e16}) == b'{"big":1e+16}'
        assert calls == [{"big": 1e16}]


class TestTheHeadersAreStarlettes:
    @pytest.mark.parametrize("status", [100, 200, 201, 204, 304, 404, 500])
    @pytest.mark.parametrize(
        "headers",
        [None, {}, {"X-Request": "1"}, {"Content-Type": "text/json"}, {"content-length": "2"}],
        ids=repr,
    )
    @pytest.mark.parametrize(
        "media_type", [None, "application/json", "application/problem+json", "text/json"]
    )
    def test_status_headers_and_media_type_give_starlettes_header_list(
        self, status: int, headers: dict[str, str] | None, media_type: str | None
    ) -> None:
        ours = JSONResponse({"a": 1}, status_code=status, headers=headers, media_type=media_type)
        theirs = responses.JSONResponse({"a": 1}, status_code=status, headers=headers, media_type=media_type)
        assert ours.raw_headers == theirs.raw_headers
        assert ours.media_type == theirs.media_type
        assert (ours.status_code, ours.body, ours.background) == (
            theirs.status_code,
            theirs.body,
            theirs.background,
        )

    @pytest.mark.parametrize("status", [100, 101, 199, 200, 201, 204, 205, 299, 304, 400, 404, 500, 599])
    @pytest.mark.parametrize("background", [None, BackgroundTask(print)], ids=["no task", "task"])
    @pytest.mark.parametrize("cls", [JSONResponse, ProblemJSON, PlainText], ids=lambda cls: cls.__name__)
    @pytest.mark.parametrize(
        ("headers", "media_type"),
        [(None, None), ({}, None), ({"X-Request": "1"}, None), (None, "application/json"), (None, "text/x")],
        ids=repr,
    )
    def test_every_attribute_is_what_starlettes_constructor_leaves(
        self,
        status: int,
        background: BackgroundTask | None,
        cls: type[JSONResponse],
        headers: dict[str, str] | None,
        media_type: str | None,
    ) -> None:
        """fw's one-step construction against Starlette's own ``__init__`` run on the same class,
        whatever Starlette is installed: a new attribute or header rule there fails here."""
        ours = cls({"a": [1]}, status, headers, media_type, background)
        theirs = cls.__new__(cls)
        responses.JSONResponse.__init__(theirs, {"a": [1]}, status, headers, media_type, background)
        assert vars(ours) == vars(theirs)
        assert ours.headers.items() == theirs.headers.items()

    @pytest.mark.parametrize("status", [100, 199, 200, 204, 304, 400, 401, 404, 503, 599])
    @pytest.mark.parametrize(
        "headers",
        [None, {}, {"Retry-After": "5"}, {"Content-Type": "text/x"}, {"content-length": "2"}],
        ids=repr,
    )
    def test_a_problem_response_is_what_starlettes_constructor_leaves_and_sends_as_before(
        self, status: int, headers: dict[str, str] | None
    ) -> None:
        body = b'{"status":400,"code":"validation_failed"}'
        ours = ProblemResponse(body, status, headers)
        theirs = ProblemResponse.__new__(ProblemResponse)
        responses.Response.__init__(theirs, body, status, headers)
        assert vars(ours) == vars(theirs)
        # The header list a problem was answered with before it had a class of its own.
        before = responses.Response(body, status, headers, media_type=PROBLEM_MEDIA_TYPE)
        assert (ours.raw_headers, ours.media_type) == (before.raw_headers, before.media_type)

    def test_a_subclass_media_type_and_renderer_are_honoured(self) -> None:
        class Pretty(JSONResponse):
            media_type = "application/vnd.example+json"

            def render(self, content: Any) -> bytes:
                return json.dumps(content, indent=2).encode()

        response = Pretty({"a": 1})
        assert response.body == b'{\n  "a": 1\n}'
        assert response.raw_headers == [
            (b"content-length", str(len(response.body)).encode()),
            (b"content-type", b"application/vnd.example+json"),
        ]

    def test_headers_stay_editable_per_response(self) -> None:
        first, second = JSONResponse({}), JSONResponse({})
        first.headers["X-Only-First"] = "1"
        first.set_cookie("c", "v")
        assert "x-only-first" not in second.headers
        assert second.raw_headers == responses.JSONResponse({}).raw_headers


class TestThePublicName:
    def test_fw_json_response_is_a_starlette_json_response(self) -> None:
        assert fw.JSONResponse is JSONResponse
        assert issubclass(fw.JSONResponse, responses.JSONResponse)

    async def test_a_response_sends_what_starlettes_sends(self) -> None:
        sent: dict[str, list[Any]] = {"fw": [], "starlette": []}

        async def receive() -> dict[str, Any]:
            return {"type": "http.request", "body": b"", "more_body": False}

        scope = {"type": "http", "method": "GET", "path": "/", "headers": []}
        await JSONResponse({"a": [1, 2]}, status_code=201)(scope, receive, _collect(sent["fw"]))
        await responses.JSONResponse({"a": [1, 2]}, status_code=201)(
            scope, receive, _collect(sent["starlette"])
        )
        assert sent["fw"] == sent["starlette"]


def _collect(into: list[Any]) -> Any:
    async def send(message: Any) -> None:
        into.append(message)

    return send
