"""Binding reads the body through Starlette's public ``request.body()``, so a handler may read the
raw bytes before or after binding, and bind several types from one request."""

from __future__ import annotations

import json

import pytest

import fw

from .bindapp.models import Rest
from .support import make_request

RAW = json.dumps({"name": "a", "n": 2, "more": True}).encode()


@pytest.mark.asyncio
async def test_a_handler_reads_the_raw_body_after_binding_it() -> None:
    request = make_request(body=RAW, content_type="application/json")
    bound = await fw.parse(Rest, request)
    assert (bound.name, bound.count, bound.extra) == ("a", 2, {"more": True})
    assert await request.body() == RAW


@pytest.mark.asyncio
async def test_a_body_the_handler_read_first_still_binds() -> None:
    request = make_request(body=RAW, content_type="application/json")
    assert await request.body() == RAW
    assert (await fw.parse(Rest, request)).count == 2


@pytest.mark.asyncio
async def test_one_form_body_binds_twice_and_stays_readable() -> None:
    request = make_request(form={"name": "b", "n": "3"})
    first, second = await fw.parse(Rest, request), await fw.parse(Rest, request)
    assert first == second and first.count == 3
    assert await request.body() == b"name=b&n=3"
