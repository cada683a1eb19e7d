"""The store seam, proven from outside fw: an engine fw has never heard of, registered by this module.

``memory`` keeps every record in dictionaries of one process: a throwaway engine with its own
settings table (``[memory]``, registered with ``fw.register_config`` like any application table,
its loader generated into this directory's ``_fw_config.py``). The one line at the bottom,
:func:`fw.auth.stores.registry.register_store`, is all it takes for ``auth.backend = "memory"``
and ``session.backend = "memory"`` to open it: the shared contract suite runs on it
(``tests/stores/conftest.py``) and an App signs people in with it (``tests/stores/test_memory_store.py``).
"""

from __future__ import annotations

import os
import secrets
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from typing import Annotated, Any

import fw
from fw import extras as fw_extras
from fw.auth.stores import registry as stores_registry
from fw.auth.stores.engine import StoreEngine, StoreScaffold, StoreSettings
from fw.auth.stores.records import (
    AccountLink,
    BootstrapRecord,
    PasskeyCredential,
    RecordKind,
    RevocationEntries,
    RevocationKind,
    StoredAccount,
    sign_count_accepts,
)
from fw.auth.stores.registry import register_store
from fw.auth.stores.tokens import Record, new_token, session_marks, token_digest, well_formed
from fw.configuration import choices, registry
from fw.configuration import stores as store_tables
from fw.extras import extras


@dataclass
class MemorySettings:
    """The ``[memory]`` table: where this process keeps the records."""

    #: The name of the shared space: stores opened with the same name see the same records.
    space: Annotated[str, fw.default("default")]


def _now() -> datetime:
    return datetime.now(UTC)


@dataclass
class Space:
    """Every record of one named space."""

    accounts: dict[str, StoredAccount]
    links: dict[tuple[str, str], str]
    allowlist: dict[tuple[str, str, str], str]
    revocations: dict[tuple[str, str, str], tuple[datetime, datetime]]
    sessions: dict[str, tuple[Record, float]]
    shared_key: bytes | None
    ceremonies: dict[str, tuple[dict[str, Any], datetime]]
    passkeys: dict[bytes, PasskeyCredential]
    bootstrap: dict[str, BootstrapRecord]


_spaces: dict[str, Space] = {}


def space_named(name: str) -> Space:
    if name not in _spaces:
        _spaces[name] = Space({}, {}, {}, {}, {}, None, {}, {}, {})
    return _spaces[name]


class _Part:
    def __init__(self, store: MemoryStore) -> None:
        self.store = store

    @property
    def space(self) -> Space:
        return self.store.space()


class MemoryAccounts(_Part):
    async def resolve(self, link: AccountLink, *, create: bool, active: bool = True) -> StoredAccount | None:
        space = self.space
        found = space.links.get((link.issuer, link.claim_value))
        if found is None:
            if not create:
                return None
            found = f"acct_{secrets.token_hex(8)}"
            space.links[(link.issuer, link.claim_value)] = found
            space.accounts[found] = StoredAccount(found, link.issuer, link.claim_value, active=active)
        account = replace(
            space.accounts[found],
            display_name=link.display_name or space.accounts[found].display_name,
            email=link.email or space.accounts[found].email,
        )
        space.accounts[found] = account
        return account

    async def get(self, account_id: str) -> StoredAccount | None:
        return self.space.accounts.get(account_id)

    async def set_active(self, account_id: str, active: bool) -> bool:
        account = self.space.accounts.get(account_id)
        if account is None:
            return False
        self.space.accounts[account_id] = replace(account, active=active)
        return True


class MemoryAllowList(_Part):
    async def contains_any(self, issuer: str, pairs: Sequence[tuple[str, str]]) -> bool:
        listed = self.space.allowlist
        return any((issuer, claim, value) in listed for claim, value in pairs)

    async def add(self, issuer: str, claim: str, value: str, note: str = "") -> None:
        self.space.allowlist.setdefault((issuer, claim, value), note)

    async def remove(self, issuer: str, claim: str, value: str) -> bool:
        return self.space.allowlist.pop((issuer, claim, value), None) is not None


class MemoryRevocations(_Part):
    async def put(
        self, issuer: str, kind: RevocationKind, key: str, note: str, lifetime: timedelta
    ) -> datetime:
        stamp = _now()
        self.space.revocations[(issuer, kind, key)] = (stamp, stamp + lifetime)
        await self.clean()
        return stamp

    async def remove(self, issuer: str, kind: RevocationKind, key: str) -> bool:
        return self.space.revocations.pop((issuer, kind, key), None) is not None

    async def stamp(self, issuer: str, kind: RevocationKind, key: str) -> datetime | None:
        entry = self.space.revocations.get((issuer, kind, key))
        return entry[0] if entry is not None and entry[1] > _now() else None

    async def lookup(self, issuer: str, token_id: str | None, subject: str | None) -> RevocationEntries:
        token = await self.stamp(issuer, "token", token_id) if token_id is not None else None
        by_subject = await self.stamp(issuer, "subject", subject) if subject is not None else None
        return RevocationEntries(token, by_subject)

    async def clean(self) -> int:
        now = _now()
        gone = [key for key, (_, expires) in self.space.revocations.items() if expires <= now]
        for key in gone:
            del self.space.revocations[key]
        return len(gone)


class MemorySessions(_Part):
    name = "memory"

    async def save(self, record: Record, expires_at: float) -> str:
        token = new_token()
        self.space.sessions[token_digest(token)] = (dict(record), expires_at)
        return token

    async def load(self, value: str) -> Record | None:
        if not well_formed(value):
            return None
        found = self.space.sessions.get(token_digest(value))
        if found is None or found[1] <= time.time():
            return None
        return dict(found[0])

    async def update(self, value: str, record: Record, expires_at: float) -> str:
        digest = token_digest(value)
        if digest in self.space.sessions:
            self.space.sessions[digest] = (dict(record), expires_at)
        return value

    async def delete(self, value: str) -> None:
        if well_formed(value):
            self.space.sessions.pop(token_digest(value), None)

    async def _delete_where(self, matches: Any) -> int:
        gone = [key for key, (record, _) in self.space.sessions.items() if matches(record)]
        for key in gone:
            del self.space.sessions[key]
        return len(gone)

    async def delete_account(self, account_id: str) -> int:
        return await self._delete_where(lambda record: str(record.get("account_id", "")) == account_id)

    async def delete_marked(self, mark: str) -> int:
        return await self._delete_where(lambda record: mark in session_marks(record))

    async def shared_key(self, offer: bytes | None = None) -> bytes:
        if self.space.shared_key is None:
            self.space.shared_key = offer or os.urandom(32)
        return self.space.shared_key

    async def check(self) -> None:
        """Nothing can be missing: the dictionaries are in this process."""

    async def close(self) -> None:
        return None


class MemoryCeremonies(_Part):
    async def put(self, key: str, record: dict[str, Any], expires_at: datetime) -> bool:
        held = self.space.ceremonies.get(key)
        if held is not None and held[1] > _now():
            return False
        self.space.ceremonies[key] = (dict(record), expires_at)
        return True

    async def take(self, key: str) -> dict[str, Any] | None:
        held = self.space.ceremonies.pop(key, None)
        return held[0] if held is not None and held[1] > _now() else None


class MemoryPasskeys(_Part):
    async def add(self, credential: PasskeyCredential) -> bool:
        if credential.credential_id in self.space.passkeys:
            return False
        self.space.passkeys[credential.credential_id] = credential
        return True

    async def by_account(self, account_id: str) -> list[PasskeyCredential]:
        mine = [c for c in self.space.passkeys.values() if c.account_id == account_id]
        return sorted(mine, key=lambda credential: credential.created_at)

    async def get(self, credential_id: bytes) -> PasskeyCredential | None:
        return self.space.passkeys.get(credential_id)

    async def remove(self, account_id: str, credential_id: bytes) -> bool:
        found = self.space.passkeys.get(credential_id)
        if found is None or found.account_id != account_id:
            return False
        del self.space.passkeys[credential_id]
        return True

    async def record_use(
        self, credential_id: bytes, *, sign_count: int, backed_up: bool, used_at: datetime
    ) -> bool:
        found = self.space.passkeys.get(credential_id)
        if found is None or not sign_count_accepts(found.sign_count, sign_count):
            return False
        self.space.passkeys[credential_id] = replace(
            found, sign_count=sign_count, backed_up=backed_up, last_used_at=used_at
        )
        return True


class MemoryBootstrap(_Part):
    def _live(self, login_id: str) -> BootstrapRecord | None:
        record = self.space.bootstrap.get(login_id)
        return record if record is not None and record.expires_at > _now() else None

    async def create(self, record: BootstrapRecord) -> None:
        self.space.bootstrap[record.login_id] = record

    async def get(self, login_id: str) -> BootstrapRecord | None:
        return self._live(login_id)

    async def spend_attempt(self, login_id: str) -> bool:
        record = self._live(login_id)
        if record is None or record.redeemed or record.attempts_left <= 0:
            return False
        self.space.bootstrap[login_id] = replace(record, attempts_left=record.attempts_left - 1)
        return True

    async def redeem(self, login_id: str, enrollment_expires_at: datetime) -> bool:
        record = self._live(login_id)
        if record is None or record.redeemed:
            return False
        expires = min(record.expires_at, enrollment_expires_at)
        self.space.bootstrap[login_id] = replace(record, redeemed=True, expires_at=expires)
        return True

    async def enroll(self, login_id: str, credential: PasskeyCredential) -> bool:
        record = self._live(login_id)
        space = self.space
        if (
            record is None
            or not record.redeemed
            or record.account_id != credential.account_id
            or credential.credential_id in space.passkeys
        ):
            return False
        del space.bootstrap[login_id]
        space.passkeys[credential.credential_id] = credential
        account = space.accounts.get(record.account_id)
        if account is not None:
            space.accounts[record.account_id] = replace(account, active=True)
        return True


class MemoryStore:
    """Every ``auth.backend`` record in one in-process space."""

    name = "memory"

    def __init__(self, settings: MemorySettings) -> None:
        self.settings = settings
        self.accounts = MemoryAccounts(self)
        self.allowlist = MemoryAllowList(self)
        self.revocations = MemoryRevocations(self)
        self.ceremonies = MemoryCeremonies(self)
        self.passkeys = MemoryPasskeys(self)
        self.bootstrap = MemoryBootstrap(self)
        self._sessions = MemorySessions(self)
        self.opened = True

    def space(self) -> Space:
        return space_named(self.settings.space)

    async def require(self, kinds: Iterable[RecordKind]) -> None:
        """Every kind of record has its place: a dictionary of the space."""

    def sessions(self) -> MemorySessions:
        return self._sessions

    async def close(self) -> None:
        self.opened = False


def open_memory(settings: StoreSettings) -> MemoryStore:
    return MemoryStore(settings.table(MemorySettings))


def open_memory_sessions(settings: StoreSettings) -> MemorySessions:
    return MemoryStore(settings.table(MemorySettings)).sessions()


MEMORY = StoreEngine(
    name="memory",
    open_auth=open_memory,
    open_sessions=open_memory_sessions,
    table="memory",
    settings=MemorySettings,
    scaffold=StoreScaffold(),
)


@contextmanager
def memory_registered() -> Iterator[StoreEngine]:
    """``[memory]`` registered as configuration and ``memory`` as a store, both gone afterwards."""
    saved = registry.state()
    registry.restore(registry.unparsed_copy(saved))
    engines, extended = dict(stores_registry._engines), dict(choices._extra)
    tables, known_extras = store_tables.engine_tables(), extras()
    try:
        fw.register_config(MemorySettings, "memory")
        register_store(MEMORY)  # the one line that makes auth.backend / session.backend = "memory" work
        yield MEMORY
    finally:
        registry.restore(saved)
        stores_registry._engines.clear()
        stores_registry._engines.update(engines)
        choices._extra.clear()
        choices._extra.update(extended)
        store_tables._tables.clear()
        store_tables._tables.update(tables)
        fw_extras._extras.clear()
        fw_extras._extras.update(known_extras)
