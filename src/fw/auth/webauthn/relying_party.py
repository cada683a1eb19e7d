"""Who the relying party is: its RP ID, its name, the origins it serves and how much it asks of
the user. A value, not a setting: configuration builds one and checks it with
:func:`relying_party_problems`, so a wrong RP ID or origin stops startup instead of failing every
ceremony later (browsers refuse an IP-literal RP ID, and a ``clientDataJSON`` origin written with
its default port or a path never equals the browser's serialization).
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass
from typing import Literal, get_args
from urllib.parse import urlsplit

UserVerification = Literal["required", "preferred", "discouraged"]
USER_VERIFICATION_VALUES: tuple[str, ...] = get_args(UserVerification)

_LABEL = re.compile(r"[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?")
_DEFAULT_PORTS = {"https": 443, "http": 80}


@dataclass(frozen=True, slots=True)
class RelyingParty:
    """The relying party of every ceremony: ``rp_id`` is hashed into authenticator data,
    ``origins`` are the exact ``clientDataJSON`` origins accepted, ``user_verification`` is both
    what the options ask for and, when ``"required"``, what verification insists on."""

    rp_id: str
    rp_name: str
    origins: tuple[str, ...]
    user_verification: UserVerification = "required"

    @property
    def requires_user_verification(self) -> bool:
        return self.user_verification == "required"


@dataclass(frozen=True, slots=True)
class RelyingPartyProblem:
    """One broken rule: the field (``rp_id``, ``rp_name``, ``origins``, ``user_verification``) and
    the fix, so configuration can name its own key (``auth.passkey.<field>``)."""

    field: str
    message: str


def relying_party_problems(party: RelyingParty) -> list[RelyingPartyProblem]:
    """Every rule ``party`` breaks; empty when ceremonies can work with it."""
    rp_id_problems = _rp_id_problems(party.rp_id)
    problems = [RelyingPartyProblem("rp_id", m) for m in rp_id_problems]
    if not party.rp_name.strip():
        problems.append(RelyingPartyProblem("rp_name", "must name the service (authenticators show it)"))
    if not party.origins:
        problems.append(RelyingPartyProblem("origins", "needs at least one origin, e.g. https://example.com"))
    if not rp_id_problems:  # origins are judged against the RP ID, so only against a valid one
        problems += [
            RelyingPartyProblem("origins", m) for o in party.origins for m in _origin_problems(o, party.rp_id)
        ]
    if party.user_verification not in USER_VERIFICATION_VALUES:
        problems.append(
            RelyingPartyProblem(
                "user_verification",
                f"{party.user_verification!r} is not one of {', '.join(USER_VERIFICATION_VALUES)}",
            )
        )
    return problems


def _rp_id_problems(rp_id: str) -> list[str]:
    if _is_ip_literal(rp_id):
        return [f"{rp_id!r} is an IP address; an RP ID must be a domain (example.com, localhost)"]
    labels = rp_id.split(".")
    if len(rp_id) > 253 or not all(_LABEL.fullmatch(label) for label in labels):
        return [f"{rp_id!r} is not a lower-case domain name (example.com, localhost)"]
    if labels[-1].isdigit():
        return [f"{rp_id!r} ends in a numeric label; an RP ID must be a domain, not an address"]
    return []


def _is_ip_literal(host: str) -> bool:
    try:
        ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return False
    return True


def _origin_problems(origin: str, rp_id: str) -> list[str]:
    try:
        parts = urlsplit(origin)
        port = parts.port
    except ValueError:
        return [f"{origin!r} is not a URL origin"]
    host = parts.hostname or ""
    if origin != origin.lower():
        return [f"{origin!r} must be written in lower case, as browsers serialize origins"]
    if origin != f"{parts.scheme}://{host}" + ("" if port is None else f":{port}"):
        return [f"{origin!r} must be a bare scheme://host[:port] (no path, query, user or trailing slash)"]
    if port is not None and _DEFAULT_PORTS.get(parts.scheme) == port:
        return [f"{origin!r} names the default port; browsers omit it, write {parts.scheme}://{host}"]
    if parts.scheme == "http":
        if host != "localhost" and not host.endswith(".localhost"):
            return [f"{origin!r} uses http, which only localhost and *.localhost may use; use https"]
    elif parts.scheme != "https":
        return [f"{origin!r} must use https (http only for localhost)"]
    if host != rp_id and not host.endswith("." + rp_id):
        return [f"{origin!r} is not {rp_id!r} or under it, so its browser would refuse that RP ID"]
    return []
