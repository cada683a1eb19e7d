"""Where an integration test keeps its auth records: each ``auth.backend`` fw serves, described once.

The fixture ``store_backend`` (tests/conftest.py) yields one :class:`StoreBackend` per engine:
SQLite, PostgreSQL, DynamoDB on the local moto server and Firestore in Datastore mode on the
emulator. An integration test written once against it runs on every engine; the backend renders
itself as the store settings an in-process App resolves, as TOML tables, and as the
environment variables of an app process, so the same test drives one process or two.
"""

from __future__ import annotations

import asyncio
import secrets
from dataclasses import dataclass, replace
from typing import Any

import pytest

from fw.auth.settings import AuthSettings
from fw.auth.stores.engine import StoreSettings
from fw.auth.stores.engines.dynamo import DynamoSettings
from fw.auth.stores.engines.firestore import FirestoreSettings
from fw.auth.stores.engines.rdb import RdbSettings
from fw.auth.stores.select import middleware_settings
from fw.rdb.migrate import upgrade


@dataclass(frozen=True)
class StoreBackend:
    """One engine under test and where it lives (a table or database of the test's own)."""

    #: The test ID: ``sqlite``, ``postgresql``, ``dynamo``, ``firestore``.
    label: str
    #: The ``auth.backend`` value (``rdb`` for both relational engines).
    name: str
    #: Where each engine lives (``[middleware.rdb]``, ``.dynamo``, ``.firestore``).
    middleware: StoreSettings

    @property
    def rdb(self) -> RdbSettings:
        return self.middleware.table(RdbSettings)

    @property
    def dynamo(self) -> DynamoSettings:
        return self.middleware.table(DynamoSettings)

    @property
    def firestore(self) -> FirestoreSettings:
        return self.middleware.table(FirestoreSettings)

    @property
    def session_backend(self) -> str:
        """The ``session.backend`` keeping sessions in this same store."""
        return self.name

    def auth(self, settings: AuthSettings) -> AuthSettings:
        """``settings`` with ``auth.backend`` naming this engine."""
        return replace(settings, backend=self.name)

    def tables(self) -> dict[str, Any]:
        """The ``[middleware]`` tables, as a TOML layer writes them."""
        dynamo, firestore = self.dynamo, self.firestore
        return {
            "rdb": {"dsn": self.rdb.dsn},
            "dynamo": {
                "region": dynamo.region,
                "endpoint_url": dynamo.endpoint_url,
                "table_prefix": dynamo.table_prefix,
            },
            "firestore": {
                "project": firestore.project,
                "database": firestore.database,
                "emulator_host": firestore.emulator_host,
            },
        }

    def env(self, *, sessions: bool = False) -> dict[str, str]:
        """The environment of an app process using this engine for auth (and sessions if asked)."""
        dynamo, firestore = self.dynamo, self.firestore
        env = {
            "AUTH_BACKEND": self.name,
            "MIDDLEWARE_RDB_DSN": self.rdb.dsn,
            "MIDDLEWARE_DYNAMO_REGION": dynamo.region,
            "MIDDLEWARE_DYNAMO_ENDPOINT_URL": dynamo.endpoint_url,
            "MIDDLEWARE_DYNAMO_TABLE_PREFIX": dynamo.table_prefix,
            "MIDDLEWARE_FIRESTORE_PROJECT": firestore.project,
            "MIDDLEWARE_FIRESTORE_DATABASE": firestore.database,
            "DATASTORE_EMULATOR_HOST": firestore.emulator_host,
        }
        if sessions:
            env["SESSION_BACKEND"] = self.session_backend
        return env


def store_backend_for(label: str, request: pytest.FixtureRequest) -> StoreBackend:
    """A ready store of the test's own on ``label``: migrated, its table created, or a fresh database."""
    token = secrets.token_hex(4)
    if label == "sqlite":
        return StoreBackend(label, "rdb", middleware_settings(request.getfixturevalue("sqlite_dsn")))
    if label == "postgresql":
        dsn = request.getfixturevalue("postgres_dsn")
        asyncio.run(upgrade(dsn))
        return StoreBackend(label, "rdb", middleware_settings(dsn))
    if label == "dynamo":
        from fw.auth.stores.dynamo import create_table

        endpoint = request.getfixturevalue("dynamo_endpoint")
        dynamo = DynamoSettings("us-east-1", endpoint, f"fw_it_{token}_")
        asyncio.run(create_table(dynamo))
        return StoreBackend(label, "dynamo", middleware_settings(dynamo=dynamo))
    host = request.getfixturevalue("firestore_emulator")
    # The emulator keeps each database apart: a database of the test's own, no cleanup needed.
    firestore = FirestoreSettings("fw-test", f"it-{token}", host)
    return StoreBackend(label, "firestore", middleware_settings(firestore=firestore))
