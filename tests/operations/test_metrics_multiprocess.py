"""Two uvicorn workers in prometheus-client's multiprocess mode: a scrape of either answers the
sum of both."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx2
import pytest
from local_servers import free_port

from .observability_support import samples, value

pytestmark = pytest.mark.timeout(120)

TESTS = Path(__file__).resolve().parents[1]


def _hello(url: str, name: str) -> int | None:
    """One request on a connection of its own (so either worker may take it); the worker's PID."""
    try:
        answer = httpx2.get(f"{url}/hello/{name}", timeout=5)
    except httpx2.HTTPError:
        return None
    return int(answer.json()["pid"]) if answer.status_code == 200 else None


@pytest.mark.parametrize(
    "app",
    [
        pytest.param("app", id="the metrics hook behind the request observer"),
        pytest.param("fw_app", id="an fw App configured from the environment"),
    ],
)
def test_two_uvicorn_workers_in_multiprocess_mode_are_scraped_as_one_sum(tmp_path: Path, app: str) -> None:
    directory = tmp_path / "prometheus"
    directory.mkdir()
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    env = {
        **os.environ,
        "PROMETHEUS_MULTIPROC_DIR": str(directory),
        "PYTHONPATH": str(TESTS),
        "OBSERVABILITY_METRICS_ENABLED": "true",
        "AUTH_ENABLED": "false",
    }
    command = [sys.executable, "-m", "uvicorn", f"operations.multiproc_app:{app}", "--workers", "2"]
    command += ["--host", "127.0.0.1", "--port", str(port), "--log-level", "warning", "--no-access-log"]
    server = subprocess.Popen(command, cwd=tmp_path, env=env)
    try:
        served = 0
        deadline = time.monotonic() + 60
        while _hello(url, "ready") is None:
            assert server.poll() is None, "uvicorn exited"
            assert time.monotonic() < deadline, "uvicorn did not answer within 60 s"
            time.sleep(0.1)
        served += 1
        pids: set[int] = set()
        with ThreadPoolExecutor(max_workers=8) as pool:
            while len(pids) < 2 and time.monotonic() < deadline:
                answered = [pid for pid in pool.map(lambda i: _hello(url, str(i)), range(40)) if pid]
                served += len(answered)
                pids.update(answered)
        assert len(pids) == 2, "both workers served requests"
        scrapes = [samples(httpx2.get(f"{url}/metrics", timeout=10).text) for _ in range(6)]
    finally:
        server.terminate()
        server.wait(timeout=30)
    route = "/hello/{name}"
    counted = [value(s, "fw_http_requests_total", method="GET", route=route, status="200") for s in scrapes]
    durations = [
        value(s, "fw_http_request_duration_seconds_count", method="GET", route=route) for s in scrapes
    ]
    assert counted == [served] * len(scrapes)
    assert durations == [served] * len(scrapes)
    assert len(list(directory.glob("counter_*.db"))) == 2  # one file of values per worker
