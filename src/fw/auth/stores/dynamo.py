"""The ``dynamo`` backend: every auth record and session in one DynamoDB table, through aiobotocore.

Layout: one table per ``[middleware.dynamo] table_prefix``, named ``<prefix>records``, with a
string partition key ``pk`` and sort key ``sk``. One table (not one per record kind) because
every kind has the same access pattern (get, put, delete by key, a short query of one partition),
so one table means one ``fw migrate`` step, one TTL setting and one IAM resource; first
enrollment spans three kinds in one ``TransactWriteItems`` either way. Keys are a kind and its
URL-quoted parts joined by ``|`` (``session|<digest>``), so no value can forge another's key.
Lists are index items in their own partition, read by a strongly consistent ``Query``:
``sessions-of|<account>`` (destroying every session of an account) and
``passkeys-of|<account>`` (an account's passkeys). Secondary indexes are not used, as their
reads are never strongly consistent.

Expiry: records that expire carry ``expires`` (UNIX time, compared when read and in condition
expressions) and ``fw_ttl`` (whole seconds, the table's TTL attribute). TTL only deletes, days late
at worst: a record past ``expires`` is treated as gone from that moment.

Every read a decision depends on is strongly consistent; put-if-absent, take-once, sign counts
and bootstrap attempts are conditional writes; first enrollment is one transaction. Every
failure (unreachable, throttled after the client's retries, a transaction still conflicting
after ours) is :class:`StoreUnavailable`, and no write is ever split across requests in a way
that could leave half of it behind. Needs the ``dynamo`` extra.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import math
import os
import random
import time
import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, Protocol
from urllib.parse import quote

from aiobotocore.config import AioConfig
from aiobotocore.session import get_session
from botocore.exceptions import (
    BotoCoreError,
    ClientError,
    ConnectionClosedError,
    ConnectTimeoutError,
    EndpointConnectionError,
    ReadTimeoutError,
)

import fw.base64url as base64url
from fw.auth.stores.errors import StoreUnavailable

# rdb.py and firestore.py import much the same names: every engine keeps the same records.
from fw.auth.stores.records import (
    AccountLink,
    BootstrapRecord,
    PasskeyCredential,
    RevocationEntries,
    RevocationKind,
    StoredAccount,
    sign_count_condition,
)
from fw.auth.stores.tokens import (
    SHARED_KEY_ID,
    Record,
    new_token,
    session_marks,
    token_digest,
    well_formed,
)
from fw.errors import StartupError
from fw.watchdog import Watchdog


# Alike in shape to firestore.FirestoreLocation on purpose: each engine names, here, the few
# settings fields it reads, and no two engines read the same ones.
class DynamoLocation(Protocol):
    """Where the data lives: the ``[middleware.dynamo]`` settings.

    Their class (:class:`fw.auth.stores.engines.dynamo.DynamoSettings`) is declared with the engine,
    which imports this module when it opens a store, so this module names the fields it reads
    instead of importing that class.
    """

    region: str
    endpoint_url: str
    table_prefix: str


PREFIX_KEY = "middleware.dynamo.table_prefix"
#: The attribute the table's TTL setting names.
TTL_ATTRIBUTE = "fw_ttl"
MIGRATE_FIX = "run `fw migrate` or `fw doctor --fix` (each creates the table and enables TTL on `fw_ttl`)"
_FAILURES = (BotoCoreError, OSError, asyncio.TimeoutError)
#: Transactions cancelled by a concurrent one are tried this many times before giving up.
_CONFLICT_TRIES = 4
#: Attempts of one call that failed transiently (throttled, a 5xx, no connection), fw's own
#: retries: the client's are off so that one policy, bounded below, decides.
_TRANSIENT_TRIES = 3
#: Backoff before the n-th retry: a random delay up to ``_BACKOFF * 2**n`` seconds (full jitter).
_BACKOFF = 0.05
#: Seconds to open a connection, and to wait for an answer (DynamoDB answers in milliseconds).
_CONNECT_TIMEOUT = 1.0
_READ_TIMEOUT = 2.0
#: Seconds one call may take in all, retries included: past it the request gets its 503.
_DEADLINE = 3.0
#: Error codes worth another attempt: throttling and the service's own transient failures.
_TRANSIENT_CODES = frozenset(
    {
        "ProvisionedThroughputExceededException",
        "ThrottlingException",
        "RequestLimitExceeded",
        "InternalServerError",
        "ServiceUnavailable",
        "TransactionInProgressException",
    }
)
#: Failures to reach the service at all: tried again, since a connection may have just dropped.
_UNREACHED = (EndpointConnectionError, ConnectTimeoutError, ReadTimeoutError, ConnectionClosedError)

Item = dict[str, Any]

#: The table's keys and billing, as ``create_table`` takes them beside the table's name.
TABLE_LAYOUT: dict[str, Any] = {
    "AttributeDefinitions": [
        {"AttributeName": "pk", "AttributeType": "S"},
        {"AttributeName": "sk", "AttributeType": "S"},
    ],
    "KeySchema": [
        {"AttributeName": "pk", "KeyType": "HASH"},
        {"AttributeName": "sk", "KeyType": "RANGE"},
    ],
    "BillingMode": "PAY_PER_REQUEST",
}


def table_name(settings: DynamoLocation) -> str:
    return f"{settings.table_prefix}records"


def _key(kind: str, *parts: str) -> str:
    return "|".join([kind, *(quote(part, safe="") for part in parts)])


def _s(value: str) -> dict[str, str]:
    return {"S": value}


def _n(value: float) -> dict[str, str]:
    return {"N": repr(value) if isinstance(value, float) else str(value)}


def _bool(value: bool) -> dict[str, bool]:
    return {"BOOL": value}


def _b(value: bytes) -> dict[str, bytes]:
    return {"B": value}


def _pk(pk: str, sk: str = "-") -> Item:
    return {"pk": _s(pk), "sk": _s(sk)}


def _expiring(expires: float) -> Item:
    """The two expiry attributes: the exact time reads compare, the whole second TTL deletes at."""
    return {"expires": _n(expires), TTL_ATTRIBUTE: _n(math.ceil(expires))}


def _iso(moment: datetime) -> dict[str, str]:
    return _s(moment.astimezone(UTC).isoformat())


def _time(item: Item, name: str) -> datetime:
    return datetime.fromisoformat(item[name]["S"])


def _live(item: Item | None) -> Item | None:
    """The item unless missing or past its ``expires``."""
    if item is None or float(item["expires"]["N"]) <= time.time():
        return None
    return item


class _Refused(Exception):
    """A condition expression did not hold (a conditional write or transaction changed nothing)."""


class DynamoTable:
    """The one table and the one client every store of a :class:`DynamoStore` shares.

    The client is opened on first use (in the running event loop) and reused for every call
    until :meth:`close`; aiobotocore pools its connections.
    """

    def __init__(self, settings: DynamoLocation) -> None:
        self.settings = settings
        self.name = table_name(settings)
        self._stack = contextlib.AsyncExitStack()
        self._client: Any = None
        self._opening: asyncio.Lock | None = None
        #: Bounds each call by :data:`_DEADLINE`, one timer for all of them (fw.watchdog).
        self._deadline = Watchdog(_DEADLINE)

    async def client(self) -> Any:
        if self._client is not None:
            return self._client
        self._opening = self._opening or asyncio.Lock()
        async with self._opening:
            if self._client is None:
                config = AioConfig(
                    retries={"total_max_attempts": 1, "mode": "standard"},
                    connect_timeout=_CONNECT_TIMEOUT,
                    read_timeout=_READ_TIMEOUT,
                )
                creator = get_session().create_client(
                    "dynamodb",
                    region_name=self.settings.region or None,
                    endpoint_url=self.settings.endpoint_url or None,
                    config=config,
                )
                try:
                    self._client = await self._stack.enter_async_context(creator)
                except _FAILURES as error:
                    raise StoreUnavailable(f"no DynamoDB client: {error}") from None
        return self._client

    async def call(self, operation: str, **arguments: Any) -> Any:
        """One API call; a failed condition is :class:`_Refused`, any other failure StoreUnavailable.

        Throttling, the service's transient errors and a lost connection are tried again
        (:data:`_TRANSIENT_TRIES` attempts, jittered backoff), a transaction cancelled by a
        concurrent one :data:`_CONFLICT_TRIES` times; the whole call, retries included, ends
        within :data:`_DEADLINE` seconds. A failed write changes nothing (every multi-item write
        is one transaction), so a retry never finds half of it.
        """
        client = await self.client()
        try:
            with self._deadline:
                return await self._attempts(client, operation, arguments)
        except TimeoutError:
            raise StoreUnavailable(f"DynamoDB {operation}: no answer within {_DEADLINE} s") from None

    async def _attempts(self, client: Any, operation: str, arguments: dict[str, Any]) -> Any:
        transient = conflicts = 0
        while True:
            try:
                return await getattr(client, operation)(**arguments)
            except ClientError as error:
                code = error.response.get("Error", {}).get("Code", "")
                if code == "ConditionalCheckFailedException":
                    raise _Refused from None
                if code == "TransactionCanceledException":
                    reasons = [r.get("Code", "") for r in error.response.get("CancellationReasons", [])]
                    message = str(error.response.get("Error", {}).get("Message", ""))
                    if "ConditionalCheckFailed" in reasons or "ConditionalCheckFailed" in message:
                        raise _Refused from None
                    if "TransactionConflict" in reasons or "TransactionConflict" in message:
                        conflicts += 1  # a concurrent transaction touched our items: try again
                        if conflicts < _CONFLICT_TRIES:
                            await _backoff(conflicts)
                            continue
                        raise StoreUnavailable(
                            f"DynamoDB {operation}: still conflicting after {_CONFLICT_TRIES} tries"
                        ) from None
                if code not in _TRANSIENT_CODES:
                    raise StoreUnavailable(f"DynamoDB {operation}: {code}: {error}") from None
                failure = f"{code}: {error}"
            except _UNREACHED as error:
                failure = str(error)
            except _FAILURES as error:
                raise StoreUnavailable(f"DynamoDB {operation}: {error}") from None
            # A transient failure (throttled, a 5xx, no connection): tried again, a bounded number of times.
            transient += 1
            if transient >= _TRANSIENT_TRIES:
                raise StoreUnavailable(f"DynamoDB {operation}: {failure}") from None
            await _backoff(transient)

    async def get(self, key: Item) -> Item | None:
        found = await self.call("get_item", TableName=self.name, Key=key, ConsistentRead=True)
        item: Item | None = found.get("Item")
        return item

    async def _holds(self, operation: str, arguments: dict[str, Any]) -> bool:
        """Run a conditional write; whether its condition held (and so the write happened)."""
        try:
            await self.call(operation, TableName=self.name, **arguments)
        except _Refused:
            return False
        return True

    async def put(self, item: Item, condition: str = "", values: Item | None = None) -> bool:
        """Write ``item``; ``False`` when ``condition`` did not hold."""
        return await self._holds("put_item", _conditioned({"Item": item}, condition, values))

    async def update(self, key: Item, expression: str, values: Item, condition: str = "") -> bool:
        arguments = {"Key": key, "UpdateExpression": expression, "ExpressionAttributeValues": values}
        return await self._holds("update_item", _conditioned(arguments, condition, None))

    async def delete(self, key: Item, condition: str = "", values: Item | None = None) -> Item | None:
        """Delete and return what was there (``None``: nothing, or ``condition`` did not hold)."""
        arguments = _conditioned({"Key": key, "ReturnValues": "ALL_OLD"}, condition, values)
        try:
            gone = await self.call("delete_item", TableName=self.name, **arguments)
        except _Refused:
            return None
        item: Item | None = gone.get("Attributes")
        return item

    async def transact(self, *writes: Item) -> bool:
        """Every write or none; ``False`` when a condition did not hold."""
        for write in writes:
            next(iter(write.values()))["TableName"] = self.name
        try:
            await self.call("transact_write_items", TransactItems=list(writes))
        except _Refused:
            return False
        return True

    async def partition(self, pk: str) -> list[Item]:
        """Every item of one partition, strongly consistent."""
        items: list[Item] = []
        arguments: dict[str, Any] = {
            "TableName": self.name,
            "KeyConditionExpression": "pk = :pk",
            "ExpressionAttributeValues": {":pk": _s(pk)},
            "ConsistentRead": True,
        }
        while True:
            page = await self.call("query", **arguments)
            items += page.get("Items", [])
            if "LastEvaluatedKey" not in page:
                return items
            arguments["ExclusiveStartKey"] = page["LastEvaluatedKey"]

    async def get_many(self, keys: Sequence[Item]) -> list[Item]:
        """The items present of ``keys`` (any order), strongly consistent."""
        unique = list({(k["pk"]["S"], k["sk"]["S"]): k for k in keys}.values())
        found: list[Item] = []
        for start in range(0, len(unique), 100):
            wanted: dict[str, Any] = {
                self.name: {"Keys": unique[start : start + 100], "ConsistentRead": True}
            }
            for _ in range(5):
                page = await self.call("batch_get_item", RequestItems=wanted)
                found += page.get("Responses", {}).get(self.name, [])
                wanted = page.get("UnprocessedKeys") or {}
                if not wanted:
                    break
            if wanted:
                raise StoreUnavailable("DynamoDB batch_get_item: keys left unprocessed (throttled)")
        return found

    async def close(self) -> None:
        self._client = None
        with contextlib.suppress(*_FAILURES):
            await self._stack.aclose()


async def _backoff(retry: int) -> None:
    """Sleep before the ``retry``-th retry: full jitter up to ``_BACKOFF * 2**retry`` seconds."""
    await asyncio.sleep(random.uniform(0, _BACKOFF * 2**retry))


def _conditioned(arguments: dict[str, Any], condition: str, values: Item | None) -> dict[str, Any]:
    """``arguments`` with the condition expression and its values added."""
    if condition:
        arguments["ConditionExpression"] = condition
    if values:
        arguments["ExpressionAttributeValues"] = {**arguments.get("ExpressionAttributeValues", {}), **values}
    return arguments


def _now() -> float:
    return time.time()


_ABSENT = "attribute_not_exists(pk)"
_SET_TTL = f"{TTL_ATTRIBUTE} = :{TTL_ATTRIBUTE}"
_PRESENT = "attribute_exists(pk)"


class DynamoAccounts:
    """``account|<id>`` holds the account; ``link|<issuer>|<claim value>`` points at it."""

    def __init__(self, table: DynamoTable) -> None:
        self.table = table

    async def resolve(self, link: AccountLink, *, create: bool, active: bool = True) -> StoredAccount | None:
        link_key = _pk(_key("link", link.issuer, link.claim_value))
        for _ in range(3):
            linked = await self.table.get(link_key)
            if linked is not None:
                account_id = linked["account_id"]["S"]
                item = await self.table.get(_pk(_key("account", account_id)))
                if item is None:
                    raise StoreUnavailable(f"account {account_id} is linked but missing")
                if (link.display_name, link.email) != (item["display_name"]["S"], item["email"]["S"]):
                    await self.table.update(
                        _pk(_key("account", account_id)),
                        "SET display_name = :d, email = :e",
                        {":d": _s(link.display_name), ":e": _s(link.email)},
                    )
                return StoredAccount(
                    account_id,
                    link.issuer,
                    link.claim_value,
                    link.display_name,
                    link.email,
                    item["active"]["BOOL"],
                )
            if not create:
                return None
            account_id = uuid.uuid4().hex
            account = {
                **_pk(_key("account", account_id)),
                "account_id": _s(account_id),
                "issuer": _s(link.issuer),
                "claim_value": _s(link.claim_value),
                "display_name": _s(link.display_name),
                "email": _s(link.email),
                "active": _bool(active),
                "created_at": _iso(datetime.now(UTC)),
            }
            created = await self.table.transact(
                {"Put": {"Item": {**link_key, "account_id": _s(account_id)}, "ConditionExpression": _ABSENT}},
                {"Put": {"Item": account, "ConditionExpression": _ABSENT}},
            )
            if created:
                return StoredAccount(
                    account_id, link.issuer, link.claim_value, link.display_name, link.email, active
                )
            # a concurrent first sign-in created the account: read theirs
        raise StoreUnavailable("the account could neither be read nor created")

    async def get(self, account_id: str) -> StoredAccount | None:
        item = await self.table.get(_pk(_key("account", account_id)))
        if item is None:
            return None
        return StoredAccount(
            account_id,
            item["issuer"]["S"],
            item["claim_value"]["S"],
            item["display_name"]["S"],
            item["email"]["S"],
            item["active"]["BOOL"],
        )

    async def set_active(self, account_id: str, active: bool) -> bool:
        key = _pk(_key("account", account_id))
        return await self.table.update(key, "SET active = :a", {":a": _bool(active)}, _PRESENT)


class DynamoAllowList:
    """``allow|<issuer>`` partitions, one item per (claim name, value)."""

    def __init__(self, table: DynamoTable) -> None:
        self.table = table

    @staticmethod
    def _entry(issuer: str, claim: str, value: str) -> Item:
        return _pk(_key("allow", issuer), _key("entry", claim, value))

    async def contains_any(self, issuer: str, pairs: Sequence[tuple[str, str]]) -> bool:
        if not pairs:
            return False
        return bool(await self.table.get_many([self._entry(issuer, c, v) for c, v in pairs]))

    async def add(self, issuer: str, claim: str, value: str, note: str = "") -> None:
        item = {**self._entry(issuer, claim, value), "note": _s(note), "created_at": _iso(datetime.now(UTC))}
        await self.table.put(item, _ABSENT)  # already listed: keep the first entry

    async def remove(self, issuer: str, claim: str, value: str) -> bool:
        return await self.table.delete(self._entry(issuer, claim, value)) is not None


class DynamoRevocations:
    """``revoked|<issuer>`` partitions, one item per (kind, key)."""

    def __init__(self, table: DynamoTable) -> None:
        self.table = table

    @staticmethod
    def _entry(issuer: str, kind: str, key: str) -> Item:
        return _pk(_key("revoked", issuer), _key(kind, key))

    async def put(
        self, issuer: str, kind: RevocationKind, key: str, note: str, lifetime: timedelta
    ) -> datetime:
        """Create or re-stamp; entries whose time is over are left to the table's TTL."""
        stamp = datetime.now(UTC)
        expires = (stamp + lifetime).timestamp()
        item = {
            **self._entry(issuer, kind, key),
            "stamp": _iso(stamp),
            "note": _s(note),
            **_expiring(expires),
        }
        await self.table.put(item)
        return stamp

    async def remove(self, issuer: str, kind: RevocationKind, key: str) -> bool:
        return await self.table.delete(self._entry(issuer, kind, key)) is not None

    async def stamp(self, issuer: str, kind: RevocationKind, key: str) -> datetime | None:
        item = _live(await self.table.get(self._entry(issuer, kind, key)))
        return _time(item, "stamp") if item is not None else None

    async def lookup(self, issuer: str, token_id: str | None, subject: str | None) -> RevocationEntries:
        wanted = [("token", token_id), ("subject", subject)]
        keys = [self._entry(issuer, kind, key) for kind, key in wanted if key is not None]
        if not keys:
            return RevocationEntries(None, None)
        found: dict[str, datetime] = {}
        for item in await self.table.get_many(keys):
            if _live(item) is not None:
                found[item["sk"]["S"].split("|", 1)[0]] = _time(item, "stamp")
        return RevocationEntries(found.get("token"), found.get("subject"))

    async def clean(self) -> int:
        """Delete expired entries now (a scan of the revocation items) instead of waiting for TTL."""
        now = _now()
        arguments: dict[str, Any] = {
            "TableName": self.table.name,
            "FilterExpression": "begins_with(pk, :revoked) AND expires <= :now",
            "ExpressionAttributeValues": {":revoked": _s("revoked|"), ":now": _n(now)},
            "ProjectionExpression": "pk, sk",
            "ConsistentRead": True,
        }
        gone = 0
        while True:
            page = await self.table.call("scan", **arguments)
            for key in page.get("Items", []):
                # Only if still expired: a concurrent put may have re-stamped it since the scan.
                if await self.table.delete(key, "expires <= :now", {":now": _n(now)}) is not None:
                    gone += 1
            if "LastEvaluatedKey" not in page:
                return gone
            arguments["ExclusiveStartKey"] = page["LastEvaluatedKey"]


class DynamoSessions:
    """``session|<token digest>`` items, each listed under ``sessions-of|<account>`` and under
    ``sessions-marked|<mark>`` for each of its marks (index items expire with their session)."""

    name = "dynamo"

    def __init__(self, table: DynamoTable, *, owns_table: bool = False) -> None:
        self.table = table
        self.owns_table = owns_table

    @staticmethod
    def _session(digest: str) -> Item:
        return _pk(_key("session", digest))

    @staticmethod
    def _listed(account_id: str, digest: str) -> Item:
        return _pk(_key("sessions-of", account_id), digest)

    @staticmethod
    def _marked(mark: str, digest: str) -> Item:
        return _pk(_key("sessions-marked", mark), digest)

    async def _write(self, token: str, record: Record, expires_at: float, *, new: bool) -> None:
        digest = token_digest(token)
        account_id = str(record.get("account_id", ""))
        data = {"data": _s(json.dumps(record, separators=(",", ":"))), **_expiring(expires_at)}
        if new:
            session: Item = {"Put": {"Item": {**self._session(digest), "account_id": _s(account_id), **data}}}
        else:
            session = {
                "Update": {
                    "Key": self._session(digest),
                    "UpdateExpression": f"SET #d = :data, expires = :expires, {_SET_TTL}",
                    "ExpressionAttributeNames": {"#d": "data"},
                    "ExpressionAttributeValues": {f":{k}": v for k, v in data.items()},
                    "ConditionExpression": _PRESENT,
                }
            }
        writes = [session]
        if account_id:
            listed = {**self._listed(account_id, digest), TTL_ATTRIBUTE: data[TTL_ATTRIBUTE]}
            writes.append({"Put": {"Item": listed}})
        for mark in sorted(session_marks(record)):
            marked = {**self._marked(mark, digest), TTL_ATTRIBUTE: data[TTL_ATTRIBUTE]}
            writes.append({"Put": {"Item": marked}})
        await self.table.transact(*writes)  # an update of a session that is gone changes nothing

    async def save(self, record: Record, expires_at: float) -> str:
        token = new_token()
        await self._write(token, record, expires_at, new=True)
        return token

    async def load(self, value: str) -> Record | None:
        if not well_formed(value):
            return None
        item = _live(await self.table.get(self._session(token_digest(value))))
        if item is None:
            return None
        data = json.loads(item["data"]["S"])
        return data if isinstance(data, dict) else None

    async def update(self, value: str, record: Record, expires_at: float) -> str:
        if well_formed(value):
            await self._write(value, record, expires_at, new=False)
        return value

    async def _destroy(self, digest: str) -> bool:
        gone = await self.table.delete(self._session(digest))
        if gone is None:
            return False
        account_id = gone.get("account_id", {}).get("S", "")
        if account_id:
            await self.table.delete(self._listed(account_id, digest))
        return True

    async def delete(self, value: str) -> None:
        if well_formed(value):
            await self._destroy(token_digest(value))

    async def delete_account(self, account_id: str) -> int:
        return await self._delete_listed(_key("sessions-of", account_id))

    async def delete_marked(self, mark: str) -> int:
        return await self._delete_listed(_key("sessions-marked", mark))

    async def _delete_listed(self, partition: str) -> int:
        """Destroy the sessions an index partition lists, then its items."""
        listed = await self.table.partition(partition)
        gone = await asyncio.gather(*(self._destroy(item["sk"]["S"]) for item in listed))
        for item in listed:  # index items of sessions destroyed one by one earlier
            await self.table.delete(_pk(item["pk"]["S"], item["sk"]["S"]))
        return sum(gone)

    async def shared_key(self, offer: bytes | None = None) -> bytes:
        """Put-if-absent, then a strongly consistent read: every process gets the first one's key."""
        key = self._session(SHARED_KEY_ID)
        await self.table.put({**key, "key": _b(offer or os.urandom(32))}, _ABSENT)
        item = await self.table.get(key)
        value = item["key"]["B"] if item is not None else b""
        if len(value) != 32:
            raise StoreUnavailable(f"the shared key in {self.table.name} is not 32 bytes")
        return bytes(value)

    async def check(self) -> None:
        await require_table(self.table, "session.backend")

    async def close(self) -> None:
        if self.owns_table:
            await self.table.close()


class DynamoCeremonies:
    """``ceremony|<key>``: put-if-absent (or expired), and a take that is one returning delete."""

    def __init__(self, table: DynamoTable) -> None:
        self.table = table

    async def put(self, key: str, record: dict[str, Any], expires_at: datetime) -> bool:
        item = {
            **_pk(_key("ceremony", key)),
            "data": _s(json.dumps(record, separators=(",", ":"))),
            **_expiring(expires_at.timestamp()),
        }
        return await self.table.put(item, f"{_ABSENT} OR expires <= :now", {":now": _n(_now())})

    async def take(self, key: str) -> dict[str, Any] | None:
        item = _live(await self.table.delete(_pk(_key("ceremony", key))))
        if item is None:
            return None
        data = json.loads(item["data"]["S"])
        return data if isinstance(data, dict) else None


def _credential_key(credential_id: bytes) -> str:
    return base64url.encode(credential_id)


def _passkey(credential_id: bytes) -> Item:
    return _pk(_key("passkey", _credential_key(credential_id)))


def _passkey_listed(account_id: str, credential_id: bytes) -> Item:
    return _pk(_key("passkeys-of", account_id), _credential_key(credential_id))


def _credential_item(credential: PasskeyCredential) -> Item:
    item = {
        **_passkey(credential.credential_id),
        "credential_id": _b(credential.credential_id),
        "account_id": _s(credential.account_id),
        "public_key": _b(credential.public_key),
        "sign_count": _n(credential.sign_count),
        "user_handle": _b(credential.user_handle),
        "transports": _s(" ".join(credential.transports)),
        "backup_eligible": _bool(credential.backup_eligible),
        "backed_up": _bool(credential.backed_up),
        "created_at": _iso(credential.created_at),
    }
    if credential.last_used_at is not None:
        item["last_used_at"] = _iso(credential.last_used_at)
    return item


def _credential(item: Item) -> PasskeyCredential:
    return PasskeyCredential(
        credential_id=bytes(item["credential_id"]["B"]),
        account_id=item["account_id"]["S"],
        public_key=bytes(item["public_key"]["B"]),
        sign_count=int(item["sign_count"]["N"]),
        user_handle=bytes(item["user_handle"]["B"]),
        created_at=_time(item, "created_at"),
        transports=tuple(item["transports"]["S"].split()),
        backup_eligible=item["backup_eligible"]["BOOL"],
        backed_up=item["backed_up"]["BOOL"],
        last_used_at=_time(item, "last_used_at") if "last_used_at" in item else None,
    )


def _add_passkey(credential: PasskeyCredential) -> list[Item]:
    """The transaction items storing a new credential (refused when its ID is registered)."""
    listed = _passkey_listed(credential.account_id, credential.credential_id)
    return [
        {"Put": {"Item": _credential_item(credential), "ConditionExpression": _ABSENT}},
        {"Put": {"Item": listed}},
    ]


class DynamoPasskeys:
    """``passkey|<credential ID>`` items, each listed under ``passkeys-of|<account>``."""

    def __init__(self, table: DynamoTable) -> None:
        self.table = table

    async def add(self, credential: PasskeyCredential) -> bool:
        return await self.table.transact(*_add_passkey(credential))

    async def by_account(self, account_id: str) -> list[PasskeyCredential]:
        listed = await self.table.partition(_key("passkeys-of", account_id))
        keys = [_pk(_key("passkey", item["sk"]["S"])) for item in listed]
        found = [_credential(item) for item in await self.table.get_many(keys)] if keys else []
        mine = [credential for credential in found if credential.account_id == account_id]
        return sorted(mine, key=lambda c: (c.created_at, _credential_key(c.credential_id)))

    async def get(self, credential_id: bytes) -> PasskeyCredential | None:
        item = await self.table.get(_passkey(credential_id))
        return _credential(item) if item is not None else None

    async def remove(self, account_id: str, credential_id: bytes) -> bool:
        return await self.table.transact(
            {
                "Delete": {
                    "Key": _passkey(credential_id),
                    "ConditionExpression": "account_id = :a",
                    "ExpressionAttributeValues": {":a": _s(account_id)},
                }
            },
            {"Delete": {"Key": _passkey_listed(account_id, credential_id)}},
        )

    async def record_use(
        self, credential_id: bytes, *, sign_count: int, backed_up: bool, used_at: datetime
    ) -> bool:
        # :n is the new count, so "= :n" compares with 0 exactly when the rule asks for it.
        moves_up = sign_count_condition(
            sign_count, lambda _zero: "sign_count = :n", lambda _new: "sign_count < :n"
        )
        return await self.table.update(
            _passkey(credential_id),
            "SET sign_count = :n, backed_up = :b, last_used_at = :t",
            {":n": _n(sign_count), ":b": _bool(backed_up), ":t": _iso(used_at)},
            f"{_PRESENT} AND {moves_up}",
        )


class DynamoBootstrap:
    """``bootstrap|<login ID>``; enrollment also writes the passkey items and the account."""

    _OPEN = "expires > :now AND redeemed = :false"

    def __init__(self, table: DynamoTable) -> None:
        self.table = table

    @staticmethod
    def _record(login_id: str) -> Item:
        return _pk(_key("bootstrap", login_id))

    async def create(self, record: BootstrapRecord) -> None:
        await self.table.put(
            {
                **self._record(record.login_id),
                "login_id": _s(record.login_id),
                "account_id": _s(record.account_id),
                "purpose": _s(record.purpose),
                "secret_digest": _b(record.secret_digest),
                "created_at": _iso(record.created_at),
                "expires_at": _iso(record.expires_at),
                "attempts_left": _n(record.attempts_left),
                "redeemed": _bool(record.redeemed),
                **_expiring(record.expires_at.timestamp()),
            }
        )

    async def get(self, login_id: str) -> BootstrapRecord | None:
        item = _live(await self.table.get(self._record(login_id)))
        if item is None:
            return None
        return BootstrapRecord(
            login_id=item["login_id"]["S"],
            account_id=item["account_id"]["S"],
            purpose=item["purpose"]["S"],
            secret_digest=bytes(item["secret_digest"]["B"]),
            created_at=_time(item, "created_at"),
            expires_at=_time(item, "expires_at"),
            attempts_left=int(item["attempts_left"]["N"]),
            redeemed=item["redeemed"]["BOOL"],
        )

    async def spend_attempt(self, login_id: str) -> bool:
        return await self.table.update(
            self._record(login_id),
            "SET attempts_left = attempts_left - :one",
            {":one": _n(1), ":zero": _n(0), ":now": _n(_now()), ":false": _bool(False)},
            f"{_PRESENT} AND attempts_left > :zero AND {self._OPEN}",
        )

    async def redeem(self, login_id: str, enrollment_expires_at: datetime) -> bool:
        record = await self.get(login_id)
        if record is None or record.redeemed:
            return False
        sooner = min(record.expires_at, enrollment_expires_at.astimezone(UTC))
        expiring = _expiring(sooner.timestamp())
        return await self.table.update(
            self._record(login_id),
            f"SET redeemed = :true, expires_at = :at, expires = :expires, {_SET_TTL}",
            {
                ":true": _bool(True),
                ":false": _bool(False),
                ":now": _n(_now()),
                ":at": _iso(sooner),
                ":expires": expiring["expires"],
                f":{TTL_ATTRIBUTE}": expiring[TTL_ATTRIBUTE],
            },
            f"{_PRESENT} AND {self._OPEN}",
        )

    async def enroll(self, login_id: str, credential: PasskeyCredential) -> bool:
        spend = {
            "Delete": {
                "Key": self._record(login_id),
                "ConditionExpression": "redeemed = :true AND expires > :now AND account_id = :a",
                "ExpressionAttributeValues": {
                    ":true": _bool(True),
                    ":now": _n(_now()),
                    ":a": _s(credential.account_id),
                },
            }
        }
        writes = [spend, *_add_passkey(credential)]
        account = _pk(_key("account", credential.account_id))
        if await self.table.get(account) is not None:
            writes.append(
                {
                    "Update": {
                        "Key": account,
                        "UpdateExpression": "SET active = :yes",
                        "ExpressionAttributeValues": {":yes": _bool(True)},
                        "ConditionExpression": _PRESENT,
                    }
                }
            )
        return await self.table.transact(*writes)


async def require_table(table: DynamoTable, key: str = PREFIX_KEY) -> None:
    """Refuse to start unless the table exists and has TTL on :data:`TTL_ATTRIBUTE`."""
    value = table.settings.table_prefix
    try:
        await table.call("describe_table", TableName=table.name)
        ttl = await table.call("describe_time_to_live", TableName=table.name)
    except StoreUnavailable as error:
        if "ResourceNotFoundException" in str(error):
            missing = f"DynamoDB table {table.name} does not exist; {MIGRATE_FIX}"
            raise StartupError(PREFIX_KEY, value, missing) from None
        where = table.settings.endpoint_url or "AWS"
        raise StartupError(key, "dynamo", f"DynamoDB at {where} cannot be reached ({error})") from None
    described = ttl.get("TimeToLiveDescription", {})
    if described.get("TimeToLiveStatus") not in ("ENABLED", "ENABLING") or (
        described.get("AttributeName") != TTL_ATTRIBUTE
    ):
        raise StartupError(
            PREFIX_KEY, value, f"DynamoDB table {table.name} has no TTL on `{TTL_ATTRIBUTE}`; {MIGRATE_FIX}"
        )


async def create_table(settings: DynamoLocation) -> list[str]:
    """Create the table if missing and enable its TTL (``fw migrate``); printable lines."""
    table = DynamoTable(settings)
    lines: list[str] = []
    try:
        try:
            await table.call("describe_table", TableName=table.name)
        except StoreUnavailable as error:
            if "ResourceNotFoundException" not in str(error):
                raise
            await table.call("create_table", TableName=table.name, **TABLE_LAYOUT)
            waiter = (await table.client()).get_waiter("table_exists")
            await waiter.wait(TableName=table.name, WaiterConfig={"Delay": 1, "MaxAttempts": 60})
            lines.append(f"created DynamoDB table {table.name}")
        ttl = await table.call("describe_time_to_live", TableName=table.name)
        if ttl.get("TimeToLiveDescription", {}).get("TimeToLiveStatus") not in ("ENABLED", "ENABLING"):
            await table.call(
                "update_time_to_live",
                TableName=table.name,
                TimeToLiveSpecification={"Enabled": True, "AttributeName": TTL_ATTRIBUTE},
            )
            lines.append(f"enabled TTL on {table.name}.{TTL_ATTRIBUTE}")
    except (StoreUnavailable, *_FAILURES) as error:
        raise StartupError(PREFIX_KEY, settings.table_prefix, f"cannot migrate DynamoDB: {error}") from None
    finally:
        await table.close()
    return [*lines, f"DynamoDB table {table.name} is up to date"]


@dataclass(eq=False)
class DynamoStore:
    """Every auth record in one DynamoDB table for ``[middleware.dynamo]``; each part shares its client."""

    table: DynamoTable
    accounts: DynamoAccounts
    allowlist: DynamoAllowList
    revocations: DynamoRevocations
    ceremonies: DynamoCeremonies
    passkeys: DynamoPasskeys
    bootstrap: DynamoBootstrap
    name: str = "dynamo"

    @classmethod
    def open(cls, settings: DynamoLocation) -> DynamoStore:
        """A store whose client connects on first use (at startup, by :meth:`require`)."""
        table = DynamoTable(settings)
        return cls(
            table,
            DynamoAccounts(table),
            DynamoAllowList(table),
            DynamoRevocations(table),
            DynamoCeremonies(table),
            DynamoPasskeys(table),
            DynamoBootstrap(table),
        )

    async def require(self, kinds: Iterable[str]) -> None:
        """Every kind lives in the one table: it must exist and have TTL enabled."""
        del kinds
        await require_table(self.table, "auth.backend")

    def sessions(self) -> DynamoSessions:
        return DynamoSessions(self.table)

    async def close(self) -> None:
        await self.table.close()


def session_store(settings: DynamoLocation) -> DynamoSessions:
    """Sessions on DynamoDB for an ``auth.backend`` kept elsewhere: its own client, closed with it."""
    return DynamoSessions(DynamoTable(settings), owns_table=True)
