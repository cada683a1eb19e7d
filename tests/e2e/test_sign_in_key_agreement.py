"""Two worker processes (real uvicorn on loopback) keep one sign-in key after Redis lost it.

The workers keep sessions in a Redis of the test's own (accounts in a SQLite file both open). A
``FLUSHALL`` of that Redis, then a restart of one worker, is what an operator's Redis restart
without persistence (or an eviction) followed by a worker restart looks like: the restarted
worker creates a new key while the other still holds the old one. Sign-ins begun on either
worker must still finish on the other, and a sign-in that cannot finish is logged.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator
from pathlib import Path

import httpx2
from private_servers import PrivateRedis, private_redis

from e2e.support import PYTHON, REPO, clean_env, free_port, serving
from fw.rdb.migrate import upgrade
from fw.testing import TestIdentityProvider, identity_provider

APP = REPO / "tests" / "e2e" / "apps" / "shared_store_app.py"


class Workers:
    """Worker processes of one app, sharing the private Redis and one accounts file."""

    def __init__(self, tmp_path: Path, idp: TestIdentityProvider, redis: PrivateRedis) -> None:
        dsn = f"sqlite:///{tmp_path / 'accounts.sqlite3'}"
        asyncio.run(upgrade(dsn))
        self.tmp_path = tmp_path
        self.env = clean_env(
            {
                **idp.env,
                "APP_ENV": "dev",
                "AUTH_ENABLED": "true",
                "AUTH_MODE": "oidc_only",
                "AUTH_OIDC_ALLOW_LOOPBACK_HTTP": "true",
                "SESSION_ENABLED": "true",
                "SESSION_BACKEND": "redis",
                "SESSION_REDIS_URL": redis.url,
                "MIDDLEWARE_RDB_DSN": dsn,
            }
        )

    @contextlib.contextmanager
    def worker(self, name: str) -> Iterator[str]:
        """One worker serving until the block ends; its origin (its log is ``<name>.log``)."""
        port = free_port()
        origin = f"http://127.0.0.1:{port}"
        with serving(
            [PYTHON, str(APP), "--server-port", str(port)],
            env=self.env,
            cwd=self.tmp_path,
            ready_url=f"{origin}/me",
            log=self.log(name),
        ):
            yield origin

    def log(self, name: str) -> Path:
        return self.tmp_path / f"{name}.log"


def begin(browser: httpx2.Client, worker: str) -> str:
    """Start a sign-in on ``worker`` and pass the provider: the callback URL, for ``worker``."""
    to_provider = browser.get(f"{worker}/auth/login?next=/me")
    assert to_provider.status_code == 302, to_provider.text
    back = browser.get(to_provider.headers["location"]).headers["location"]
    assert back.startswith(f"{worker}/auth/callback?")
    return str(back)


def finish_on(browser: httpx2.Client, callback: str, begun_on: str, worker: str) -> httpx2.Response:
    """Bring the provider's answer to ``worker`` instead of the one that began the sign-in."""
    return browser.get(callback.replace(begun_on, worker, 1), follow_redirects=True)


def signed_in_on(response: httpx2.Response, worker: str, browser: httpx2.Client) -> bool:
    pid = browser.get(f"{worker}/me").json()["pid"]
    return bool(response.json()["account_id"]) and response.json()["pid"] == pid


def test_a_sign_in_begun_on_one_worker_finishes_on_the_other_after_a_redis_flush_and_a_restart(
    tmp_path: Path,
) -> None:
    with identity_provider() as idp, private_redis(tmp_path) as redis, httpx2.Client() as early:
        idp.login_user("alice")
        workers = Workers(tmp_path, idp, redis)
        with workers.worker("a") as a:
            with workers.worker("b-before") as b, httpx2.Client() as browser:
                assert signed_in_on(finish_on(browser, begin(browser, a), a, b), b, browser)
            in_flight = begin(early, a)  # sealed with the key Redis is about to lose

            redis.cli("flushall")
            with workers.worker("b") as b:
                with httpx2.Client() as browser:
                    landed = finish_on(browser, begin(browser, a), a, b)
                    assert landed.status_code == 200, landed.text
                    assert signed_in_on(landed, b, browser)
                with httpx2.Client() as browser:
                    landed = finish_on(browser, begin(browser, b), b, a)
                    assert landed.status_code == 200, landed.text
                    assert signed_in_on(landed, a, browser)

                # The sign-in under way when Redis lost its key and a new one was made cannot
                # finish: it is refused as before, and the worker says why in its log.
                refused = finish_on(early, in_flight, a, b)
                assert refused.status_code == 400
                assert refused.json()["code"] == "login_failed"

    assert "the sign-in key in the session store changed" in workers.log("a").read_text()
    assert "fw_login cookie does not open" in workers.log("b").read_text()
