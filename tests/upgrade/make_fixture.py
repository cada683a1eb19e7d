"""Remake ``tests/upgrade/fixture``: a project made by an earlier fw, with data in an older schema.

The fixture stands for a deployed ``passkey_only`` project that is about to upgrade fw: its files
were written by an earlier fw, and its database was last migrated when fw's newest framework
revision was ``fw_0002`` (sessions and accounts; ``fw_0003`` added the passkey tables and
``fw_0004`` the session marks). How it is made:

1. ``git archive COMMIT src`` of this repository (default: :data:`EARLIER`, the last commit
   before the release work of issue 34) into a temporary folder; that fw runs from there, on this
   interpreter's packages.
2. That fw's ``fw init fixture --name shop --auth passkey_only --session rdb --db sqlite`` and
   ``fw generate`` write the project. The generation record (``.fw/``, git-ignored in every
   project) is left out, as a checkout of the project would have none.
3. That fw's own framework chain is applied up to ``fw_0002`` only (``alembic upgrade fw_0002``
   on its ``fw.rdb.migrate.FRAMEWORK`` chain), which leaves the database exactly as an fw whose
   newest revision was ``fw_0002`` migrated it.
4. That fw's store code writes a session, an account and a token revocation, all far from
   expiry; what the test needs to find them again (the session cookie's token, the account ID,
   the revoked token's issuer and ``jti``) goes to ``rows.json``.

Run it from the repository root with fw's virtual environment, then review and commit the result:

    .venv/bin/python tests/upgrade/make_fixture.py [--commit COMMIT]
"""

from __future__ import annotations

import argparse
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
FIXTURE = HERE / "fixture"
#: The earlier fw: ``main`` before issue 34's release work (``fw-web`` 0.1.0).
EARLIER = "c689ee6"
#: The framework revision the fixture's database stops at.
REVISION = "fw_0002"
DATABASE = "shop.sqlite3"

#: Runs inside the earlier fw (its ``src`` first on the path), in the new project's folder.
_WRITE_ROWS = """\
import asyncio, json, sys
from datetime import timedelta

from alembic import command
from sqlalchemy import create_engine

from fw.auth.sessions.manager import Sessions, SessionSummary
from fw.auth.stores.rdb import RdbStore
from fw.auth.stores.records import AccountLink
from fw.rdb.migrate import FRAMEWORK

revision, database = sys.argv[1], sys.argv[2]
engine = create_engine(f"sqlite:///{database}")
with engine.begin() as connection:
    config = FRAMEWORK.config()
    config.attributes["connection"] = connection
    command.upgrade(config, revision)
engine.dispose()

CENTURY = timedelta(days=36500)


async def write() -> dict[str, str]:
    store = RdbStore.open(f"sqlite:///{database}")
    try:
        account = await store.accounts.resolve(
            AccountLink("passkey", "ada", display_name="Ada Lovelace", email="ada@example.com"), create=True
        )
        assert account is not None
        summary = SessionSummary(
            account_id=account.account_id,
            display_name=account.display_name,
            email=account.email,
            issuer="passkey",
            key="ada",
            auth_time=1795000000,
            method="passkey",
        )
        sessions = Sessions(store.sessions(), ttl=CENTURY.total_seconds(), idle_timeout=0)
        token = await sessions.start(summary)
        issuer, jti = "https://issuer.example", "stolen-token-1"
        await store.revocations.put(issuer, "token", jti, "reported stolen", CENTURY)
    finally:
        await store.close()
    return {
        "session_token": token,
        "account_id": account.account_id,
        "revoked_issuer": issuer,
        "revoked_jti": jti,
    }


print(json.dumps(asyncio.run(write())))
"""


def _earlier_fw(commit: str, into: Path) -> Path:
    """The ``src`` folder of ``commit``, extracted from git (read-only: no checkout, no index)."""
    archive = subprocess.run(
        ["git", "-C", str(REPO), "archive", commit, "src"], capture_output=True, check=True, timeout=120
    ).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    return into / "src"


def _run(arguments: list[str], cwd: Path, source: Path) -> str:
    env = dict(os.environ, PYTHONPATH=str(source), APP_ENV="dev")
    result = subprocess.run(
        [sys.executable, *arguments], cwd=cwd, env=env, capture_output=True, text=True, timeout=300
    )
    if result.returncode != 0:
        raise SystemExit(f"make_fixture: {' '.join(arguments[:3])} failed:\n{result.stdout}{result.stderr}")
    return result.stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--commit", default=EARLIER, help=f"the earlier fw (default: {EARLIER})")
    commit = parser.parse_args().commit
    with tempfile.TemporaryDirectory() as scratch:
        source = _earlier_fw(commit, Path(scratch))
        if FIXTURE.exists():
            shutil.rmtree(FIXTURE)
        init = ["init", str(FIXTURE), "--name", "shop", "--auth", "passkey_only"]
        _run(["-m", "fw.cli", *init, "--session", "rdb", "--db", "sqlite"], REPO, source)
        _run(["-m", "fw.cli", "--project", str(FIXTURE), "generate"], REPO, source)
        rows = json.loads(_run(["-c", _WRITE_ROWS, REVISION, DATABASE], FIXTURE, source))
    shutil.rmtree(FIXTURE / ".fw", ignore_errors=True)
    rows = {"fw_commit": commit, "revision": REVISION, "database": DATABASE, **rows}
    (FIXTURE / "rows.json").write_text(json.dumps(rows, indent=2) + "\n", encoding="utf-8")
    # fw's own .gitignore and the project's leave *.sqlite3 out; the fixture's database is the point.
    with (FIXTURE / ".gitignore").open("a", encoding="utf-8") as ignore:
        ignore.write(f"# The upgrade test's fixture: its database is committed.\n!{DATABASE}\n")
    print(f"wrote {FIXTURE.relative_to(REPO)} from fw at {commit}, database at {REVISION}")


if __name__ == "__main__":
    main()
