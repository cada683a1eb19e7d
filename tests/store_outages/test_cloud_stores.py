"""The cloud stores' local stand-ins stopped under a running App, each started for the test alone:
DynamoDB's moto server (aiobotocore's ``EndpointConnectionError`` once nothing listens, after
fw's own retries) and Google's Firestore emulator (gRPC ``UNAVAILABLE``, retried until the
call's patience is spent). Neither keeps data across a restart, so only the outage is checked.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import local_servers
import pytest
from backends import StoreBackend

from fw.auth.stores.engines.dynamo import DynamoSettings
from fw.auth.stores.engines.firestore import FirestoreSettings
from fw.auth.stores.select import middleware_settings
from fw.testing import TestIdentityProvider
from fw.testing.issuer import LocalIssuer

from .support import (
    assert_sessions_refused_as_unavailable,
    assert_tokens_refused_as_unavailable,
    bearer_api,
    browser_app,
    tokens,
)


@contextlib.contextmanager
def _stand_in(engine: str, folder: Path) -> Iterator[tuple[StoreBackend, contextlib.ExitStack]]:
    """The engine's stand-in, started for this test; closing the stack stops it, and returns
    once nothing listens on its port any more."""
    running = contextlib.ExitStack()
    try:
        if engine == "dynamo":
            from fw.auth.stores.dynamo import create_table

            endpoint = running.enter_context(local_servers.moto_server())
            address = endpoint.removeprefix("http://")
            dynamo = DynamoSettings("us-east-1", endpoint, f"fw_outage_{secrets.token_hex(4)}_")
            asyncio.run(create_table(dynamo))
            backend = StoreBackend(engine, engine, middleware_settings(dynamo=dynamo))
        else:
            address = running.enter_context(local_servers.firestore_emulator(folder))
            firestore = FirestoreSettings("fw-test", f"outage-{secrets.token_hex(4)}", address)
            backend = StoreBackend(engine, engine, middleware_settings(firestore=firestore))
    except local_servers.NotInstalled as missing:
        running.close()
        pytest.skip(str(missing))
    server = contextlib.ExitStack()
    # Last: the emulator's Java server outlives its gcloud wrapper for a moment after the signal.
    server.callback(_until_refused, address)
    server.enter_context(running)
    with server:
        yield backend, server


def _until_refused(address: str) -> None:
    host, _, port = address.rpartition(":")
    deadline = time.monotonic() + 30
    while True:
        try:
            socket.create_connection((host, int(port)), timeout=1).close()
        except OSError:
            return
        if time.monotonic() > deadline:
            raise RuntimeError(f"{address} still accepts connections after its server was stopped")
        time.sleep(0.05)


@pytest.mark.parametrize("engine", ["dynamo", "firestore"])
def test_while_the_cloud_store_is_stopped_valid_tokens_and_sessions_get_503_and_revoked_ones_never_pass(
    engine: str, tmp_path: Path, issuer: LocalIssuer, idp: TestIdentityProvider
) -> None:
    with (
        _stand_in(engine, tmp_path) as (backend, server),
        bearer_api(issuer, backend) as api,
        browser_app(idp, backend) as sessions,
    ):
        minted = tokens(issuer, api, backend)
        server.close()  # the stand-in's process is stopped
        assert_tokens_refused_as_unavailable(api, minted)
        assert_sessions_refused_as_unavailable(sessions)
