"""Where a new project keeps its sessions and records (``fw init --session --db``).

One choice decides four things together, so they cannot disagree: the ``[session]`` and
``[middleware.*]`` tables of the config files (``templates/project/storage.toml.j2``), the
``auth.backend`` value, the fw extras the project depends on, and the ``storage`` fixture of its
tests (a migrated store of each test's own, pointed at by environment variables). Tests that
need a server (PostgreSQL, Redis, a DynamoDB endpoint, the Firestore emulator) read its address
from a ``TEST_*`` variable and are skipped, naming it, where it is unset.
"""

from __future__ import annotations

from fw.scaffold.options import InitOptions

#: The ``TEST_*`` variable naming each server a project's tests may need.
SERVICE_VARIABLES = {
    "postgres": "TEST_POSTGRES_DSN",
    "redis": "TEST_REDIS_URL",
    "dynamo": "TEST_DYNAMO_ENDPOINT",
    "firestore": "TEST_FIRESTORE_EMULATOR_HOST",
}


def extras(options: InitOptions) -> tuple[str, ...]:
    """The fw extras the project needs (``fw-web[docs,passkeys,redis]``), in a stable order.

    ``docs`` always: ``fw dev`` serves the interactive API reference at ``/docs`` from it.
    """
    wanted = {"docs", options.db, options.session, "passkeys" if "passkey" in options.auth else ""}
    order = ("docs", "passkeys", "postgres", "redis", "dynamo", "firestore")
    return tuple(extra for extra in order if extra in wanted)


def uses_sql(options: InitOptions) -> bool:
    """Whether the project has a SQL database (and so an application migrations directory)."""
    return bool(options.db)


def test_imports(options: InitOptions) -> tuple[str, ...]:
    """Import lines the tests' ``service`` helper and ``storage`` fixture need."""
    lines = ["import pytest", *(["import os"] if services(options) else [])]
    if options.session == "dynamo":
        lines += [
            "import uuid",
            "from fw.auth.stores.dynamo import create_table",
            "from fw.settings import DynamoSettings",
        ]
    elif options.session == "firestore":
        lines += ["import uuid"]
    else:
        lines += ["from fw.rdb.migrate import application_chain, upgrade"]
    if options.session == "cookie":
        lines.append("import secrets")
    return tuple(lines)


def services(options: InitOptions) -> tuple[str, ...]:
    """The servers the project's tests need (keys of :data:`SERVICE_VARIABLES`)."""
    return tuple(name for name in SERVICE_VARIABLES if name in (options.db, options.session))
