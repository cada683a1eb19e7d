"""``dynamo``: every record in one DynamoDB table at ``[middleware.dynamo]`` (:mod:`fw.auth.stores.dynamo`).

``fw migrate`` (and ``fw doctor --fix``) creates the table and enables its TTL; startup and
``fw doctor`` name a missing table. Needs the dynamo extra (aiobotocore).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated

from fw.auth.stores.engine import StoreEngine, StoreScaffold, StoreSettings
from fw.configuration import register_config
from fw.markers import default, secret

if TYPE_CHECKING:
    from fw.auth.stores.interfaces import AuthStore, SessionStore


@dataclass
class DynamoSettings:
    """DynamoDB for auth.backend or session.backend = dynamo; credentials from the AWS environment."""

    #: AWS region of the table (empty: the AWS environment's region).
    region: Annotated[str, default("")]
    #: Endpoint of a local DynamoDB-compatible server, e.g. http://127.0.0.1:8000 (empty: AWS).
    endpoint_url: Annotated[str, default(""), secret("dsn")]
    #: Prefix of the table name: every record lives in <prefix>records (created by fw migrate).
    table_prefix: Annotated[str, default("fw_")]


register_config(DynamoSettings, "middleware.dynamo")


def open_dynamo(settings: StoreSettings) -> AuthStore:
    from fw.auth.stores.dynamo import DynamoStore

    return DynamoStore.open(settings.table(DynamoSettings))


def open_dynamo_sessions(settings: StoreSettings) -> SessionStore:
    from fw.auth.stores.dynamo import session_store

    return session_store(settings.table(DynamoSettings))


async def create_dynamo_table(settings: StoreSettings) -> list[str]:
    from fw.auth.stores.dynamo import create_table

    return await create_table(settings.table(DynamoSettings))


# Written out field by field like the declarations in firestore.py and rdb.py, on purpose: each
# engine sets a different few of StoreEngine's fields, and a helper filling the common ones would
# hide the one place a reader looks to learn what this engine does.
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
            "from fw.auth.stores.engines.dynamo import DynamoSettings",
        ),
    ),
)
