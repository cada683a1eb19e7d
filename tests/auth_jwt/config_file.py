"""The ``[auth]`` and ``[auth.jwt]`` tables of a ``jwt_only`` App configured through its file.

Every test that serves such an App (here, and in tests/operations) trusts a local issuer the
same way, so the tables are written once; what a test varies is passed in, and the rest of its
configuration (stores, observability) is appended by the test.
"""

from __future__ import annotations


def jwt_only_toml(
    issuer: str,
    *,
    revocation: str = "off",
    include: str | None = "/api/",
    auth: str = "",
    jwt: str = "",
) -> str:
    """``jwt_only`` trusting ``issuer`` (its URL) for audience ``api`` with RS256, protecting the
    paths under ``include`` (no ``protection.include`` when None). ``auth`` and ``jwt`` are
    further lines of ``[auth]`` and ``[auth.jwt]``, each ending in a newline."""
    protection = f'protection.include = ["{include}"]\n' if include is not None else ""
    return f"""
[auth]
enabled = true
mode = "jwt_only"
{protection}{auth}
[auth.jwt]
issuer = "{issuer}"
audience = ["api"]
algorithms = ["RS256"]
admission = "authenticated"
max_token_lifetime = "1h"
allow_loopback_http = true
revocation.mode = "{revocation}"
{jwt}"""
