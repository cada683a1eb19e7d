"""Body limits: the outer request limit, the multipart limit and the CBOR limit answer 413."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx2
import pytest
from starlette.types import Message

import fw
import fw.testing
from fw.binding import limits
from fw.binding.limits import BodyLimits

from .bindapp.handlers import app
from .bindapp.models import Upload
from .support import bind

MiB = 1024 * 1024


@pytest.fixture(autouse=True)
def restore_multipart_limit() -> Iterator[None]:
    before = limits.max_multipart_body_bytes()
    yield
    limits.set_max_multipart_body_bytes(before)


async def call(
    headers: list[tuple[bytes, bytes]], chunks: Iterator[bytes], path: str = "/rest"
) -> tuple[int, dict[str, Any], int]:
    """Drive the App over ASGI; returns status, JSON body and how many chunks it pulled."""
    pulled = 0
    sent: list[Message] = []

    async def receive() -> Message:
        nonlocal pulled
        chunk = next(chunks, None)
        if chunk is None:
            return {"type": "http.request", "body": b"", "more_body": False}
        pulled += 1
        return {"type": "http.request", "body": chunk, "more_body": True}

    async def send(message: Message) -> None:
        sent.append(message)

    scope = {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "POST", "scheme": "http",
        "path": path, "raw_path": path.encode(), "query_string": b"", "headers": headers,
        "client": ("127.0.0.1", 1), "server": ("127.0.0.1", 80), "root_path": "",
    }  # fmt: skip
    await app(scope, receive, send)
    import json

    status = next(m["status"] for m in sent if m["type"] == "http.response.start")
    payload = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    return status, json.loads(payload), pulled


async def test_a_declared_length_over_the_limit_is_refused_before_reading() -> None:
    headers = [(b"content-type", b"application/json"), (b"content-length", str(11 * MiB).encode())]
    status, document, pulled = await call(headers, iter([b"{}"] * 10))
    assert status == 413 and pulled == 0
    assert document["code"] == "request_too_large"


async def test_a_chunked_body_is_cut_at_the_limit_and_never_buffered_whole() -> None:
    chunk = b" " * (64 * 1024)
    total_chunks = 16 * 1024  # 1 GiB if it were all read
    status, _, pulled = await call([(b"content-type", b"application/json")], iter([chunk] * total_chunks))
    assert status == 413
    assert pulled <= 10 * MiB // len(chunk) + 1


async def test_a_body_under_the_limit_binds() -> None:
    status, document, _ = await call([(b"content-type", b"application/json")], iter([b'{"name":', b'"ok"}']))
    assert status == 200 and document["name"] == "ok"


def multipart(size: int) -> tuple[bytes, str]:
    request = httpx2.Request(
        "POST", "http://t/", files={"doc": ("f.bin", b"x" * size, "application/octet-stream")}
    )
    return request.read(), request.headers["content-type"]


async def test_a_multipart_body_over_one_mebibyte_is_refused_by_default() -> None:
    content, kind = multipart(MiB + 10)
    with pytest.raises(fw.Problem) as caught:
        await bind(Upload, body=content, content_type=kind)
    assert caught.value.status == 413


async def test_the_multipart_limit_can_be_raised() -> None:
    fw.set_max_multipart_body_bytes(3 * MiB)
    content, kind = multipart(2 * MiB)
    bound = await bind(Upload, body=content, content_type=kind)
    assert bound.doc is not None and bound.doc.size == 2 * MiB


async def test_raising_the_multipart_limit_beyond_the_request_limit_has_no_effect() -> None:
    fw.set_max_multipart_body_bytes(50 * MiB)
    content, kind = multipart(2000)
    with pytest.raises(fw.Problem) as caught:
        await bind(Upload, body=content, content_type=kind, limits=BodyLimits(request=1000))
    assert caught.value.status == 413


async def test_a_streamed_multipart_body_without_length_is_counted() -> None:
    fw.set_max_multipart_body_bytes(1000)
    content, kind = multipart(5000)
    pieces = iter([content[i : i + 512] for i in range(0, len(content), 512)])
    status, document, pulled = await call([(b"content-type", kind.encode())], pieces, path="/upload")
    assert status == 413 and document["status"] == 413
    assert pulled <= 3


@pytest.mark.parametrize("bad", [0, -1, 1.5, True, "10"])
def test_the_multipart_limit_must_be_a_positive_integer(bad: Any) -> None:
    with pytest.raises(ValueError, match="positive number of bytes"):
        fw.set_max_multipart_body_bytes(bad)


def test_the_configured_request_limit_is_read_once_when_the_app_is_built() -> None:
    from starlette.testclient import TestClient

    from .bindapp.handlers import rest

    with fw.testing.configured(toml="[server]\nmax_request_body = 2000\n"):
        limited = fw.App()
        limited.add_route("POST /rest", rest)
        with TestClient(limited) as client:
            small = client.post("/rest", json={"note": "x" * 100})
            with fw.testing.configured(toml="[server]\nmax_request_body = 99999999\n"):
                large = client.post("/rest", json={"note": "x" * 3000})
    assert small.status_code != 413
    assert large.status_code == 413 and large.json()["detail"] == "request body exceeds 2000 bytes"
