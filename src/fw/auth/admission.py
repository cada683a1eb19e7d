"""Who may pass once the issuer has vouched for them: ``authenticated``, ``claim`` or ``registered``.

Policies over verified claims (``registered`` asks the allow-list store); the browser modes
reuse them with their own settings table (each mode reads only its own ``claim.*`` /
``registered_claims`` keys).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from fw.auth.runtime import auth_for_call
from fw.auth.settings import Claim
from fw.auth.stores.interfaces import AllowListStore

_MISSING = object()


class Admission(Protocol):
    """Decides whether a verified identity may use the application."""

    async def admits(self, issuer: str, claims: Mapping[str, Any]) -> bool: ...


class Everyone:
    """``authenticated``: everyone the issuer verified; touches no store."""

    async def admits(self, issuer: str, claims: Mapping[str, Any]) -> bool:
        return True


def parse_pointer(pointer: str) -> list[str]:
    """RFC 6901 JSON Pointer to reference tokens; raises ``ValueError`` when malformed."""
    if pointer == "":
        return []
    if not pointer.startswith("/"):
        raise ValueError("a JSON Pointer starts with /")
    tokens = pointer[1:].split("/")
    for token in tokens:
        stripped = token.replace("~0", "").replace("~1", "")
        if "~" in stripped:
            raise ValueError("~ must be followed by 0 or 1")
    return [t.replace("~1", "/").replace("~0", "~") for t in tokens]


def resolve(document: Any, tokens: Sequence[str]) -> Any:
    """The value at the pointer, or a sentinel when the path does not exist."""
    current = document
    for token in tokens:
        if isinstance(current, Mapping):
            if token not in current:
                return _MISSING
            current = current[token]
        elif isinstance(current, list):
            if (
                not token.isdigit()
                or (len(token) > 1 and token.startswith("0"))
                or int(token) >= len(current)
            ):
                return _MISSING
            current = current[int(token)]
        else:
            return _MISSING
    return current


def _as_text(value: Any) -> str | None:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str | int | float):
        return str(value)
    return None


def values_at(claims: Mapping[str, Any], tokens: Sequence[str]) -> set[str]:
    """Scalar values at the pointer; an array contributes each scalar element."""
    found = resolve(claims, tokens)
    items = found if isinstance(found, list) else [found]
    return {text for item in items if item is not _MISSING and (text := _as_text(item)) is not None}


@dataclass(frozen=True, slots=True)
class ClaimMatch:
    """``claim``: the value(s) at a JSON Pointer must match ``any`` or ``all`` of the listed values."""

    pointer: str
    values: frozenset[str]
    match_all: bool
    #: The pointer parsed once, here, so no request pays for it.
    tokens: tuple[str, ...] = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "tokens", tuple(parse_pointer(self.pointer)))

    async def admits(self, issuer: str, claims: Mapping[str, Any]) -> bool:
        present = values_at(claims, self.tokens)
        if self.match_all:
            return self.values <= present
        return not self.values.isdisjoint(present)


class Registered:
    """``registered``: passes when any listed claim's value is on the allow-list for the issuer."""

    def __init__(self, allowlist: AllowListStore, claim_names: Sequence[str]) -> None:
        self.allowlist = allowlist
        self.claim_names = tuple(claim_names)

    async def admits(self, issuer: str, claims: Mapping[str, Any]) -> bool:
        pairs = [
            (name, text)
            for name in self.claim_names
            if (text := _as_text(claims.get(name))) is not None and text != ""
        ]
        return await self.allowlist.contains_any(issuer, pairs)


def registered_claim_names(registered_claims: str, identity_claim: str) -> list[str]:
    """``registered_claims`` is a comma- or space-separated list; empty means the identity claim."""
    names = [n for n in registered_claims.replace(",", " ").split() if n]
    return names or [identity_claim]


def admission_problem(
    admission: str, pointer: str, values: Sequence[str], match: str
) -> tuple[str, str] | None:
    """(key suffix, fix) when the admission settings cannot work, else ``None``.

    The values of ``admission`` and ``claim.match`` are typed choices the loader already checked.
    """
    if admission == "claim":
        if not pointer:
            return "claim.path", "admission = claim needs a JSON Pointer such as /groups"
        try:
            parse_pointer(pointer)
        except ValueError as error:
            return "claim.path", f"not a JSON Pointer: {error}"
        if not values:
            return "claim.values", "admission = claim needs at least one accepted value"
    return None


class AdmissionTable(Protocol):
    """The admission keys every mode's own table carries (``[auth.jwt]``, ``[auth.oidc]``)."""

    @property
    def admission(self) -> str: ...
    @property
    def claim(self) -> Claim: ...
    @property
    def registered_claims(self) -> str: ...
    @property
    def identity_claim(self) -> str: ...


def build(table: AdmissionTable, allowlist: AllowListStore | None) -> Admission:
    """The admission policy for validated settings (``allowlist`` is needed only by ``registered``)."""
    if table.admission == "claim":
        claim = table.claim
        return ClaimMatch(claim.path, frozenset(claim.values), claim.match == "all")
    if table.admission == "registered":
        if allowlist is None:
            raise ValueError("admission registered needs the allow-list store")
        return Registered(allowlist, registered_claim_names(table.registered_claims, table.identity_claim))
    return Everyone()


async def allow(issuer: str, claim: str, value: str, note: str = "", *, app: object | None = None) -> None:
    """Put an identity on the allow-list (admission ``registered``); adding twice is harmless.

    Acts on the running App's store (``app=`` names one), or the configured store from a script.
    """
    async with auth_for_call(app) as running:
        await running.store.allowlist.add(issuer, claim, value, note)


async def disallow(issuer: str, claim: str, value: str, *, app: object | None = None) -> bool:
    """Take an identity off the allow-list; returns whether an entry existed."""
    async with auth_for_call(app) as running:
        return await running.store.allowlist.remove(issuer, claim, value)
