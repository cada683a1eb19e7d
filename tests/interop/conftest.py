"""Start the certified OpenID provider (``oidc-provider``, see provider.mjs) on loopback for a test.

``start_provider(config)`` runs ``node provider.mjs <json>``, waits until its discovery document
answers, and stops it when the test ends. Tests skip visibly when node or the npm packages are
missing (``npm ci --prefix tests/interop`` installs them; ``bash .ci/run`` does it).
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import secrets
import select
import shutil
import subprocess
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx2
import pytest

HERE = Path(__file__).parent
SCRIPT = HERE / "provider.mjs"
#: The machine client the bearer tests take tokens for, and its secret.
WORKER = ("orders-worker", "interop-secret-1")


def relying_party(secret: str, *origins: str, **more: Any) -> dict[str, Any]:
    """fw's registration at the provider: the authorization code flow, back to each origin's callback."""
    return {
        "client_id": "fw-rp",
        "client_secret": secret,
        "grant_types": ["authorization_code"],
        "response_types": ["code"],
        "redirect_uris": [f"{origin}/auth/callback" for origin in origins],
        **more,
    }


def worker(scope: str) -> dict[str, Any]:
    """The machine client's registration: the client_credentials grant for ``scope``."""
    client_id, secret = WORKER
    return {
        "client_id": client_id,
        "client_secret": secret,
        "grant_types": ["client_credentials"],
        "response_types": [],
        "redirect_uris": [],
        "scope": scope,
    }


@dataclass
class RunningProvider:
    issuer: str
    port: int
    process: subprocess.Popen[str]

    def client_credentials(self, client_id: str, secret: str, **params: str) -> httpx2.Response:
        """POST /token with the client_credentials grant (client_secret_basic)."""
        return httpx2.post(
            f"{self.issuer}/token",
            data={"grant_type": "client_credentials", **params},
            auth=(client_id, secret),
            timeout=10,
        )

    def authorization_code(
        self, client_id: str, secret: str, redirect_uri: str, *, scope: str = "openid", login: str = "alice"
    ) -> httpx2.Response:
        """Run the authorization code flow (with PKCE) through the provider's development
        interactions, as a browser would, and POST the code to /token."""
        verifier = secrets.token_urlsafe(48)
        challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
        params = {
            "client_id": client_id,
            "response_type": "code",
            "scope": scope,
            "redirect_uri": redirect_uri,
            "code_challenge": challenge,
            "code_challenge_method": "S256",
            "state": secrets.token_urlsafe(8),
        }
        with httpx2.Client(base_url=self.issuer, timeout=10) as browser:
            response = browser.get("/auth", params=params)
            for _ in range(10):
                location = response.headers.get("location", "")
                if location.startswith(redirect_uri):
                    code = parse_qs(urlsplit(location).query)["code"][0]
                    break
                if "/interaction/" in location:
                    page = browser.get(location)
                    prompt = re.search(r'name="prompt" value="(\w+)"', page.text)
                    assert prompt, page.text
                    form = {"prompt": prompt.group(1), "login": login, "password": "any"}
                    response = browser.post(urlsplit(location).path, data=form)
                else:
                    response = browser.get(location)
            else:
                raise AssertionError("the authorization flow did not come back with a code")
        return httpx2.post(
            f"{self.issuer}/token",
            data={
                "grant_type": "authorization_code",
                "code": code,
                "redirect_uri": redirect_uri,
                "code_verifier": verifier,
            },
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


def _first_line(process: subprocess.Popen[str], seconds: float) -> str:
    """The provider's announcement, or ``""`` when it says nothing for ``seconds`` (a hung start
    fails the test instead of blocking the run)."""
    assert process.stdout is not None
    ready, _, _ = select.select([process.stdout], [], [], seconds)
    return process.stdout.readline() if ready else ""


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
        line = _first_line(process, seconds=30)
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
                    httpx2.get(f"{provider.issuer}/.well-known/openid-configuration", timeout=2).status_code
                    == 200
                ):
                    return provider
            except httpx2.HTTPError:
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
