"""Where a new project keeps its sessions and records (``fw init --session --db``).

One choice decides four things together, so they cannot disagree: the ``[session]`` and
``[middleware.*]`` blocks of ``config.dev.toml``, the ``auth.backend`` value, the fw extras the
project depends on, and the ``storage`` fixture of its tests (a migrated store of each test's
own, pointed at by environment variables). Tests that need a server (PostgreSQL, Redis, a
DynamoDB endpoint, the Firestore emulator) read its address from a ``TEST_*`` variable and are
skipped, naming it, where it is unset.
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

_SESSION = """[session]
enabled = true
backend = "{backend}"
"""

_COOKIE = """# Sessions live in a sealed cookie; the key comes from the environment (.env, which fw init
# filled with a fresh key; in production a secret of the deployment's own).
keyring.secret = "${SESSION_KEYRING_SECRET}"
"""

_REDIS = """# Sessions live in Redis (a local server in development).
redis_url = "redis://127.0.0.1:6379/0"
"""

_SQLITE = """
[middleware.rdb]
dsn = "sqlite:///{name}.sqlite3"
"""

_POSTGRES = """
# Accounts and other records live in PostgreSQL: create the database first
# (createdb {name}); fw dev and fw migrate apply the migrations. In production set
# MIDDLEWARE_RDB_DSN to a DSN with the password (never written into this file).
[middleware.rdb]
dsn = "postgresql://postgres@127.0.0.1:5432/{name}"
"""

_DYNAMO = """
# Every record (sessions, accounts, ...) lives in one DynamoDB table, <table_prefix>records;
# `fw migrate` creates it. Credentials and region come from the AWS environment. In development
# run a local server (moto_server -p 8001, or DynamoDB Local); in production empty endpoint_url.
[middleware.dynamo]
region = ""
endpoint_url = "http://127.0.0.1:8001"
table_prefix = "{name}_"
"""

_FIRESTORE = """
# Every record (sessions, accounts, ...) lives in Firestore in Datastore mode. In development run
# the emulator (gcloud emulators firestore start --database-mode=datastore-mode
# --host-port=127.0.0.1:8081); in production empty emulator_host (credentials from the
# environment) and name the project.
[middleware.firestore]
project = "{dist}"
database = ""
emulator_host = "127.0.0.1:8081"
"""


def config_block(options: InitOptions) -> str:
    """``[session]`` and the ``[middleware.*]`` table of the chosen stores."""
    session = _SESSION.format(backend=options.session)
    session += {"cookie": _COOKIE, "redis": _REDIS}.get(options.session, "")
    middleware = {"dynamo": _DYNAMO, "firestore": _FIRESTORE}.get(options.session)
    if middleware is None:
        middleware = _POSTGRES if options.db == "postgres" else _SQLITE
    return session + middleware.format(name=options.name, dist=options.name.replace("_", "-"))


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
    """Import lines the ``storage`` fixture needs."""
    lines = ["import os", "import pytest"]
    if options.session == "dynamo":
        lines += [
            "import asyncio",
            "import uuid",
            "from fw.auth.stores.dynamo import create_table",
            "from fw.settings import DynamoSettings",
        ]
    elif options.session == "firestore":
        lines += ["import uuid"]
    else:
        lines += ["import asyncio", "from fw.rdb.migrate import application_chain, upgrade"]
    if options.session == "cookie":
        lines.append("import secrets")
    return tuple(lines)


_SERVICE = '''

def service(variable: str) -> str:
    """The address of a server these tests need, from the environment; without it the test
    is skipped, naming the variable."""
    value = os.environ.get(variable, "")
    if not value:
        pytest.skip(f"{variable} is not set: these tests need that server")
    return value
'''

_FIXTURE = '''

@pytest.fixture
def storage(tmp_path: Path) -> dict[str, str]:
    """Environment variables pointing the App at a migrated store of this test's own."""
'''

_RDB = """    dsn = {dsn}
    asyncio.run(upgrade(dsn, application=application_chain(ROOT)))  # what fw migrate does
    return {{"MIDDLEWARE_RDB_DSN": dsn{session}}}
"""

_DYNAMO_FIXTURE = """    table_prefix = f"test_{uuid.uuid4().hex[:12]}_"  # a fresh, empty table
    settings = DynamoSettings("", service("TEST_DYNAMO_ENDPOINT"), table_prefix)
    asyncio.run(create_table(settings))  # what fw migrate does
    return {
        "MIDDLEWARE_DYNAMO_ENDPOINT_URL": settings.endpoint_url,
        "MIDDLEWARE_DYNAMO_TABLE_PREFIX": table_prefix,
    }
"""

_FIRESTORE_FIXTURE = """    return {
        "DATASTORE_EMULATOR_HOST": service("TEST_FIRESTORE_EMULATOR_HOST"),
        "MIDDLEWARE_FIRESTORE_PROJECT": f"test-{uuid.uuid4().hex[:12]}",  # a fresh, empty project
    }
"""


def test_fixture(options: InitOptions) -> str:
    """The ``service`` helper and the ``storage`` fixture of the project's tests."""
    if options.session == "dynamo":
        body = _DYNAMO_FIXTURE
    elif options.session == "firestore":
        body = _FIRESTORE_FIXTURE
    else:
        dsn = (
            'service("TEST_POSTGRES_DSN")'
            if options.db == "postgres"
            else "f\"sqlite:///{tmp_path / 'test.sqlite3'}\""
        )
        session = {
            "redis": ', "SESSION_REDIS_URL": service("TEST_REDIS_URL")',
            "cookie": ', "SESSION_KEYRING_SECRET": secrets.token_urlsafe(32)',
        }.get(options.session, "")
        body = _RDB.format(dsn=dsn, session=session)
    return _SERVICE + _FIXTURE + body


def services(options: InitOptions) -> tuple[str, ...]:
    """The servers the project's tests need (keys of :data:`SERVICE_VARIABLES`)."""
    return tuple(name for name in SERVICE_VARIABLES if name in (options.db, options.session))
