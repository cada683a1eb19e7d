"""The body limit as the App applies it: which requests read through the counting receive."""

from __future__ import annotations

from typing import Any

import pytest

from fw.binding.limits import SCOPE_KEY, BodyLimits, BodyTooLarge, guarded_receive

LIMITS = BodyLimits(request=10, cbor=10)


async def _server_receive() -> dict[str, Any]:
    return {"type": "http.request", "body": b"x" * 11, "more_body": False}


def _scope(method: str, headers: list[tuple[bytes, bytes]], version: str = "1.1") -> dict[str, Any]:
    return {"type": "http", "method": method, "http_version": version, "headers": headers}


@pytest.mark.parametrize("method", ["GET", "HEAD"])
def test_a_get_or_head_declaring_no_body_keeps_the_servers_receive(method: str) -> None:
    scope = _scope(method, [(b"host", b"x")])
    assert guarded_receive(scope, _server_receive, LIMITS) is _server_receive
    assert scope[SCOPE_KEY] is LIMITS


@pytest.mark.parametrize(
    ("method", "headers", "version"),
    [
        ("GET", [(b"content-length", b"5")], "1.1"),
        ("GET", [(b"transfer-encoding", b"chunked")], "1.1"),
        ("GET", [], "2"),  # HTTP/2 frames a body without either header
        ("POST", [], "1.1"),  # kept counted even if a server passed no framing header on
        ("DELETE", [], "1.1"),
    ],
)
async def test_every_other_request_is_counted_and_cut_at_the_limit(
    method: str, headers: list[tuple[bytes, bytes]], version: str
) -> None:
    guarded = guarded_receive(_scope(method, headers, version), _server_receive, LIMITS)
    assert guarded is not None and guarded is not _server_receive
    with pytest.raises(BodyTooLarge):
        await guarded()


def test_a_declared_length_over_the_limit_is_refused_before_anything_is_read() -> None:
    assert guarded_receive(_scope("POST", [(b"content-length", b"11")]), _server_receive, LIMITS) is None


def test_the_first_content_length_counts_even_after_a_transfer_encoding() -> None:
    headers = [(b"transfer-encoding", b"chunked"), (b"content-length", b"11"), (b"content-length", b"1")]
    assert guarded_receive(_scope("POST", headers), _server_receive, LIMITS) is None
