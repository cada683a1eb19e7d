"""``auth.mode = "jwt_only"``: bearer access tokens verified on every request, no browser session.

Composition only: discovery, the JWKS cache and the verifier come from :mod:`fw.auth.jwt`,
admission and revocation from their modules, path rules from :mod:`fw.auth.protection`.

The mode object is imported with the package (registering the mode needs nothing more);
:class:`JwtOnly`, the extension, on first use, so a project that selects another mode never loads it.
"""

from typing import TYPE_CHECKING, Any

from fw.auth.modes.jwt_only.mode import JWT_ONLY, JwtOnlyMode

if TYPE_CHECKING:
    from fw.auth.modes.jwt_only.extension import JwtOnly

__all__ = ["JWT_ONLY", "JwtOnly", "JwtOnlyMode"]


# Every mode package repeats these lines on purpose: the lazy import stays an import statement,
# which type checkers and tests/test_architecture.py (it reads imports with ast) see; a shared
# importlib helper would hide the edge from both.
def __getattr__(name: str) -> Any:
    if name == "JwtOnly":
        from fw.auth.modes.jwt_only.extension import JwtOnly

        return JwtOnly
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
