"""Where an integration test keeps its auth records: each ``auth.backend`` fw serves, described once.

The fixture ``store_backend`` (tests/conftest.py) yields one :class:`StoreBackend` per engine:
SQLite, PostgreSQL, DynamoDB on the local moto server and Firestore in Datastore mode on the
emulator. An integration test written once against it runs on every engine; the backend renders
itself as the ``[middleware]`` settings an in-process App resolves, as TOML tables, and as the
environment variables of an app process, so the same test drives one process or two.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from fw.settings import AuthSettings, MiddlewareSettings


@dataclass(frozen=True)
class StoreBackend:
    """One engine under test and where it lives (a table or database of the test's own)."""

    #: The test ID: ``sqlite``, ``postgresql``, ``dynamo``, ``firestore``.
    label: str
    #: The ``auth.backend`` value (``rdb`` for both relational engines).
    name: str
    middleware: MiddlewareSettings

    @property
    def session_backend(self) -> str:
        """The ``session.backend`` keeping sessions in this same store."""
        return self.name

    def auth(self, settings: AuthSettings) -> AuthSettings:
        """``settings`` with ``auth.backend`` naming this engine."""
        return replace(settings, backend=self.name)

    def tables(self) -> dict[str, Any]:
        """The ``[middleware]`` tables, as a TOML layer writes them."""
        dynamo, firestore = self.middleware.dynamo, self.middleware.firestore
        return {
            "rdb": {"dsn": self.middleware.rdb.dsn},
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
        dynamo, firestore = self.middleware.dynamo, self.middleware.firestore
        env = {
            "AUTH_BACKEND": self.name,
            "MIDDLEWARE_RDB_DSN": self.middleware.rdb.dsn,
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
