"""The broken answers the stand-in's own-user lookup gives when a test asks for one.

Each is what X (or a proxy in front of it) can really send back: a problem document, a rate
limit with its reset time, an outage, a profile with a piece missing, empty or of the wrong
type, a body that is not an object, an HTML page (with a 200 or a proxy's 5xx), or far more
bytes than any profile needs.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator

from starlette.responses import HTMLResponse, Response, StreamingResponse

from fw.devidp.x.model import LookupFailure, XUser
from fw.responses import JSONResponse

#: Bytes of the "oversized" answer: well above any bound a client puts on a profile.
OVERSIZED_BYTES = 2 * 1024 * 1024

_TITLES = {
    401: "Unauthorized",
    403: "Forbidden",
    429: "Too Many Requests",
    500: "Internal Server Error",
    502: "Bad Gateway",
    503: "Service Unavailable",
    504: "Gateway Timeout",
}


def problem(status: int, headers: dict[str, str] | None = None) -> JSONResponse:
    """X's RFC 7807 problem document for ``status``."""
    title = _TITLES.get(status, "Error")
    return JSONResponse(
        {"title": title, "type": "about:blank", "status": status, "detail": title},
        status_code=status,
        headers=headers,
        media_type="application/problem+json",
    )


async def _padding(size: int) -> AsyncIterator[bytes]:
    chunk = b" " * 65536
    yield b'{"data":{"id":"1","name":"'
    sent = 0
    while sent < size:
        yield chunk
        sent += len(chunk)
    yield b'","username":"padded"}}'


def failed_lookup(
    failure: LookupFailure, status: int, reset_after: int, user: XUser, profile: dict[str, str]
) -> Response:
    """The answer for ``failure``; ``profile`` is what a good answer's ``data`` would have been.

    ``status`` is the 5xx of the two server failures, ``reset_after`` the seconds to a rate
    limit's reset.
    """
    if failure == "unauthorized":
        return problem(401)
    if failure == "forbidden":
        return problem(403)
    if failure == "rate_limited":
        reset = str(int(time.time()) + reset_after)
        limits = {"x-rate-limit-limit": "75", "x-rate-limit-remaining": "0", "x-rate-limit-reset": reset}
        return problem(429, limits)
    if failure == "server_error":
        return problem(status)
    if failure == "missing_data":
        error = {
            "title": "Not Found Error",
            "type": "https://api.x.com/2/problems/resource-not-found",
            "detail": "Could not find the authenticated user.",
        }
        return JSONResponse({"errors": [error]})
    if failure == "missing_id":
        return JSONResponse({"data": {k: v for k, v in profile.items() if k != "id"}})
    if failure == "numeric_id":
        return JSONResponse({"data": {**profile, "id": int(user.id) if user.id.isdigit() else 1}})
    if failure == "empty_id":
        return JSONResponse({"data": {**profile, "id": ""}})
    if failure == "not_an_object":
        return JSONResponse([profile])
    if failure in ("html", "proxy_error"):
        page = "<!doctype html><html><body><h1>Something went wrong</h1></body></html>"
        return HTMLResponse(page, status_code=status if failure == "proxy_error" else 200)
    return StreamingResponse(_padding(OVERSIZED_BYTES), media_type="application/json")
