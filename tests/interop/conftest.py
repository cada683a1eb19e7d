"""Start the certified OpenID provider (``oidc-provider``, see provider.mjs) on loopback for a test.

``start_provider(config)`` runs ``node provider.mjs <json>``, waits until its discovery document
answers, and stops it when the test ends. Tests skip visibly when node or the npm packages are
missing (``npm ci --prefix tests/interop`` installs them; ``bash .ci/run`` does it).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

HERE = Path(__file__).parent
SCRIPT = HERE / "provider.mjs"


@dataclass
class RunningProvider:
    issuer: str
    port: int
    process: subprocess.Popen[str]

    def client_credentials(self, client_id: str, secret: str, **params: str) -> httpx.Response:
        """POST /token with the client_credentials grant (client_secret_basic)."""
        return httpx.post(
            f"{self.issuer}/token",
            data={"grant_type": "client_credentials", **params},
            auth=(client_id, secret),
            timeout=10,
        )


def _skip_reason() -> str | None:
    if shutil.which("node") is None:
        return "node is not installed (the interoperability tests run oidc-provider under node 20+)"
    if not (HERE / "node_modules" / "oidc-provider").is_dir():
        return (
            "tests/interop/node_modules is missing: run `npm ci --prefix tests/interop` (bash .ci/run does)"
        )
    return None


@pytest.fixture
def start_provider() -> Iterator[Callable[[dict[str, Any]], RunningProvider]]:
    reason = _skip_reason()
    if reason:
        pytest.skip(reason)
    started: list[RunningProvider] = []

    def start(config: dict[str, Any]) -> RunningProvider:
        process = subprocess.Popen(
            ["node", str(SCRIPT), json.dumps(config)],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            cwd=HERE,
        )
        assert process.stdout is not None
        line = process.stdout.readline()
        if not line.strip():
            process.kill()
            raise RuntimeError(
                "oidc-provider did not start (run it by hand: node tests/interop/provider.mjs)"
            )
        announced = json.loads(line)
        provider = RunningProvider(announced["issuer"], announced["port"], process)
        started.append(provider)
        deadline = time.monotonic() + 15
        while True:
            try:
                if (
                    httpx.get(f"{provider.issuer}/.well-known/openid-configuration", timeout=2).status_code
                    == 200
                ):
                    return provider
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError("oidc-provider did not answer its discovery document")
            time.sleep(0.05)

    yield start
    for provider in started:
        provider.process.terminate()
        try:
            provider.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            provider.process.kill()
