"""The ``[auth]`` and ``[auth.jwt]`` tables of the benchmarks' ``jwt_only`` Apps.

Every bearer benchmark trusts a :class:`~fw.testing.issuer.LocalIssuer` the same way; what
differs (revocation, scopes, the token cache) is passed in, the rest of the App's configuration
is appended by each benchmark. tests/auth_jwt/config_file.py writes the same tables for the
tests: benchmarks run without the test suite on the path, so each keeps its own.
"""

from __future__ import annotations


def jwt_only_toml(issuer: str, *, revocation: str = "off", delay: str = "", jwt: str = "") -> str:
    """``jwt_only`` protecting ``/api/``, trusting ``issuer`` for audience ``api`` with RS256;
    ``delay`` is ``revocation.max_propagation_delay`` (fw's default when empty), ``jwt`` holds
    further ``[auth.jwt]`` lines, each ending in a newline."""
    if delay:
        jwt = f'revocation.max_propagation_delay = "{delay}"\n{jwt}'
    return f"""
[auth]
enabled = true
mode = "jwt_only"
protection.include = ["/api/"]

[auth.jwt]
issuer = "{issuer}"
audience = ["api"]
algorithms = ["RS256"]
admission = "authenticated"
max_token_lifetime = "1h"
allow_loopback_http = true
revocation.mode = "{revocation}"
{jwt}"""
