"""``fw doctor``'s look at the identity provider, which serving contacts only at the first sign-in.

An untrusted certificate, an unreachable issuer or a discovery document naming an endpoint fw
must not use would otherwise pass every check and fail the first person who signs in. The probe
fetches what a sign-in fetches first (the discovery document, then the key set) through the same
:class:`~fw.auth.oidc.Provider`, so the same rules hold: bounded answers, no redirects, every
endpoint checked. The whole look is bounded in time as well.
"""

from __future__ import annotations

import asyncio

from fw.auth.oidc import OidcError, Provider
from fw.errors import StartupError

#: How long the whole look may take (each request is bounded by the provider client's timeout too).
PROBE_SECONDS = 30.0


async def probe_provider(provider: Provider, key: str, *, seconds: float = PROBE_SECONDS) -> None:
    """Fetch discovery and the key set now; a :class:`StartupError` naming ``key`` if either fails."""
    try:
        published = await asyncio.wait_for(provider.check(), seconds)
    except OidcError as error:
        refusal = str(error)  # says what failed and where
    except TimeoutError:
        refusal = f"the identity provider did not answer discovery and keys within {seconds:g} s"
    else:
        if published:
            return
        refusal = "the provider's key set has no signature key fw can use: no ID token would verify"
    raise StartupError(key, provider.issuer, refusal)
