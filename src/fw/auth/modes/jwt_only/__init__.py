"""``auth.mode = "jwt_only"``: bearer access tokens verified on every request, no browser session.

Composition only: discovery, the JWKS cache and the verifier come from :mod:`fw.auth.jwt`,
admission and revocation from their modules, path rules from :mod:`fw.auth.protection`.
"""

from fw.auth.modes.jwt_only.extension import JwtOnly
from fw.auth.modes.jwt_only.mode import JWT_ONLY, JwtOnlyMode

__all__ = ["JWT_ONLY", "JwtOnly", "JwtOnlyMode"]
