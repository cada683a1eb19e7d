"""The test providers stop at once: a suite starts and stops one per test, so a stop that waited
on uvicorn's 0.1 s ticks (about 0.2 s each) was half of a small suite's time."""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import socket
import statistics
import time
from collections.abc import Callable
from typing import Any

import httpx2
import pytest

import fw.testing
from fw.background import BackgroundServer
from fw.testing import LocalIssuer

#: Well under uvicorn's own tick (0.1 s), with room for a loaded machine; measured: about 1 ms.
FAST = 0.05

Provider = Callable[[], contextlib.AbstractContextManager[Any]]
PROVIDERS: dict[str, Provider] = {
    "identity_provider": fw.testing.identity_provider,
    "oauth_provider": fw.testing.oauth_provider,
    "LocalIssuer": LocalIssuer,
}


def _origin(running: Any) -> str:
    return str(running.url if isinstance(running, LocalIssuer) else running.origin)


def _stop_time(
    start: Provider, before_stop: Callable[[str], None] = lambda origin: None
) -> tuple[float, str]:
    """Seconds ``__exit__`` took, median of three runs, and the last run's origin."""
    times = []
    origin = ""
    for _ in range(3):
        manager = start()
        origin = _origin(manager.__enter__())
        before_stop(origin)
        began = time.perf_counter()
        manager.__exit__(None, None, None)
        times.append(time.perf_counter() - began)
    return statistics.median(times), origin


@pytest.mark.parametrize("name", PROVIDERS)
def test_a_test_provider_stops_in_well_under_a_tenth_of_a_second(name: str) -> None:
    took, _ = _stop_time(PROVIDERS[name])
    assert took < FAST, f"{name} took {took * 1000:.0f} ms to stop"


@pytest.mark.parametrize("name", PROVIDERS)
def test_a_provider_with_an_idle_keep_alive_connection_stops_at_once_and_frees_its_port(name: str) -> None:
    with httpx2.Client() as client:  # keeps its connection open after the answer
        took, origin = _stop_time(
            PROVIDERS[name], lambda origin: client.get(origin + "/.well-known/openid-configuration")
        )
    assert took < FAST, f"{name} took {took * 1000:.0f} ms to stop"
    url = httpx2.URL(origin)
    with (
        pytest.raises(ConnectionRefusedError),
        socket.create_connection((url.host, url.port or 80), timeout=2),
    ):
        pass


async def _slow(scope: Any, receive: Any, send: Any) -> None:
    await asyncio.sleep(0.3)
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-length", b"4")]})
    await send({"type": "http.response.body", "body": b"done"})


def test_a_request_in_flight_when_the_server_stops_still_gets_its_answer() -> None:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    server = BackgroundServer(_slow, sock, what="a slow app", name="fw-test-slow")
    server.start()
    port = sock.getsockname()[1]
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        answer = pool.submit(httpx2.get, f"http://127.0.0.1:{port}/", timeout=5)
        time.sleep(0.1)  # the request has reached the app, which answers 0.2 s from now
        began = time.perf_counter()
        server.stop()
        took = time.perf_counter() - began
        response = answer.result(timeout=5)
    assert response.status_code == 200 and response.text == "done"
    assert 0.1 < took < 1.0  # it waited for the answer, and no longer
