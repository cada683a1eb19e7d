"""The registered claims every token fw accepts must satisfy: ``iss``, ``aud``, ``exp``, ``iat``,
``nbf`` and ``sub`` (RFC 7519 4.1), checked in that order.

Access tokens and ID tokens differ only in the parameters of :class:`ClaimRules`; what each
adds (token type and scopes, ``azp`` and ``nonce``) stays with its own policy. A failure is a
:class:`ClaimRejected` naming the claim, so each caller can word it for its audience.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from fw.auth.tokens.errors import ClaimRejected

#: Integers below this magnitude convert to a finite float without an overflow check.
_INT_RANGE = 2**53


@dataclass(frozen=True, slots=True)
class ClaimRules:
    """What one kind of token promises about its registered claims.

    ``leeway`` absorbs clock skew on ``exp``, ``iat`` and ``nbf``; ``max_age`` (seconds, or
    ``None``) refuses a token issued too long ago; ``not_before`` checks ``nbf`` when present;
    ``ignore_trailing_slash`` lets ``iss`` differ from ``issuer`` by a final ``/``.
    """

    issuer: str
    audiences: frozenset[str]
    leeway: float
    max_age: float | None = None
    not_before: bool = True
    ignore_trailing_slash: bool = False


def audiences_of(claims: dict[str, Any]) -> list[Any]:
    """``aud`` as a list: one string, an array, or nothing."""
    aud = claims.get("aud")
    return [aud] if isinstance(aud, str) else aud if isinstance(aud, list) else []


def _names_an_audience(aud: Any, audiences: frozenset[str]) -> bool:
    """True when ``aud`` (one string or an array, see :func:`audiences_of`) names one of ``audiences``.

    A loop rather than ``any`` over a generator: the array form is what most issuers send, and
    this runs on every bearer token verified.
    """
    if isinstance(aud, str):
        return aud in audiences
    if isinstance(aud, list):
        for item in aud:
            if isinstance(item, str) and item in audiences:
                return True
    return False


def numeric_date(claims: dict[str, Any], name: str) -> float:
    """A NumericDate claim as a finite float, or :class:`ClaimRejected` (``malformed``)."""
    value = claims.get(name)
    if type(value) is int and -_INT_RANGE < value < _INT_RANGE:
        return float(value)  # the common case: an ordinary integer, always finite
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ClaimRejected(f"{name} is missing or not a number", claim=name, malformed=True)
    try:
        number = float(value)
    except OverflowError:  # an integer with hundreds of digits
        raise ClaimRejected(f"{name} is out of range", claim=name, malformed=True) from None
    if not math.isfinite(number):
        raise ClaimRejected(f"{name} is out of range", claim=name, malformed=True)
    return number


def check_claims(claims: dict[str, Any], rules: ClaimRules, now: float) -> tuple[float, float]:
    """Check the registered claims at ``now``; returns ``(exp, iat)``."""
    if rules.ignore_trailing_slash:
        same_issuer = str(claims.get("iss", "")).rstrip("/") == rules.issuer.rstrip("/")
    else:
        same_issuer = claims.get("iss") == rules.issuer
    if not same_issuer:
        raise ClaimRejected("iss does not match", claim="iss")
    if not _names_an_audience(claims.get("aud"), rules.audiences):
        raise ClaimRejected("aud does not match", claim="aud")
    leeway = rules.leeway
    exp = claims.get("exp")
    # An ordinary integer (what issuers send) needs no further check; anything else does.
    exp = float(exp) if type(exp) is int and -_INT_RANGE < exp < _INT_RANGE else numeric_date(claims, "exp")
    if now >= exp + leeway:
        raise ClaimRejected("expired", claim="exp")
    iat = claims.get("iat")
    iat = float(iat) if type(iat) is int and -_INT_RANGE < iat < _INT_RANGE else numeric_date(claims, "iat")
    if iat > now + leeway:
        raise ClaimRejected("iat in the future", claim="iat")
    if rules.max_age is not None and iat + rules.max_age < now:
        raise ClaimRejected("iat too long ago", claim="iat")
    if rules.not_before and "nbf" in claims and numeric_date(claims, "nbf") > now + leeway:
        raise ClaimRejected("not yet valid", claim="nbf")
    sub = claims.get("sub")
    if not isinstance(sub, str) or not sub:
        raise ClaimRejected("sub is missing", claim="sub", malformed=True)
    return exp, iat
