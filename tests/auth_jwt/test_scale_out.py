"""Two application processes sharing one ``auth.backend`` store: a revocation through one reaches the
other, on every engine a fleet shares (PostgreSQL, DynamoDB, Firestore)."""

from __future__ import annotations

import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx2
import pytest
from backends import StoreBackend, store_backend_for

from fw.testing.issuer import LocalIssuer

from .config_file import jwt_only_toml

SERVER = Path(__file__).with_name("scale_out_server.py")


@pytest.fixture(params=["postgresql", "dynamo", "firestore"])
def shared_store(request: pytest.FixtureRequest) -> StoreBackend:
    """Each engine several processes can share (SQLite is one file on one machine: not a fleet's)."""
    return store_backend_for(request.param, request)


@contextmanager
def app_process(issuer: str, store: StoreBackend, delay: float, workdir: Path) -> Iterator[str]:
    config = workdir / f"config-{uuid.uuid4().hex}.toml"
    middleware = "".join(
        f"\n[middleware.{name}]\n" + "".join(f'{key} = "{value}"\n' for key, value in table.items())
        for name, table in store.tables().items()
    )
    delay_ms = f'revocation.max_propagation_delay = "{int(delay * 1000)}ms"\n'
    backend = f'backend = "{store.name}"\n'
    config.write_text(jwt_only_toml(issuer, revocation="both", auth=backend, jwt=delay_ms) + middleware)
    errors = config.with_suffix(".stderr")
    with errors.open("w") as stderr:  # a file, not a pipe: nothing can block on a full buffer
        process = subprocess.Popen(
            [sys.executable, str(SERVER), str(config)], stdout=subprocess.PIPE, stderr=stderr, text=True
        )
    try:
        assert process.stdout is not None
        for line in process.stdout:  # the startup summary comes first, then the port
            if line.startswith("pid="):
                break
        else:
            process.kill()
            process.wait()
            raise AssertionError(f"app process did not start: {errors.read_text()}")
        yield f"http://127.0.0.1:{line.split('port=')[1].strip()}"
    finally:
        process.terminate()
        process.wait(timeout=10)


def _status(base: str, token: str) -> int:
    return httpx2.get(f"{base}/api/me", headers={"Authorization": f"Bearer {token}"}).status_code


def test_a_revocation_through_one_process_is_refused_by_the_other_at_once_with_zero_delay(
    issuer: LocalIssuer, shared_store: StoreBackend, tmp_path: Path
) -> None:
    jti = uuid.uuid4().hex
    token = issuer.mint(token_id=jti)
    with (
        app_process(issuer.url, shared_store, 0, tmp_path) as first,
        app_process(issuer.url, shared_store, 0, tmp_path) as second,
    ):
        assert _status(first, token) == 200
        assert _status(second, token) == 200
        assert httpx2.post(f"{first}/admin/revoke", params={"jti": jti}).status_code == 200
        assert _status(second, token) == 401
        assert _status(first, token) == 401


def test_with_a_propagation_delay_the_other_process_refuses_once_the_delay_has_passed(
    issuer: LocalIssuer, shared_store: StoreBackend, tmp_path: Path
) -> None:
    delay = 1.0
    jti = uuid.uuid4().hex
    token = issuer.mint(token_id=jti)
    with (
        app_process(issuer.url, shared_store, delay, tmp_path) as first,
        app_process(issuer.url, shared_store, delay, tmp_path) as second,
    ):
        assert _status(second, token) == 200  # the second process now caches "not revoked"
        cached_at = time.monotonic()
        assert httpx2.post(f"{first}/admin/revoke", params={"jti": jti}).status_code == 200
        assert _status(first, token) == 401  # the revoking process sees it at once
        time.sleep(max(0.0, delay - (time.monotonic() - cached_at)) + 0.2)
        assert _status(second, token) == 401
