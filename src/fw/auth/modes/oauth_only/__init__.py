"""``auth.mode = "oauth_only"``: sign in at a provider that issues no ID token (``x``).

Composition only, split by job: :mod:`.settings` (startup checks, advisories, what ``fw dev``
injects), :mod:`.login` (login and callback), :mod:`.extension` (startup, wiring, the local
logout) and :mod:`.mode` (the registry's entry). The protocol lives in :mod:`fw.auth.oauth`,
what every browser mode shares in :mod:`fw.auth.browser`.

The mode object is imported with the package (registering the mode needs nothing more);
:class:`OauthOnly`, the extension, on first use, so a project that selects another mode never loads it.
"""

from typing import TYPE_CHECKING, Any

from fw.auth.modes.oauth_only.mode import OAUTH_ONLY, OauthOnlyMode

if TYPE_CHECKING:
    from fw.auth.modes.oauth_only.extension import OauthOnly

__all__ = ["OAUTH_ONLY", "OauthOnly", "OauthOnlyMode"]


# Every mode package repeats these lines on purpose: the lazy import stays an import statement,
# which type checkers and tests/test_architecture.py (it reads imports with ast) see; a shared
# importlib helper would hide the edge from both.
def __getattr__(name: str) -> Any:
    if name == "OauthOnly":
        from fw.auth.modes.oauth_only.extension import OauthOnly

        return OauthOnly
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
