"""What a guard needs from the running browser mode, handed to it through the request scope.

Guards are plain decorators applied before any App exists, so they cannot hold the mode: the
session middleware of every browser mode records the mode's :class:`AssuranceContext` and the
resumed session in the request scope, and a guard reads them there. A request without a
context (authentication off, or ``jwt_only``) cannot be proved fresh: guards answer 503.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from starlette.requests import HTTPConnection

from fw.auth.assurance.policies import Policies
from fw.auth.sessions.manager import ActiveSession, Sessions, active_session
from fw.auth.settings import AuthSettings
from fw.auth.stores.interfaces import CeremonyStore

CONTEXT_KEY = "fw.auth.assurance"

#: Modes whose provider cannot be asked for a re-proof (no ``max_age``, no ``auth_time``): a
#: confirmation or a zero-width window cannot be honoured there and answers 503.
NO_REPROOF_MODES = frozenset({"oauth_only"})


@dataclass(frozen=True, slots=True)
class AssuranceContext:
    """One running browser mode as its guards see it."""

    mode: str
    policies: Policies
    login_path: str
    #: ``auth.protection.unauthenticated``: what an anonymous request to a guarded handler gets.
    unauthenticated: str
    #: Where a step-up asked for by an unsafe request (a POST) lands: only GET can be resumed.
    post_login_path: str
    #: The ``auth.backend`` ceremony store (zero-window grants); a 503 before startup.
    ceremonies: Callable[[], CeremonyStore]
    sessions: Callable[[], Sessions]

    @property
    def reproof(self) -> bool:
        """Whether this mode can ask for a re-proof (step-up), or only for a new login."""
        return self.mode not in NO_REPROOF_MODES


def context_of(request: HTTPConnection) -> AssuranceContext | None:
    found = request.scope.get(CONTEXT_KEY)
    return found if isinstance(found, AssuranceContext) else None


def session_of(request: HTTPConnection) -> ActiveSession | None:
    """The session the middleware resumed for this request (``None``: anonymous)."""
    return active_session(request.scope)


def build_context(
    auth: AuthSettings, sessions: Callable[[], Sessions], ceremonies: Callable[[], CeremonyStore]
) -> AssuranceContext:
    """The context of a browser mode configured by ``auth`` (its policies checked at startup)."""
    return AssuranceContext(
        mode=auth.mode,
        policies=Policies.from_settings(auth.assurance.policy),
        login_path=auth.login_path,
        unauthenticated=auth.protection.unauthenticated,
        post_login_path=auth.post_login_path,
        ceremonies=ceremonies,
        sessions=sessions,
    )
