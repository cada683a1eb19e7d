"""The body limit as the App applies it: which requests read through the counting receive."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from fw.binding.limits import SCOPE_KEY, BodyLimits, BodyTimedOut, BodyTooLarge, guarded_receive

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


def _dripping(parts: list[bytes], pause: float, then_wait: float = 0.0) -> Any:
    """A server ``receive`` delivering ``parts`` ``pause`` seconds apart, then a disconnect."""
    queue = list(parts)

    async def receive() -> dict[str, Any]:
        if queue:
            await asyncio.sleep(pause)
            part = queue.pop(0)
            return {"type": "http.request", "body": part, "more_body": bool(queue)}
        await asyncio.sleep(then_wait)
        return {"type": "http.disconnect"}

    return receive


async def test_a_body_still_arriving_after_the_body_timeout_is_cut_with_408_and_a_closed_connection() -> None:
    limits = BodyLimits(request=1000, cbor=10, timeout=0.2)
    guarded = guarded_receive(_scope("POST", []), _dripping([b"a"] * 10, 0.05), limits)
    assert guarded is not None
    with pytest.raises(BodyTimedOut) as cut:
        for _ in range(10):
            await guarded()
    assert cut.value.status == 408
    assert cut.value.headers == {"Connection": "close"}


async def test_the_body_timeout_bounds_the_whole_body_not_each_part() -> None:
    limits = BodyLimits(request=1000, cbor=10, timeout=0.3)
    guarded = guarded_receive(_scope("POST", []), _dripping([b"a"] * 5, 0.1), limits)
    assert guarded is not None
    received = 0
    with pytest.raises(BodyTimedOut):
        for _ in range(5):  # every part comes within 0.3 s of the one before, the whole takes 0.5 s
            received += len((await guarded())["body"])
    assert received < 5


async def test_a_body_that_arrives_in_time_is_read_whole() -> None:
    limits = BodyLimits(request=1000, cbor=10, timeout=1.0)
    guarded = guarded_receive(_scope("POST", []), _dripping([b"ab", b"cd"], 0.01), limits)
    assert guarded is not None
    assert [(await guarded())["body"], (await guarded())["body"]] == [b"ab", b"cd"]


async def test_waiting_for_the_disconnect_after_the_whole_body_is_never_timed_out() -> None:
    """A streaming answer listens on ``receive`` for the disconnect long after the body ended."""
    limits = BodyLimits(request=1000, cbor=10, timeout=0.1)
    guarded = guarded_receive(_scope("POST", []), _dripping([b"ab"], 0.0, then_wait=0.3), limits)
    assert guarded is not None
    assert (await guarded())["body"] == b"ab"
    assert (await guarded())["type"] == "http.disconnect"


async def test_a_body_timeout_of_zero_waits_as_long_as_the_body_takes() -> None:
    limits = BodyLimits(request=1000, cbor=10, timeout=0.0)
    guarded = guarded_receive(_scope("POST", []), _dripping([b"a", b"b"], 0.15), limits)
    assert guarded is not None
    assert (await guarded())["body"] + (await guarded())["body"] == b"ab"
