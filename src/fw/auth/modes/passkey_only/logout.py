"""``POST logout_path`` in ``passkey_only``: the local session ends; there is no provider to tell.

A POST whose ``Origin`` is not one of ``auth.passkey.origins`` is refused (a page of another
origin cannot sign people out); without ``Origin`` the ``SameSite=Lax`` cookie protects it.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from fw.auth.browser.signout import Farewell, sign_out
from fw.auth.passkeys.live import LiveState
from fw.problems import Problem


class PasskeyLogout:
    def __init__(self, origins: tuple[str, ...], live: LiveState, farewell: Farewell | None = None) -> None:
        self.origins = origins
        self.live = live
        self.farewell = farewell

    def cross_origin(self, request: Request) -> bool:
        """Whether a POST comes from a page that is not one of ``auth.passkey.origins``."""
        origin = request.headers.get("origin")
        return (origin is not None and origin not in self.origins) or request.headers.get(
            "sec-fetch-site"
        ) in ("cross-site", "same-site")

    async def logout(self, request: Request) -> Response:
        if self.cross_origin(request):
            raise Problem("cross-origin logout refused", status=403, code="cross_origin")
        cookies = await sign_out(request, self.live().sessions, self.farewell)
        response = RedirectResponse("/", status_code=303)
        for cookie in cookies:
            response.headers.append("set-cookie", cookie)
        response.headers["cache-control"] = "no-store"
        return response
