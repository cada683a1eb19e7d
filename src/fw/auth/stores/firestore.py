"""The ``firestore`` backend: every auth record and sessions in Firestore in Datastore mode.

Needs the ``firestore`` extra (``google-cloud-datastore``). Its client blocks, so every call runs
in a worker thread (``asyncio.to_thread``); one client per store, shared by its sessions.

Entities (kind: key name -> properties; every key is a name in the store's namespace, no ancestors):

- ``FwAccount``: account ID -> issuer, claim_value, display_name, email, active, created_at;
- ``FwAccountLink``: digest(issuer, claim value) -> account_id (finds an account by who signed in);
- ``FwAllowEntry``: digest(issuer, claim, value) -> issuer, claim, value, note, created_at;
- ``FwRevocation``: digest(issuer, kind, key) -> issuer, kind, key, stamp, expires_at, note;
- ``FwSession``: SHA-256 of the cookie token -> data (JSON), account_id, expires_at;
- ``FwSharedKey``: ``shared`` -> key (the 32 bytes every process sharing the store agrees on);
- ``FwCeremony``: digest(key) -> data (JSON), expires_at;
- ``FwPasskey``: base64url credential ID -> the fields of :mod:`fw.auth.stores.fields`
  (credential_id, account_id, public_key, sign_count, user_handle, transports, backup flags, times);
- ``FwBootstrap``: login ID -> account_id, purpose, secret_digest, created_at, expires_at,
  attempts_left, redeemed.

Every decision that depends on the latest write reads by key (lookups are strongly consistent),
inside a transaction when it also writes: put-if-absent, take-once, the sign count that only rises,
bootstrap attempts and redemption, and the first enrollment (bootstrap spent, credential stored,
account activated: one commit). A transaction that loses to a concurrent one (``Aborted``) is
retried a bounded number of times. The two queries (an account's sessions and passkeys, by the
single-property ``account_id`` index) rely on Firestore in Datastore mode answering queries with
strong consistency; expired revocations are found by ``expires_at`` and deleted only after a
transactional re-read. No composite index is needed.

Expiry is decided when a record is read. TTL policies only delete what has expired: create one on
``expires_at`` for each kind in :data:`TTL_KINDS` (``fw doctor`` prints the commands).
Every failure raises :class:`StoreUnavailable`; a transaction that fails commits nothing.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import random
import time
import uuid
from collections.abc import Callable, Iterable, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any, Protocol, TypeVar

from google.api_core import exceptions as google_errors
from google.api_core.retry import Retry, if_exception_type
from google.auth.credentials import AnonymousCredentials
from google.auth.exceptions import GoogleAuthError
from google.cloud import datastore

from fw.auth.stores import records
from fw.auth.stores.errors import StoreUnavailable
from fw.auth.stores.fields import credential_fields, credential_from, credential_key
from fw.auth.stores.firestore_ttl import TTL_KINDS, database_command, ttl_commands
from fw.auth.stores.records import (
    AccountLink,
    BootstrapRecord,
    PasskeyCredential,
    StoredAccount,
    sign_count_accepts,
)
from fw.auth.stores.tokens import Record, new_token, session_marks, token_digest, well_formed
from fw.errors import StartupError


class FirestoreLocation(Protocol):
    """Where the data lives: the ``[middleware.firestore]`` settings.

    Their class (:class:`fw.auth.stores.engines.firestore.FirestoreSettings`) is declared with the engine,
    which imports this module when it opens a store, so this module names the fields it reads
    instead of importing that class.
    """

    project: str
    database: str
    emulator_host: str


__all__ = ["TTL_KINDS", "FirestoreSessions", "FirestoreStore"]

T = TypeVar("T")

#: Everything the client raises when the service cannot answer.
_FAILURES = (google_errors.GoogleAPIError, GoogleAuthError, OSError)
#: How often a transaction that lost to a concurrent one is tried again.
_ATTEMPTS = 8
#: Seconds one RPC may take (a lookup, a commit): Firestore answers in milliseconds.
_TIMEOUT = 5.0
#: Seconds one call may spend retrying transient failures (unavailable, deadline, internal).
PATIENCE = 2.0
#: Transient answers worth retrying inside one request (contention is retried a level up).
_TRANSIENT = if_exception_type(
    google_errors.ServiceUnavailable, google_errors.DeadlineExceeded, google_errors.InternalServerError
)
_SHARED_KEY = "shared"
_EMULATOR_VARIABLE = "DATASTORE_EMULATOR_HOST"
_LOCAL_PROJECT = "fw-local"


def _now() -> datetime:
    return datetime.now(UTC)


def _utc(value: datetime) -> datetime:
    """A plain aware UTC datetime (the client hands back its own subclass)."""
    return datetime(*value.utctimetuple()[:6], value.microsecond, tzinfo=UTC)


def _digest(*parts: str) -> str:
    """A key name for a composite key: fixed length, whatever characters the parts hold."""
    return hashlib.sha256(json.dumps(parts).encode()).hexdigest()


def _json(record: dict[str, Any]) -> str:
    return json.dumps(record, separators=(",", ":"))


def _live(entity: datastore.Entity | None) -> bool:
    return entity is not None and _utc(entity["expires_at"]) > _now()


def _document(entity: datastore.Entity | None) -> dict[str, Any] | None:
    """The JSON ``data`` of an unexpired entity."""
    if entity is None or not _live(entity):
        return None
    data = json.loads(entity["data"])
    return data if isinstance(data, dict) else None


class _Datastore:
    """One client, the limits on each call, and the way from the event loop into the client."""

    def __init__(self, client: datastore.Client, *, patience: float) -> None:
        self.client = client
        retry = Retry(initial=0.05, maximum=1.0, multiplier=2.0, timeout=patience, predicate=_TRANSIENT)
        if patience <= 0:
            retry = Retry(predicate=if_exception_type())  # one attempt, never the 60 s default
        self.limits: dict[str, Any] = {"retry": retry, "timeout": _TIMEOUT}

    def key(self, kind: str, name: str) -> datastore.Key:
        key: datastore.Key = self.client.key(kind, name)
        return key

    def entity(self, key: datastore.Key, values: dict[str, Any], unindexed: Sequence[str] = ()) -> Any:
        entity = datastore.Entity(key, exclude_from_indexes=tuple(unindexed))
        entity.update(values)
        return entity

    async def run(self, work: Callable[..., T], *args: Any) -> T:
        """``work(*args)`` in a worker thread; every failure of the service is StoreUnavailable."""
        try:
            return await asyncio.to_thread(work, *args)
        except _FAILURES as error:
            raise StoreUnavailable(str(error)) from None

    async def transact(self, work: Callable[[Any], T]) -> T:
        """``work(transaction)`` in one transaction, tried again when a concurrent one wins."""
        return await self.run(self._transact, work)

    def _transact(self, work: Callable[[Any], T]) -> T:
        for attempt in range(_ATTEMPTS):
            transaction = self.client.transaction()
            transaction.begin(**self.limits)
            try:
                result = work(transaction)
                transaction.commit(**self.limits)
            except google_errors.Conflict:  # Aborted is a Conflict: contention, nothing written
                self._abandon(transaction)
                time.sleep(random.uniform(0, 0.02 * 2**attempt))
                continue
            except BaseException:
                self._abandon(transaction)
                raise
            return result
        raise StoreUnavailable(f"a transaction lost to concurrent ones {_ATTEMPTS} times")

    def _abandon(self, transaction: Any) -> None:
        try:
            transaction.rollback(**self.limits)
        except (*_FAILURES, ValueError):
            pass  # already over (a failed commit ends it): nothing was written either way

    def get(self, key: datastore.Key, transaction: Any = None) -> Any:
        return self.client.get(key, transaction=transaction, **self.limits)

    def put(self, entity: Any) -> None:
        self.client.put(entity, **self.limits)

    def delete(self, key: datastore.Key) -> None:
        self.client.delete(key, **self.limits)

    def get_multi(self, keys: list[datastore.Key], transaction: Any = None) -> list[Any]:
        return list(self.client.get_multi(keys, transaction=transaction, **self.limits))

    def keys_where(self, kind: str, name: str, operator: str, value: Any) -> list[datastore.Key]:
        query = self.client.query(kind=kind)
        query.add_filter(filter=datastore.query.PropertyFilter(name, operator, value))
        query.keys_only()
        return [entity.key for entity in query.fetch(**self.limits)]

    def where(self, kind: str, name: str, value: Any) -> list[Any]:
        query = self.client.query(kind=kind)
        query.add_filter(filter=datastore.query.PropertyFilter(name, "=", value))
        return list(query.fetch(**self.limits))


def _account(entity: Any) -> StoredAccount:
    return StoredAccount(
        entity.key.name,
        entity["issuer"],
        entity["claim_value"],
        entity["display_name"],
        entity["email"],
        bool(entity["active"]),
    )


class FirestoreAccounts:
    """``FwAccount`` and the ``FwAccountLink`` that finds one by (issuer, claim value)."""

    def __init__(self, store: _Datastore) -> None:
        self.store = store

    async def resolve(self, link: AccountLink, *, create: bool, active: bool = True) -> StoredAccount | None:
        link_key = self.store.key("FwAccountLink", _digest(link.issuer, link.claim_value))
        names = {"display_name": link.display_name, "email": link.email}

        def work(transaction: Any) -> StoredAccount | None:
            found = self.store.get(link_key, transaction)
            if found is not None:
                account = self.store.get(self.store.key("FwAccount", found["account_id"]), transaction)
                if account is not None:
                    if (link.display_name, link.email) != (account["display_name"], account["email"]):
                        account.update(names)
                        transaction.put(account)
                    return _account(account)
            if not create:
                return None
            account_id = uuid.uuid4().hex
            values = {"issuer": link.issuer, "claim_value": link.claim_value, "active": active}
            account = self.store.entity(
                self.store.key("FwAccount", account_id), {**values, **names, "created_at": _now()}
            )
            transaction.put(account)
            transaction.put(self.store.entity(link_key, {"account_id": account_id}))
            return _account(account)

        return await self.store.transact(work)

    async def get(self, account_id: str) -> StoredAccount | None:
        entity = await self.store.run(self.store.get, self.store.key("FwAccount", account_id))
        return _account(entity) if entity is not None else None

    async def set_active(self, account_id: str, active: bool) -> bool:
        key = self.store.key("FwAccount", account_id)

        def work(transaction: Any) -> bool:
            account = self.store.get(key, transaction)
            if account is None:
                return False
            if bool(account["active"]) != active:
                account["active"] = active
                transaction.put(account)
            return True

        return await self.store.transact(work)


class FirestoreAllowList:
    """``FwAllowEntry``: one entity per (issuer, claim, value), looked up by key."""

    def __init__(self, store: _Datastore) -> None:
        self.store = store

    def _key(self, issuer: str, claim: str, value: str) -> datastore.Key:
        return self.store.key("FwAllowEntry", _digest(issuer, claim, value))

    async def contains_any(self, issuer: str, pairs: Sequence[tuple[str, str]]) -> bool:
        if not pairs:
            return False
        keys = [self._key(issuer, claim, value) for claim, value in pairs]
        return bool(await self.store.run(self.store.get_multi, keys))

    async def add(self, issuer: str, claim: str, value: str, note: str = "") -> None:
        key = self._key(issuer, claim, value)
        values = {"issuer": issuer, "claim": claim, "value": value, "note": note, "created_at": _now()}

        def work(transaction: Any) -> None:
            if self.store.get(key, transaction) is None:
                transaction.put(self.store.entity(key, values, ("note",)))

        await self.store.transact(work)

    async def remove(self, issuer: str, claim: str, value: str) -> bool:
        return await self.store.transact(_deleting(self.store, self._key(issuer, claim, value)))


def _deleting(store: _Datastore, key: datastore.Key) -> Callable[[Any], bool]:
    """Transaction work: delete ``key``; whether it existed."""

    def work(transaction: Any) -> bool:
        if store.get(key, transaction) is None:
            return False
        transaction.delete(key)
        return True

    return work


class FirestoreRevocations:
    """``FwRevocation``; :meth:`lookup` reads both entries of a token in one lookup."""

    def __init__(self, store: _Datastore) -> None:
        self.store = store

    def _key(self, issuer: str, kind: str, key: str) -> datastore.Key:
        return self.store.key("FwRevocation", _digest(issuer, kind, key))

    async def put(
        self, issuer: str, kind: records.RevocationKind, key: str, note: str, lifetime: timedelta
    ) -> datetime:
        stamp = _now()
        values = {
            "issuer": issuer,
            "kind": kind,
            "key": key,
            "stamp": stamp,
            "expires_at": stamp + lifetime,
            "note": note,
        }
        entity = self.store.entity(self._key(issuer, kind, key), values, ("key", "note"))
        await self.store.run(self.store.put, entity)
        await self.clean()
        return stamp

    async def remove(self, issuer: str, kind: records.RevocationKind, key: str) -> bool:
        return await self.store.transact(_deleting(self.store, self._key(issuer, kind, key)))

    async def stamp(self, issuer: str, kind: records.RevocationKind, key: str) -> datetime | None:
        entity = await self.store.run(self.store.get, self._key(issuer, kind, key))
        return _utc(entity["stamp"]) if _live(entity) else None

    async def lookup(
        self, issuer: str, token_id: str | None, subject: str | None
    ) -> records.RevocationEntries:
        wanted = {"token": token_id, "subject": subject}
        keys = [self._key(issuer, kind, key) for kind, key in wanted.items() if key is not None]
        if not keys:
            return records.RevocationEntries(None, None)
        found = {
            entity["kind"]: _utc(entity["stamp"])
            for entity in await self.store.run(self.store.get_multi, keys)
            if _live(entity)
        }
        return records.RevocationEntries(found.get("token"), found.get("subject"))

    async def clean(self) -> int:
        """Delete the entries whose time is over; each is re-read in a transaction first, so an
        entry re-stamped meanwhile stays."""
        expired = await self.store.run(self.store.keys_where, "FwRevocation", "expires_at", "<=", _now())
        gone = 0
        for start in range(0, len(expired), 100):
            batch = expired[start : start + 100]

            def work(transaction: Any, batch: list[datastore.Key] = batch) -> int:
                still = [e.key for e in self.store.get_multi(batch, transaction) if not _live(e)]
                for key in still:
                    transaction.delete(key)
                return len(still)

            gone += await self.store.transact(work)
        return gone


def _when(timestamp: float) -> datetime:
    return datetime.fromtimestamp(timestamp, UTC)


class FirestoreSessions:
    """The ``firestore`` session backend: one ``FwSession`` per session, keyed by token digest."""

    name = "firestore"

    def __init__(self, store: _Datastore, *, owner: FirestoreStore | None = None) -> None:
        self.store = store
        #: The store to close with these sessions when they were opened on their own.
        self._owner = owner

    def _key(self, token: str) -> datastore.Key:
        return self.store.key("FwSession", token_digest(token))

    def _entity(self, token: str, record: Record, expires_at: float) -> Any:
        values = {
            "data": _json(record),
            "account_id": str(record.get("account_id", "")),
            "expires_at": _when(expires_at),
        }
        marks = sorted(session_marks(record))
        if marks:  # an array property: an equality filter matches any of its values
            values["marks"] = marks
        return self.store.entity(self._key(token), values, ("data",))

    async def save(self, record: Record, expires_at: float) -> str:
        token = new_token()
        entity = self._entity(token, record, expires_at)
        await self.store.run(self.store.put, entity)
        return token

    async def load(self, value: str) -> Record | None:
        if not well_formed(value):
            return None
        return _document(await self.store.run(self.store.get, self._key(value)))

    async def update(self, value: str, record: Record, expires_at: float) -> str:
        """Rewrite an existing session only: a session destroyed meanwhile stays destroyed."""
        if not well_formed(value):
            return value
        entity = self._entity(value, record, expires_at)

        def work(transaction: Any) -> None:
            if self.store.get(entity.key, transaction) is not None:
                transaction.put(entity)

        await self.store.transact(work)
        return value

    async def delete(self, value: str) -> None:
        if well_formed(value):
            await self.store.run(self.store.delete, self._key(value))

    async def delete_account(self, account_id: str) -> int:
        return await self._delete_where("account_id", account_id)

    async def delete_marked(self, mark: str) -> int:
        return await self._delete_where("marks", mark)

    async def _delete_where(self, name: str, value: str) -> int:
        def work() -> int:
            keys = self.store.keys_where("FwSession", name, "=", value)
            for start in range(0, len(keys), 500):
                self.store.client.delete_multi(keys[start : start + 500], **self.store.limits)
            return len(keys)

        return await self.store.run(work)

    async def shared_key(self, offer: bytes | None = None) -> bytes:
        """Read the key entity; the first process to find none creates it in the same transaction."""
        key = self.store.key("FwSharedKey", _SHARED_KEY)

        def work(transaction: Any) -> bytes:
            found = self.store.get(key, transaction)
            if found is not None:
                return bytes(found["key"])
            fresh = offer or os.urandom(32)
            transaction.put(self.store.entity(key, {"key": fresh}, ("key",)))
            return fresh

        value = await self.store.transact(work)
        if len(value) != 32:
            raise StoreUnavailable("the shared key entity does not hold 32 bytes")
        return value

    async def check(self) -> None:
        if self._owner is not None:
            await self._owner.require(["sessions"])

    async def close(self) -> None:
        if self._owner is not None:
            await self._owner.close()


class FirestoreCeremonies:
    """``FwCeremony``: put-if-absent and take-once, each one transaction."""

    def __init__(self, store: _Datastore) -> None:
        self.store = store

    async def put(self, key: str, record: dict[str, Any], expires_at: datetime) -> bool:
        entity = self.store.entity(
            self.store.key("FwCeremony", _digest(key)),
            {"data": _json(record), "expires_at": expires_at.astimezone(UTC)},
            ("data",),
        )

        def work(transaction: Any) -> bool:
            if _live(self.store.get(entity.key, transaction)):
                return False
            transaction.put(entity)
            return True

        return await self.store.transact(work)

    async def take(self, key: str) -> dict[str, Any] | None:
        ceremony = self.store.key("FwCeremony", _digest(key))

        def work(transaction: Any) -> dict[str, Any] | None:
            found = self.store.get(ceremony, transaction)
            if found is None:
                return None
            transaction.delete(ceremony)
            return _document(found)

        return await self.store.transact(work)


#: Stored but never queried: kept out of the indexes.
_CREDENTIAL_UNINDEXED = ("credential_id", "public_key", "user_handle", "transports")


def _credential_entity(store: _Datastore, credential: PasskeyCredential) -> Any:
    values = credential_fields(credential)
    return store.entity(store.key("FwPasskey", values["credential_id"]), values, _CREDENTIAL_UNINDEXED)


def _credential(entity: Any) -> PasskeyCredential:
    return credential_from(entity, _utc)


class FirestorePasskeys:
    """``FwPasskey``, keyed by credential ID; an account's are found by ``account_id``."""

    def __init__(self, store: _Datastore) -> None:
        self.store = store

    def _key(self, credential_id: bytes) -> datastore.Key:
        return self.store.key("FwPasskey", credential_key(credential_id))

    async def add(self, credential: PasskeyCredential) -> bool:
        entity = _credential_entity(self.store, credential)

        def work(transaction: Any) -> bool:
            if self.store.get(entity.key, transaction) is not None:
                return False
            transaction.put(entity)
            return True

        return await self.store.transact(work)

    async def by_account(self, account_id: str) -> list[PasskeyCredential]:
        found = await self.store.run(self.store.where, "FwPasskey", "account_id", account_id)
        credentials = [_credential(entity) for entity in found]
        # Sorted here rather than by the query: no composite index to create.
        return sorted(credentials, key=lambda c: (c.created_at, credential_key(c.credential_id)))

    async def get(self, credential_id: bytes) -> PasskeyCredential | None:
        entity = await self.store.run(self.store.get, self._key(credential_id))
        return _credential(entity) if entity is not None else None

    async def remove(self, account_id: str, credential_id: bytes) -> bool:
        key = self._key(credential_id)

        def work(transaction: Any) -> bool:
            found = self.store.get(key, transaction)
            if found is None or found["account_id"] != account_id:
                return False
            transaction.delete(key)
            return True

        return await self.store.transact(work)

    async def record_use(
        self, credential_id: bytes, *, sign_count: int, backed_up: bool, used_at: datetime
    ) -> bool:
        key = self._key(credential_id)

        def work(transaction: Any) -> bool:
            found = self.store.get(key, transaction)
            if found is None:
                return False
            stored = int(found["sign_count"])
            if not sign_count_accepts(stored, sign_count):
                return False
            found.update(
                {"sign_count": sign_count, "backed_up": backed_up, "last_used_at": used_at.astimezone(UTC)}
            )
            transaction.put(found)
            return True

        return await self.store.transact(work)


def _bootstrap(entity: Any) -> BootstrapRecord:
    return BootstrapRecord(
        login_id=entity.key.name,
        account_id=entity["account_id"],
        purpose=entity["purpose"],
        secret_digest=bytes(entity["secret_digest"]),
        created_at=_utc(entity["created_at"]),
        expires_at=_utc(entity["expires_at"]),
        attempts_left=int(entity["attempts_left"]),
        redeemed=bool(entity["redeemed"]),
    )


def _open(entity: Any) -> bool:
    """Whether a bootstrap record is live: present, unexpired and not yet redeemed."""
    return _live(entity) and not entity["redeemed"]


class FirestoreBootstrap:
    """``FwBootstrap``, keyed by login ID; enrollment also writes ``FwPasskey`` and ``FwAccount``."""

    def __init__(self, store: _Datastore) -> None:
        self.store = store

    def _key(self, login_id: str) -> datastore.Key:
        return self.store.key("FwBootstrap", login_id)

    async def create(self, record: BootstrapRecord) -> None:
        values = {
            "account_id": record.account_id,
            "purpose": record.purpose,
            "secret_digest": record.secret_digest,
            "created_at": record.created_at.astimezone(UTC),
            "expires_at": record.expires_at.astimezone(UTC),
            "attempts_left": record.attempts_left,
            "redeemed": record.redeemed,
        }
        entity = self.store.entity(self._key(record.login_id), values, ("secret_digest",))
        await self.store.run(self.store.put, entity)

    async def get(self, login_id: str) -> BootstrapRecord | None:
        entity = await self.store.run(self.store.get, self._key(login_id))
        return _bootstrap(entity) if _live(entity) else None

    async def spend_attempt(self, login_id: str) -> bool:
        def work(transaction: Any) -> bool:
            found = self.store.get(self._key(login_id), transaction)
            if not _open(found) or int(found["attempts_left"]) <= 0:
                return False
            found["attempts_left"] = int(found["attempts_left"]) - 1
            transaction.put(found)
            return True

        return await self.store.transact(work)

    async def redeem(self, login_id: str, enrollment_expires_at: datetime) -> bool:
        until = enrollment_expires_at.astimezone(UTC)

        def work(transaction: Any) -> bool:
            found = self.store.get(self._key(login_id), transaction)
            if not _open(found):
                return False
            found.update({"redeemed": True, "expires_at": min(_utc(found["expires_at"]), until)})
            transaction.put(found)
            return True

        return await self.store.transact(work)

    async def enroll(self, login_id: str, credential: PasskeyCredential) -> bool:
        passkey = _credential_entity(self.store, credential)
        account_key = self.store.key("FwAccount", credential.account_id)

        def work(transaction: Any) -> bool:
            record, taken, account = (
                self.store.get(key, transaction) for key in (self._key(login_id), passkey.key, account_key)
            )
            redeemed = _live(record) and record["redeemed"]
            if not redeemed or record["account_id"] != credential.account_id or taken is not None:
                return False
            transaction.delete(record.key)
            transaction.put(passkey)
            if account is not None and not account["active"]:
                account["active"] = True
                transaction.put(account)
            return True

        return await self.store.transact(work)


def _client(settings: FirestoreLocation, namespace: str | None) -> datastore.Client:
    """A client for the configured database; an emulator needs no credentials and any project ID
    (``fw-local`` when none is set)."""
    emulator = settings.emulator_host or os.environ.get(_EMULATOR_VARIABLE, "")
    project = settings.project or (_LOCAL_PROJECT if emulator else None)
    options: dict[str, Any] = {"namespace": namespace, "database": settings.database or None}
    if emulator and _EMULATOR_VARIABLE not in os.environ:  # with it set, the client does this itself
        options["credentials"] = AnonymousCredentials()
    client = datastore.Client(project=project, **options)
    if emulator:
        client.base_url = f"http://{emulator}"  # the setting wins over the variable
    return client


def _database_name(settings: FirestoreLocation) -> str:
    return settings.database or "(default)"


class FirestoreStore:
    """Every auth record in one Firestore database in Datastore mode (``[middleware.firestore]``)."""

    name = "firestore"

    def __init__(
        self, client: datastore.Client, settings: FirestoreLocation, *, patience: float = PATIENCE
    ) -> None:
        self.settings = settings
        self.datastore = _Datastore(client, patience=patience)
        self.accounts = FirestoreAccounts(self.datastore)
        self.allowlist = FirestoreAllowList(self.datastore)
        self.revocations = FirestoreRevocations(self.datastore)
        self.ceremonies = FirestoreCeremonies(self.datastore)
        self.passkeys = FirestorePasskeys(self.datastore)
        self.bootstrap = FirestoreBootstrap(self.datastore)

    @classmethod
    def open(
        cls, settings: FirestoreLocation, *, namespace: str | None = None, patience: float = PATIENCE
    ) -> FirestoreStore:
        """A store on a new client (no request is made until the first call).

        ``patience``: seconds one call may spend retrying transient failures (0: one attempt).
        """
        try:
            client = _client(settings, namespace)
        except (*_FAILURES, ValueError) as error:
            raise StartupError(
                "middleware.firestore.project", settings.project, f"no Firestore client: {error}"
            ) from None
        return cls(client, settings, patience=patience)

    async def require(self, kinds: Iterable[str]) -> None:
        """Reach the database; name one that is missing or not in Datastore mode.

        Kinds need no creation in Datastore mode, so only reachability is checked for ``kinds``;
        TTL policies cannot be read through the Datastore API (``fw doctor`` names them).
        """
        database = _database_name(self.settings)
        probe = self.datastore.key("FwSharedKey", _SHARED_KEY)
        try:
            await asyncio.to_thread(self.datastore.get, probe)
        except (google_errors.FailedPrecondition, google_errors.InvalidArgument) as error:
            if "mode" not in error.message.lower():
                raise StartupError(
                    "middleware.firestore.database", database, f"Firestore refused a lookup ({error})"
                ) from None
            raise StartupError(
                "middleware.firestore.database",
                database,
                f"the database is not in Datastore mode ({error.message}); fw needs Firestore in "
                "Datastore mode (a database keeps the mode it was created with): create one with "
                f"`{database_command(self.settings.project, 'NEW_DATABASE_ID')}` and name it in "
                "middleware.firestore.database",
            ) from None
        except google_errors.NotFound as error:
            raise StartupError(
                "middleware.firestore.database",
                database,
                f"the database does not exist ({error.message}); create it with "
                f"`{database_command(self.settings.project, self.settings.database)}`",
            ) from None
        except _FAILURES as error:
            raise StartupError(
                "middleware.firestore.database", database, f"Firestore cannot be reached ({error})"
            ) from None

    def sessions(self) -> FirestoreSessions:
        return FirestoreSessions(self.datastore)

    def ttl_commands(self) -> list[str]:
        """The ``gcloud`` commands creating the TTL policies this store relies on."""
        return ttl_commands(self.settings.project, self.settings.database)

    async def close(self) -> None:
        await asyncio.to_thread(self.datastore.client.close)


def open_firestore_sessions(settings: FirestoreLocation) -> FirestoreSessions:
    """Sessions on a client of their own (``session.backend = firestore``, another ``auth.backend``)."""
    store = FirestoreStore.open(settings)
    return FirestoreSessions(store.datastore, owner=store)
