"""Two app processes (real uvicorn on loopback) share one store: PostgreSQL, Redis (sessions),
DynamoDB and Firestore.

A login through one process is valid on the other; a logout or an account suspension through
one is honoured by the other.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import time
from collections.abc import Iterator
from pathlib import Path

import httpx2
import pytest
from backends import store_backend_for

from e2e.support import PYTHON, REPO, app_processes, clean_env, free_port, oidc_only_env
from fw.devidp import DevUser
from fw.rdb.migrate import upgrade
from fw.testing import TestIdentityProvider, identity_provider

APP = REPO / "tests" / "e2e" / "apps" / "shared_store_app.py"


@contextlib.contextmanager
def two_processes(
    tmp_path: Path, idp: TestIdentityProvider, extra: dict[str, str]
) -> Iterator[tuple[str, str]]:
    env = oidc_only_env({**idp.env, "FW_TEST_REREAD_SECONDS": "1", **extra})
    with app_processes(APP, env, tmp_path) as (a, b):
        yield a, b


def session_cookie(client: httpx2.Client) -> str:
    return next(c.value for c in client.cookies.jar if c.name == "fw_session")


def wait_until_anonymous(client: httpx2.Client, url: str) -> None:
    deadline = time.monotonic() + 15
    while client.get(url).json()["account_id"] is not None:
        assert time.monotonic() < deadline, "the other process never dropped the session"
        time.sleep(0.2)


def exercise(a: str, b: str, idp: TestIdentityProvider) -> None:
    idp.login_user("alice")
    with httpx2.Client() as browser:
        # A sign-in begun on one process finishes on the other (the login state key is shared).
        b_pid = browser.get(f"{b}/me").json()["pid"]
        to_provider = browser.get(f"{a}/auth/login?next=/me").headers["location"]
        back_to_a = browser.get(to_provider).headers["location"]
        assert back_to_a.startswith(f"{a}/auth/callback?")
        landed = browser.get(back_to_a.replace(a, b, 1), follow_redirects=True)
        assert landed.json()["account_id"] and landed.json()["pid"] == b_pid

    with httpx2.Client(follow_redirects=True) as browser:
        landed = browser.get(f"{a}/auth/login?next=/me")
        assert landed.json()["account_id"]
        account_id = landed.json()["account_id"]
        on_b = browser.get(f"{b}/me").json()
        assert on_b["account_id"] == account_id
        assert on_b["pid"] != landed.json()["pid"]

        token = session_cookie(browser)
        logout = browser.post(f"{a}/auth/logout", headers={"Origin": a}, follow_redirects=False)
        assert logout.status_code == 303
        browser.cookies.set("fw_session", token)
        assert browser.get(f"{b}/me").json()["account_id"] is None

    with httpx2.Client(follow_redirects=True) as browser:
        account_id = browser.get(f"{a}/auth/login?next=/me").json()["account_id"]
        assert browser.get(f"{b}/me").json()["account_id"] == account_id
        assert browser.post(f"{a}/admin/suspend/{account_id}").status_code == 200
        wait_until_anonymous(browser, f"{b}/me")
        assert browser.get(f"{a}/me").json()["account_id"] is None


@pytest.fixture(params=["postgresql", "redis", "dynamo", "firestore"])
def fleet_env(request: pytest.FixtureRequest, tmp_path: Path) -> dict[str, str]:
    """The environment naming one store both processes share: sessions and accounts on PostgreSQL,
    DynamoDB or Firestore, or sessions on Redis beside accounts in a SQLite file both open."""
    if request.param == "redis":
        dsn = f"sqlite:///{tmp_path / 'accounts.sqlite3'}"
        asyncio.run(upgrade(dsn))
        redis_url = request.getfixturevalue("redis_url")
        return {"MIDDLEWARE_RDB_DSN": dsn, "SESSION_BACKEND": "redis", "SESSION_REDIS_URL": redis_url}
    return store_backend_for(request.param, request).env(sessions=True)


def test_processes_sharing_a_store_honour_each_others_logins_logouts_and_suspensions(
    tmp_path: Path, fleet_env: dict[str, str]
) -> None:
    with identity_provider() as idp, two_processes(tmp_path, idp, fleet_env) as (a, b):
        exercise(a, b, idp)


def test_a_process_refuses_to_start_when_migrations_are_missing(tmp_path: Path) -> None:
    import subprocess

    env = clean_env(
        {
            "APP_ENV": "dev",
            "AUTH_ENABLED": "true",
            "AUTH_OIDC_ISSUER": "https://id.example.com",
            "AUTH_OIDC_CLIENT_ID": "app",
            "AUTH_OIDC_CLIENT_SECRET": secrets.token_urlsafe(8),
            "AUTH_OIDC_REDIRECT_URL": "https://app.example.com/auth/callback",
            "SESSION_ENABLED": "true",
            "MIDDLEWARE_RDB_DSN": f"sqlite:///{tmp_path / 'empty.sqlite3'}",
        }
    )
    result = subprocess.run(
        [PYTHON, str(APP), "--server-port", str(free_port())],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        timeout=60,
    )
    assert result.returncode == 1
    assert b"fw migrate" in result.stderr
    assert b"Traceback" not in result.stderr


pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def _mget_calls(redis_url: str) -> int:
    """How many ``MGET`` commands the Redis server at ``redis_url`` has run (its statistics)."""
    import redis

    client = redis.Redis.from_url(redis_url)
    try:
        stats = client.info("commandstats")
    finally:
        client.close()
    return int(stats.get("cmdstat_mget", {}).get("calls", 0))


def test_many_signed_in_requests_at_once_each_see_their_own_session_on_redis(
    tmp_path: Path, redis_url: str
) -> None:
    """Busy processes send the session reads of one turn of their event loop to Redis together:
    under a crowd of requests for several people on two processes, every answer is its own
    session's, and the reads were indeed gathered."""
    dsn = f"sqlite:///{tmp_path / 'accounts.sqlite3'}"
    asyncio.run(upgrade(dsn))
    env = {"MIDDLEWARE_RDB_DSN": dsn, "SESSION_BACKEND": "redis", "SESSION_REDIS_URL": redis_url}
    people = [DevUser(f"person{n}", f"Person {n}", f"person{n}@example.test") for n in range(6)]
    with identity_provider(users=people) as idp, two_processes(tmp_path, idp, env) as (a, b):
        cookies: dict[str, str] = {}
        for person in people:
            idp.login_user(person.sub)
            with httpx2.Client(follow_redirects=True) as browser:
                account_id = browser.get(f"{a}/auth/login?next=/me").json()["account_id"]
                assert account_id
                cookies[account_id] = session_cookie(browser)
        assert len(cookies) == len(people)

        async def crowd() -> list[tuple[str, str | None]]:
            limits = httpx2.Limits(max_connections=200)
            async with httpx2.AsyncClient(limits=limits, timeout=30) as client:

                async def me(base: str, account_id: str) -> tuple[str, str | None]:
                    answer = await client.get(
                        f"{base}/me", headers={"Cookie": f"fw_session={cookies[account_id]}"}
                    )
                    assert answer.status_code == 200, answer.text
                    return account_id, answer.json()["account_id"]

                asked = [(base, account_id) for _ in range(12) for base in (a, b) for account_id in cookies]
                return await asyncio.gather(*(me(base, account_id) for base, account_id in asked))

        before = _mget_calls(redis_url)
        answers = asyncio.run(crowd())
        gathered = _mget_calls(redis_url) - before
        assert len(answers) == 12 * 2 * len(people)
        assert all(asked == answered for asked, answered in answers)
        assert 0 < gathered < len(answers)  # one MGET served several requests
