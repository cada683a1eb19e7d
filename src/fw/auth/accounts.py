"""The seams between a verified identity and the application's accounts.

``set_account_resolver(fn)`` maps a verified identity to an account (creating one when
``identity.create`` is true); ``set_account_lookup(fn)`` answers "does this account still exist,
and is it active?" when a session is re-read. Both may be sync or async. Without them fw uses
its own account store. The link is always (issuer, identity-claim value), never e-mail.

Seams belong to an App: called with ``app=`` they are that App's own, kept on the App
(:mod:`fw.configuration.owner`); called without, they set the process default every App uses
unless it has its own. Each running App keeps its own re-read clock (:class:`AccountSeams`).
"""

from __future__ import annotations

import inspect
import time
import weakref
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeAlias

from fw.auth.runtime import auth_for_call
from fw.auth.stores.errors import StoreUnavailable
from fw.auth.stores.interfaces import AccountStore
from fw.auth.stores.records import AccountLink, StoredAccount
from fw.configuration.owner import Owned, Slot, owned

#: A logged-in request re-reads its account at most this often (seconds), per account and App.
REREAD_INTERVAL = 30.0


@dataclass(frozen=True)
class Identity:
    """A verified identity: issuer, the identity claim's name and value, and every verified claim."""

    issuer: str
    claim: str
    value: str
    claims: dict[str, Any] = field(default_factory=dict)
    #: True when the resolver may create an account for an unknown identity (auto_provision).
    create: bool = True

    @property
    def display_name(self) -> str:
        for name in ("name", "preferred_username", "nickname"):
            value = self.claims.get(name)
            if isinstance(value, str) and value:
                return value
        return ""

    @property
    def email(self) -> str:
        value = self.claims.get("email")
        return value if isinstance(value, str) else ""


@dataclass(frozen=True)
class Account:
    """An application account as fw sees it. ``active = False`` ends its sessions (suspension)."""

    account_id: str
    display_name: str = ""
    email: str = ""
    active: bool = True


Resolver: TypeAlias = Callable[[Identity], Account | Awaitable[Account | None] | None]
Lookup: TypeAlias = Callable[[str], Account | Awaitable[Account | None] | None]


@dataclass
class _Seams:
    resolver: Resolver | None = None
    lookup: Lookup | None = None


#: What ``set_account_resolver(fn)`` / ``set_account_lookup(fn)`` set without ``app=``.
_process = _Seams()
#: Seams an App was given with ``app=``, on the App; they take precedence over the process default.
_OWN = Slot("account seams", _Seams)
#: Counts the changes to any seam, so an :class:`AccountSeams` can keep what it derived from them.
_changes = 0


def _target(app: object | None) -> _Seams:
    return _process if app is None else owned(app).get(_OWN)


def set_account_resolver(fn: Resolver | None, *, app: object | None = None) -> None:
    """Map verified identities to accounts; return ``None`` to refuse the identity.

    Without ``app=`` it is the process default; with it, that App's own (``None`` falls back to
    the default again).
    """
    global _changes
    _target(app).resolver = fn
    _changes += 1


def set_account_lookup(fn: Lookup | None, *, app: object | None = None) -> None:
    """Look an account up by id; return ``None`` when it was deleted, or an inactive account."""
    global _changes
    _target(app).lookup = fn
    _changes += 1


def forget_account(account_id: str, *, app: object | None = None) -> None:
    """Make the next request of this account re-read it (for example right after suspending it).

    Without ``app=`` every App of this process forgets it.
    """
    for seams in list(_live):
        if app is None or seams.app is app:
            seams.forget(account_id)


async def _call(fn: Callable[[Any], Any], argument: Any) -> Account | None:
    try:
        result = fn(argument)
        if inspect.isawaitable(result):
            result = await result
    except StoreUnavailable:
        raise
    except Exception as error:
        raise StoreUnavailable(f"{type(error).__name__}: {error}") from error
    if result is not None and not isinstance(result, Account):
        raise TypeError(f"an account resolver or lookup must return fw.auth.Account or None, not {result!r}")
    return result


class DefaultAccounts(Protocol):
    """Where accounts come from when the application registered no seams."""

    async def resolve(self, identity: Identity) -> Account | None: ...

    async def lookup(self, account_id: str) -> Account | None: ...


def _account(stored: StoredAccount | None) -> Account | None:
    if stored is None:
        return None
    return Account(stored.account_id, stored.display_name, stored.email, stored.active)


class StoredAccounts:
    """fw's own account store: the link is created on first sign-in, names refreshed at each."""

    def __init__(self, store: AccountStore) -> None:
        self.store = store

    async def resolve(self, identity: Identity) -> Account | None:
        link = AccountLink(identity.issuer, identity.value, identity.display_name, identity.email)
        return _account(await self.store.resolve(link, create=identity.create))

    async def lookup(self, account_id: str) -> Account | None:
        return _account(await self.store.get(account_id))


class ClaimIsTheAccount:
    """Without an application resolver the account is the identity claim's value (``jwt_only``).

    The authorization server owns the accounts there, so fw keeps none; an application that
    maps callers to local accounts registers ``fw.auth.set_account_resolver``.
    """

    async def resolve(self, identity: Identity) -> Account | None:
        return Account(identity.value, identity.display_name, identity.email)

    async def lookup(self, account_id: str) -> Account | None:
        return Account(account_id)


class AccountSeams:
    """The account seams one App uses, and its re-read clock.

    The seams are read at each call, so one registered after the App started applies at once.
    ``default`` is what the mode provides when the application registered none (fw's own
    store, or the identity claim), attached at startup.
    """

    def __init__(self, app: object | None = None, default: DefaultAccounts | None = None) -> None:
        self.app = app
        self._owned: Owned | None = owned(app) if app is not None else None
        self.default = default
        self._last_read: dict[str, float] = {}
        #: What :meth:`claim_is_the_account` last answered, for which seam changes and default.
        self._claim_answer: tuple[int, DefaultAccounts | None, bool] = (-1, None, False)
        _live.add(self)

    def claim_is_the_account(self) -> bool:
        """True when the account is the identity claim's value, active (:class:`ClaimIsTheAccount`).

        That is when no application resolver is registered and the mode's default is the claim;
        a bearer request then needs no account object. Asked on every such request, so the
        answer is kept until a seam or the default changes.
        """
        changes, default, answer = self._claim_answer
        if changes != _changes or default is not self.default:
            answer = self.resolver is None and isinstance(self.default, ClaimIsTheAccount)
            self._claim_answer = (_changes, self.default, answer)
        return answer

    @property
    def resolver(self) -> Resolver | None:
        own = self._owned.peek(_OWN) if self._owned is not None else None
        return own.resolver if own is not None and own.resolver is not None else _process.resolver

    @property
    def lookup_seam(self) -> Lookup | None:
        own = self._owned.peek(_OWN) if self._owned is not None else None
        return own.lookup if own is not None and own.lookup is not None else _process.lookup

    async def resolve(self, identity: Identity) -> Account | None:
        """The account for a verified identity, through the registered resolver or the default."""
        resolver = self.resolver
        if resolver is not None:
            return await _call(resolver, identity)
        if self.default is None:
            raise StoreUnavailable("no account resolver is registered and no account store is configured")
        return await self.default.resolve(identity)

    async def lookup(self, account_id: str) -> Account | None:
        lookup = self.lookup_seam
        if lookup is not None:
            return await _call(lookup, account_id)
        if self.resolver is not None:
            # An application resolver without a lookup: nothing to re-read, the session summary stands.
            return Account(account_id)
        if self.default is None:
            raise StoreUnavailable("no account lookup is registered and no account store is configured")
        return await self.default.lookup(account_id)

    def reread_due(self, account_id: str) -> bool:
        last = self._last_read.get(account_id)
        return last is None or time.monotonic() - last >= REREAD_INTERVAL

    def mark_read(self, account_id: str, now: float | None = None) -> None:
        """Record a re-read at ``now`` (default: the present); a future ``now`` postpones the next one."""
        self._last_read[account_id] = now if now is not None else time.monotonic()

    def forget(self, account_id: str) -> None:
        self._last_read.pop(account_id, None)


#: The seams of every App alive in this process, so ``forget_account`` reaches them all.
_live: weakref.WeakSet[AccountSeams] = weakref.WeakSet()


async def set_account_active(account_id: str, active: bool, *, app: object | None = None) -> bool:
    """Suspend (``False``) or reinstate (``True``) an account of fw's own store.

    Acts on the running App's store (or the configured one from a script); this process's
    sessions notice at their next request, other processes' at their next re-read. Whether the
    account exists.
    """
    async with auth_for_call(app) as running:
        found = await running.store.accounts.set_active(account_id, active)
    forget_account(account_id, app=app)
    return found
