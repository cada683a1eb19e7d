"""Back-channel logout sent by a certified provider (oidc-provider) to two real app processes.

The provider knows the client's ``backchannel_logout_uri`` (process A); when the person ends
their provider session at its end-session endpoint, it POSTs a signed logout token there. The
two processes share one session store, so the sessions end on both, whichever process started
them.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import secrets
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
from e2e.support import PYTHON, REPO, clean_env, free_port, serving

from fw.rdb.migrate import upgrade

from .conftest import RunningProvider, relying_party

APP = REPO / "tests" / "e2e" / "apps" / "shared_store_app.py"
PATH = "/auth/backchannel-logout"

Start = Callable[[dict[str, Any]], RunningProvider]


def submit_form(browser: httpx2.Client, page: httpx2.Response, **fields: str) -> httpx2.Response:
    """Submit the page's first form as a browser would: its hidden inputs plus ``fields``."""
    form = re.search(r"<form[^>]*action=\"([^\"]+)\"[^>]*>(.*?)</form>", page.text, re.S)
    assert form, page.text
    hidden = dict(re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', form.group(2)))
    target = httpx2.URL(str(page.url)).join(form.group(1))
    return browser.post(str(target), data={**hidden, **fields})


def sign_in(browser: httpx2.Client, origin: str) -> str:
    """Sign in at ``origin`` through the provider (login and consent pages when asked); the cookie."""
    page = browser.get(f"{origin}/auth/login?next=/me")
    for _ in range(4):
        if page.url.path == "/me":
            break
        fields = {"login": "alice", "password": "any"} if 'name="login"' in page.text else {}
        page = submit_form(browser, page, **fields)
    assert page.url.path == "/me", page.text
    assert page.json()["account_id"], page.text
    return next(c.value for c in browser.cookies.jar if c.name == "fw_session")


def account_on(origin: str, session: str) -> str | None:
    """Who ``origin`` says the session cookie ``session`` belongs to (a fresh client each time)."""
    with httpx2.Client(cookies={"fw_session": session}, timeout=10) as client:
        answer = client.get(f"{origin}/me")
        assert answer.status_code == 200, answer.text
        account: str | None = answer.json()["account_id"]
        return account


@contextlib.contextmanager
def two_app_processes(
    tmp_path: Path, start_provider: Start, secret: str
) -> Iterator[tuple[RunningProvider, str, str]]:
    ports = [free_port(), free_port()]
    origins = [f"http://127.0.0.1:{port}" for port in ports]
    provider = start_provider(
        {
            "clients": [
                relying_party(
                    secret,
                    *origins,
                    backchannel_logout_uri=f"{origins[0]}{PATH}",
                    backchannel_logout_session_required=True,
                )
            ],
            "accounts": {"alice": {"email": "alice@interop.test", "name": "Alice Interop"}},
            "features": {"backchannelLogout": {"enabled": True}},
        }
    )
    dsn = f"sqlite:///{tmp_path / 'shared.sqlite3'}"
    asyncio.run(upgrade(dsn))
    env = clean_env(
        {
            "APP_ENV": "dev",
            "AUTH_ENABLED": "true",
            "AUTH_MODE": "oidc_only",
            "AUTH_OIDC_ISSUER": provider.issuer,
            "AUTH_OIDC_CLIENT_ID": "fw-rp",
            "AUTH_OIDC_CLIENT_SECRET": secret,
            "AUTH_OIDC_ALLOW_LOOPBACK_HTTP": "true",
            "AUTH_OIDC_BACKCHANNEL_LOGOUT_PATH": PATH,
            "SESSION_ENABLED": "true",
            "MIDDLEWARE_RDB_DSN": dsn,
        }
    )
    with contextlib.ExitStack() as stack:
        for number, (port, origin) in enumerate(zip(ports, origins, strict=True)):
            stack.enter_context(
                serving(
                    [PYTHON, str(APP), "--server-port", str(port)],
                    env=env,
                    cwd=tmp_path,
                    ready_url=f"{origin}/me",
                    log=tmp_path / f"app-{number}.log",
                )
            )
        yield provider, origins[0], origins[1]


def test_logging_out_at_the_provider_ends_the_sessions_on_both_app_processes(
    tmp_path: Path, start_provider: Start
) -> None:
    secret = secrets.token_urlsafe(16)
    with (
        two_app_processes(tmp_path, start_provider, secret) as (provider, a, b),
        httpx2.Client(follow_redirects=True, timeout=15) as browser,
    ):
        started_on_a = sign_in(browser, a)
        # A second sign-in would replace the browser's session (no fixation): forget it here, keep
        # the provider's cookies, and sign in at B within the same provider session.
        browser.cookies.delete("fw_session")
        started_on_b = sign_in(browser, b)
        assert started_on_a != started_on_b
        for session in (started_on_a, started_on_b):
            assert account_on(a, session) and account_on(a, session) == account_on(b, session)

        end_session = browser.get(f"{provider.issuer}/.well-known/openid-configuration").json()[
            "end_session_endpoint"
        ]
        confirm = browser.get(end_session)
        assert confirm.status_code == 200, confirm.text
        done = submit_form(browser, confirm, logout="yes")  # the provider POSTs the logout token now
        assert done.status_code == 200, done.text

        for session in (started_on_a, started_on_b):
            assert account_on(a, session) is None
            assert account_on(b, session) is None
    log = (tmp_path / "app-0.log").read_text()
    # fw run logs one JSON object per line off a terminal; uvicorn's access line is one of them.
    messages = [json.loads(line).get("message", "") for line in log.splitlines() if line.startswith("{")]
    delivered = f'"POST {PATH} HTTP/1.1" 200'
    assert any(delivered in message for message in messages), log  # over the network, to process A


pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")
