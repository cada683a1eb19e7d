"""``dynamo``: every record in one DynamoDB table at ``[middleware.dynamo]`` (:mod:`fw.auth.stores.dynamo`).

``fw migrate`` (and ``fw doctor --fix``) creates the table and enables its TTL; startup and
``fw doctor`` name a missing table. Needs the dynamo extra (aiobotocore).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from fw.auth.stores.engine import StoreEngine, StoreScaffold, StoreSettings
from fw.settings import DynamoSettings

if TYPE_CHECKING:
    from fw.auth.stores.interfaces import AuthStore, SessionStore


def open_dynamo(settings: StoreSettings) -> AuthStore:
    from fw.auth.stores.dynamo import DynamoStore

    return DynamoStore.open(settings.middleware.dynamo)


def open_dynamo_sessions(settings: StoreSettings) -> SessionStore:
    from fw.auth.stores.dynamo import session_store

    return session_store(settings.middleware.dynamo)


async def create_dynamo_table(settings: StoreSettings) -> list[str]:
    from fw.auth.stores.dynamo import create_table

    return await create_table(settings.middleware.dynamo)


DYNAMO = StoreEngine(
    name="dynamo",
    open_auth=open_dynamo,
    open_sessions=open_dynamo_sessions,
    table="middleware.dynamo",
    settings=DynamoSettings,
    extra="dynamo",
    extras={"dynamo": "aiobotocore"},
    migrate=create_dynamo_table,
    scaffold=StoreScaffold(
        offered=True,
        keeps_everything="DynamoDB",
        test_variable="TEST_DYNAMO_ENDPOINT",
        test_imports=(
            "import uuid",
            "from fw.auth.stores.dynamo import create_table",
            "from fw.settings import DynamoSettings",
        ),
    ),
)
