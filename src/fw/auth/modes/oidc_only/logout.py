"""``POST logout_path``: the session ends here and, with ``logout_scope = "global"``, at the provider.

Only a same-origin POST signs out (a cross-origin page cannot log people out). The local part
is every browser mode's (:mod:`fw.auth.browser.signout`); what is OIDC's own is the redirect to
the provider's end-session endpoint for a global logout.
"""

from __future__ import annotations

from collections.abc import Callable
from urllib.parse import urlencode, urlsplit

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from fw.auth.browser.origins import Origins
from fw.auth.browser.signout import Farewell, sign_out
from fw.auth.modes.oidc_only.started import Started
from fw.auth.oidc import OidcError
from fw.auth.settings import OidcSettings
from fw.problems import Problem


class OidcLogout:
    """The logout endpoint of ``oidc_only``."""

    def __init__(
        self,
        oidc: OidcSettings,
        origins: Origins,
        started: Callable[[], Started],
        farewell: Farewell | None = None,
    ) -> None:
        self.oidc = oidc
        self.origins = origins
        self.started = started
        self.farewell = farewell

    async def logout(self, request: Request) -> Response:
        if self.origins.cross_origin(request):
            raise Problem("cross-origin logout refused", status=403, code="cross_origin")
        try:
            form = await request.form()
            requested = form.get("scope")
        except Exception:  # an unreadable form (bad multipart...) requests nothing beyond the default
            requested = None
        scope = self.oidc.logout_scope
        if requested == "global" and self.oidc.allow_global_logout_request:
            scope = "global"
        started = self.started()
        cookies = await sign_out(request, started.sessions, self.farewell)
        target = "/"
        if scope == "global":
            target = await self._end_session_url(started, f"{self.origins.public_origin(request)}/")
        response = RedirectResponse(target, status_code=303)
        for cookie in cookies:
            response.headers.append("set-cookie", cookie)
        response.headers["cache-control"] = "no-store"
        return response

    async def _end_session_url(self, started: Started, origin_root: str) -> str:
        """The provider's end-session URL coming back to ``origin_root``; ``/`` when it has none."""
        try:
            metadata = await started.provider.metadata()
            endpoint = metadata.end_session_endpoint
        except OidcError:
            endpoint = ""
        if not endpoint:
            return "/"
        separator = "&" if urlsplit(endpoint).query else "?"
        query = urlencode({"client_id": self.oidc.client_id, "post_logout_redirect_uri": origin_root})
        return f"{endpoint}{separator}{query}"
