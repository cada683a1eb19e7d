"""PostgreSQL restarted while bearer requests keep arriving, on a cluster of the test's own.

The revocation check reads beneath SQLAlchemy (``fw.rdb.pointread``); whatever the driver meets
at any moment of a restart (a pooled connection the server dropped, a refused connect, a server
still starting) must reach the bearer middleware as the store being unavailable. A valid token
is answered 200 or the 503 ``unavailable`` problem, never a 401 that would make its client
throw it away, and a revoked one never gets through.
"""

from __future__ import annotations

import threading
import time

from auth_jwt.conftest import bearer
from private_servers import PrivatePostgres

from fw.testing.issuer import LocalIssuer

from .support import RECOVERY, assert_tokens_served_again, bearer_api, tokens


def test_a_postgresql_restart_under_a_stream_of_bearer_requests_never_answers_a_valid_token_401(
    postgres: PrivatePostgres, issuer: LocalIssuer
) -> None:
    with bearer_api(issuer, postgres.dsn) as api:
        minted = tokens(issuer, api, postgres.dsn)

        def restart() -> None:
            time.sleep(0.3)  # requests are flowing before the server goes
            postgres.stop()
            time.sleep(1.0)
            postgres.start()

        restarting = threading.Thread(target=restart)
        restarting.start()
        valid: list[int] = []
        deadline = time.monotonic() + RECOVERY
        try:
            while restarting.is_alive() and time.monotonic() < deadline:
                answer = api.get("/api/me", headers=bearer(minted.valid))
                valid.append(answer.status_code)
                assert answer.status_code in (200, 503), answer.text
                if answer.status_code == 503:
                    assert answer.json()["code"] == "unavailable"
                revoked = api.get("/api/me", headers=bearer(minted.revoked))
                assert revoked.status_code in (401, 503), revoked.text
        finally:
            restarting.join(timeout=120)
        assert 200 in valid and 503 in valid, valid  # served before, refused while it was down
        assert_tokens_served_again(api, minted)
