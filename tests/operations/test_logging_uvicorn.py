"""A real uvicorn serving an fw App with fw's logging, as ``fw run`` starts it: every line on
standard error is one JSON object (uvicorn's own included), and the authorization code in a
callback's query reaches no line, whether fw's access log or uvicorn's access line is on."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import httpx2
import pytest
from local_servers import free_port

SERVER = textwrap.dedent(
    """
    import sys

    import uvicorn

    import fw
    from fw.operations.accesslog import AccessLog
    from fw.operations.logsetup import configure_logging
    from fw.operations.observer import build_observer

    port, fw_access = int(sys.argv[1]), sys.argv[2] == "on"
    app = fw.App()


    @app.route("GET /auth/callback")
    async def callback(request: fw.Request) -> fw.Response:
        return fw.JSONResponse({"ok": True})


    options = configure_logging(access_log=fw_access)
    served = build_observer(app, [AccessLog()] if fw_access else [])
    uvicorn.run(served, host="127.0.0.1", port=port, log_level="info", lifespan="on", **options)
    """
)
CODE = "c0de-Th4t-Must-N3ver-Be-L0gged"
STATE = "st4te-Th4t-Must-N3ver-Be-L0gged"


def serve_once(tmp_path: Path, fw_access: str) -> tuple[list[dict[str, Any]], str]:
    """Start the server, make one callback request, stop it; its stderr lines parsed, and all of
    its output as text."""
    script = tmp_path / "server.py"
    script.write_text(SERVER)
    port = free_port()
    env = {
        key: value for key, value in os.environ.items() if not key.startswith(("APP_", "AUTH_", "SERVER_"))
    }
    process = subprocess.Popen(
        [sys.executable, str(script), str(port), fw_access],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                answer = httpx2.get(
                    f"http://127.0.0.1:{port}/auth/callback",
                    params={"code": CODE, "state": STATE},
                    headers={"X-Request-Id": "from-the-proxy"},
                    timeout=2,
                )
                break
            except httpx2.TransportError:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise
                time.sleep(0.05)
        assert answer.status_code == 200
        assert answer.headers["x-request-id"] == "from-the-proxy"
    finally:
        process.terminate()
        out, err = process.communicate(timeout=30)
    return [json.loads(line) for line in err.splitlines()], out + err


@pytest.mark.timeout(90)
def test_with_fws_access_log_on_the_only_access_line_is_fws_without_the_query(tmp_path: Path) -> None:
    lines, everything = serve_once(tmp_path, "on")
    assert CODE not in everything and STATE not in everything
    loggers = [line["logger"] for line in lines]
    assert "uvicorn.access" not in loggers
    assert "uvicorn.error" in loggers  # uvicorn's own lines, as JSON like every other
    [access] = [line for line in lines if line["logger"] == "fw.access"]
    assert (access["path"], access["route"], access["status"]) == ("/auth/callback", "/auth/callback", 200)
    assert access["request_id"] == "from-the-proxy"
    assert all({"time", "level", "logger"} <= set(line) for line in lines)


@pytest.mark.timeout(90)
def test_with_fws_access_log_off_uvicorns_access_line_keeps_the_names_but_not_the_values(
    tmp_path: Path,
) -> None:
    lines, everything = serve_once(tmp_path, "off")
    assert CODE not in everything and STATE not in everything
    [access] = [line for line in lines if line["logger"] == "uvicorn.access"]
    assert "GET /auth/callback?code=&state= HTTP/1.1" in access["message"]
    assert "fw.access" not in [line["logger"] for line in lines]
