"""``auth.mode = "oidc_only"``: sign in with an OpenID provider, keep a browser session.

Composition only, split by job: :mod:`.settings` (startup checks, advisories, what ``fw dev``
injects), :mod:`.login` (login and callback), :mod:`.logout`, :mod:`.extension` (startup and
wiring) and :mod:`.mode` (the registry's entry). The protocol lives in :mod:`fw.auth.oidc`,
sessions in :mod:`fw.auth.sessions`, what every browser mode shares in :mod:`fw.auth.browser`.

The mode object is imported with the package (registering the mode needs nothing more);
:class:`OidcOnly`, the extension, on first use, so a project that selects another mode never loads it.
"""

from typing import TYPE_CHECKING, Any

from fw.auth.modes.oidc_only.mode import OIDC_ONLY, OidcOnlyMode

if TYPE_CHECKING:
    from fw.auth.modes.oidc_only.extension import OidcOnly

__all__ = ["OIDC_ONLY", "OidcOnly", "OidcOnlyMode"]


# Every mode package repeats these lines on purpose: the lazy import stays an import statement,
# which type checkers and tests/test_architecture.py (it reads imports with ast) see; a shared
# importlib helper would hide the edge from both.
def __getattr__(name: str) -> Any:
    if name == "OidcOnly":
        from fw.auth.modes.oidc_only.extension import OidcOnly

        return OidcOnly
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
