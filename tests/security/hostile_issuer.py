"""A loopback issuer whose JWKS endpoint can turn hostile: slow, huge, or redirecting elsewhere.

It is :class:`fw.testing.issuer.LocalIssuer` (discovery, JWKS, minting) with one switch,
``jwks_answer``, flipped by a test after the application under test has loaded its keys, so the
next refetch meets the misbehaviour. Every request is still counted in ``requests``.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator
from typing import Any, Literal

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response, StreamingResponse

from fw.testing.issuer import LocalIssuer

JwksAnswer = Literal["normal", "slow", "huge", "redirect"]

#: How long a "slow" answer stalls at least, unless released (fw's client gives up after 5 s,
#: long before: a test tells the two apart however slow the machine).
STALL_SECONDS = 60.0
#: How much a "huge" answer offers at most before the server stops on its own.
HUGE_BYTES = 64 * 1024 * 1024
_CHUNK = 64 * 1024


class HostileIssuer(LocalIssuer):
    """``LocalIssuer`` whose ``/jwks.json`` answers as ``jwks_answer`` says.

    ``redirect_to`` is where a redirecting answer points; :meth:`release` ends a stall early.
    """

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.jwks_answer: JwksAnswer = "normal"
        self.redirect_to = ""
        self._released = threading.Event()

    def release(self) -> None:
        self._released.set()

    def _answer(self, request: Request, body: dict[str, Any]) -> Response:
        if not request.url.path.endswith("/jwks.json") or self.jwks_answer == "normal":
            return super()._answer(request, body)
        self.requests[request.url.path] += 1
        if self.jwks_answer == "redirect":
            return RedirectResponse(self.redirect_to, status_code=302)
        if self.jwks_answer == "slow":
            return StreamingResponse(self._stall(), media_type="application/json")
        return StreamingResponse(self._endless(), media_type="application/json")

    async def _stall(self) -> AsyncIterator[bytes]:
        waited = 0.0
        while waited < STALL_SECONDS and not self._released.is_set():
            await asyncio.sleep(0.05)
            waited += 0.05
        yield b'{"keys": []}'

    async def _endless(self) -> AsyncIterator[bytes]:
        yield b'{"keys": [], "padding": "'
        for _ in range(HUGE_BYTES // _CHUNK):
            yield b"x" * _CHUNK
        yield b'"}'
