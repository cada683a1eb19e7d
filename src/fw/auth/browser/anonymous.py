"""What an anonymous request gets where a session is required: path protection's answer.

Written once, because the session middleware (protected paths) and the assurance guards
(guarded handlers) must answer an anonymous browser the same way.
"""

from __future__ import annotations

from urllib.parse import quote, urlencode

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from fw.problems import Problem


def refuse_anonymous(request: Request, login_path: str, unauthenticated: str) -> Response:
    """401 ``unauthorized`` or a redirect through login that returns to the requested path."""
    if unauthenticated == "unauthorized":
        return Problem("sign-in required", status=401, code="unauthorized").response()
    target = request.url.path
    if request.url.query:
        target = f"{target}?{request.url.query}"
    location = f"{login_path}?{urlencode({'next': target}, quote_via=quote)}"
    status = 302 if request.method in ("GET", "HEAD") else 303
    return RedirectResponse(location, status_code=status)
