"""Where a new project keeps its sessions and records (``fw init --session --db``).

One choice decides four things together, so they cannot disagree: the ``[session]`` and
``[middleware.*]`` tables of the config files (``templates/project/storage.toml.j2``), the
``auth.backend`` value, the fw extras the project depends on, and the ``storage`` fixture of its
tests (a migrated store of each test's own, pointed at by environment variables). Tests that
need a server (PostgreSQL, Redis, a DynamoDB endpoint, the Firestore emulator) read its address
from a ``TEST_*`` variable and are skipped, naming it, where it is unset.
"""

from __future__ import annotations

from fw.auth.stores.registry import StoreEngine, find_store, registered_stores
from fw.scaffold.options import InitOptions

#: The ``--db`` database whose server the tests reach through ``TEST_POSTGRES_DSN``.
DATABASE_SERVICES = {"postgres": "TEST_POSTGRES_DSN"}
#: The ``--db`` extras, listed before the store engines' (``fw-web[docs,passkeys,postgres,redis]``).
DATABASE_EXTRAS = ("postgres",)


def service_variables() -> dict[str, str]:
    """The ``TEST_*`` variable naming each server a project's tests may need: the database's, then
    each offered store engine's, in registration order."""
    engines = {
        engine.name: engine.scaffold.test_variable
        for engine in registered_stores()
        if engine.scaffold.offered and engine.scaffold.test_variable
    }
    return {**DATABASE_SERVICES, **engines}


#: As this installation registers them.
SERVICE_VARIABLES = service_variables()


def _session_engine(options: InitOptions) -> StoreEngine | None:
    return find_store(options.session) if options.session else None


def extras(options: InitOptions) -> tuple[str, ...]:
    """The fw extras the project needs (``fw-web[docs,passkeys,redis]``), in a stable order.

    ``docs`` always: ``fw dev`` serves the interactive API reference at ``/docs`` from it.
    """
    engine = _session_engine(options)
    wanted = {
        "docs",
        options.db,
        engine.extra if engine else "",
        "passkeys" if "passkey" in options.auth else "",
    }
    engine_extras = [engine.extra for engine in registered_stores() if engine.extra]
    order = ("docs", "passkeys", *DATABASE_EXTRAS, *engine_extras)
    return tuple(extra for extra in dict.fromkeys(order) if extra in wanted)


def uses_sql(options: InitOptions) -> bool:
    """Whether the project has a SQL database (and so an application migrations directory)."""
    return bool(options.db)


def test_imports(options: InitOptions) -> tuple[str, ...]:
    """Import lines the tests' ``service`` helper and ``storage`` fixture need."""
    lines = ["import pytest", *(["import os"] if services(options) else [])]
    engine = _session_engine(options)
    if engine is None or not engine.scaffold.keeps_everything:
        lines += ["from fw.rdb.migrate import application_chain, upgrade"]
    if engine is not None:
        lines += engine.scaffold.test_imports
    return tuple(lines)


def services(options: InitOptions) -> tuple[str, ...]:
    """The servers the project's tests need (keys of :data:`SERVICE_VARIABLES`)."""
    return tuple(name for name in service_variables() if name in (options.db, options.session))
