"""A cloud store that throttles or loses every transaction: the request gets a 503, nothing is
half-written, and the App answers normally once the store does.

DynamoDB throttles with ``ProvisionedThroughputExceededException`` (retried by fw, then given up);
Firestore throttles with ``RESOURCE_EXHAUSTED`` and loses transactions with ``Aborted`` (retried,
then given up). The faults are injected into the running App's own client.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from backends import StoreBackend, store_backend_for
from google.api_core import exceptions as google_errors

from auth_oidc.support import open_browser
from fw.auth.modes.oidc_only import OidcOnly
from fw.auth.stores.records import AccountLink, StoredAccount
from fw.auth.stores.select import open_auth_store
from fw.testing import BrowserClient, TestIdentityProvider


@pytest.fixture(params=["dynamo", "firestore"])
def cloud(request: pytest.FixtureRequest) -> StoreBackend:
    return store_backend_for(request.param, request)


@pytest.fixture
def signed_in_app(cloud: StoreBackend, idp: TestIdentityProvider) -> Iterator[tuple[BrowserClient, OidcOnly]]:
    with open_browser(idp, cloud) as (client, extension):
        assert client.login("alice").status_code == 200
        assert client.get("/me").json()["signed_in"] is True
        yield client, extension


def _throttle_dynamo(store: Any, operation: str, code: str) -> Callable[[], None]:
    """Make every ``operation`` call of the running DynamoDB store answer ``code``; returns what lifts it."""
    client = store.table._client

    def throttled(**_: Any) -> tuple[Any, dict[str, Any]]:
        class Answer:
            status_code = 400

        return Answer(), {"Error": {"Code": code, "Message": "slow down"}}

    event = f"before-call.dynamodb.{operation}"
    client.meta.events.register(event, throttled)
    return lambda: client.meta.events.unregister(event, throttled)


def _throttle_reads(extension: OidcOnly) -> Callable[[], None]:
    """Make every read of the running store throttled; returns what lifts it."""
    store: Any = extension.auth_store
    if store.name == "dynamo":
        return _throttle_dynamo(store, "GetItem", "ProvisionedThroughputExceededException")
    datastore = store.datastore.client

    def exhausted(*_: Any, **__: Any) -> Any:
        raise google_errors.ResourceExhausted("quota exceeded for reads")

    datastore.get = exhausted
    datastore.get_multi = exhausted

    def lift() -> None:  # the client's own methods again
        del datastore.get
        del datastore.get_multi

    return lift


def _lose_writes(extension: OidcOnly) -> Callable[[], None]:
    """Make every multi-item write fail: throttled transactions (DynamoDB), commits that lose to a
    concurrent one on every try (Firestore). Returns what lifts it."""
    store: Any = extension.auth_store
    if store.name == "dynamo":
        return _throttle_dynamo(store, "TransactWriteItems", "ThrottlingException")
    datastore = store.datastore.client
    opened = datastore.transaction

    def transaction(**options: Any) -> Any:
        begun = opened(**options)

        def commit(**_: Any) -> None:
            raise google_errors.Aborted("too much contention on these datastore entities")

        begun.commit = commit
        return begun

    datastore.transaction = transaction
    return lambda: delattr(datastore, "transaction")


async def _linked(cloud: StoreBackend, link: AccountLink) -> StoredAccount | None:
    """The account ``link`` leads to, read through a store of its own (as another process would)."""
    store = await open_auth_store(cloud.name, cloud.middleware, ["accounts"])
    try:
        return await store.accounts.resolve(link, create=False)
    finally:
        await store.close()


def test_a_throttled_session_read_is_a_503_and_the_session_survives_it(
    signed_in_app: tuple[BrowserClient, OidcOnly],
) -> None:
    client, extension = signed_in_app
    lift = _throttle_reads(extension)
    response = client.get("/me")
    assert response.status_code == 503
    assert response.json()["code"] == "unavailable"
    assert "slow down" not in response.text and "quota" not in response.text
    lift()
    assert client.get("/me").json()["signed_in"] is True


def test_a_sign_in_whose_writes_are_lost_is_a_503_and_leaves_no_account_behind(
    cloud: StoreBackend, idp: TestIdentityProvider
) -> None:
    with open_browser(idp, cloud) as (client, extension):
        lift = _lose_writes(extension)
        response = client.login("alice", allow_failure=True)
        assert response.status_code == 503
        assert response.json()["code"] == "unavailable"
        lift()
        assert client.get("/me").json() == {"signed_in": False}
        assert asyncio.run(_linked(cloud, AccountLink(idp.issuer, "alice"))) is None
        assert client.login("alice").status_code == 200
        assert client.get("/me").json()["signed_in"] is True
