"""``fw.JSONResponse``: Starlette's ``JSONResponse``, the same bytes and errors for less work.

Starlette renders every JSON response with ``json.dumps(content, ensure_ascii=False,
allow_nan=False, indent=None, separators=(",", ":"))``: an encoder object built per response
and the standard library's encoder, together most of what a small handler costs. msgspec writes
byte for byte the same document for content made only of JSON's own Python types, and
:func:`render_json` hands it exactly that content:

* ``dict`` (string keys), ``list`` and ``tuple``, nested up to :data:`MAX_PLAIN_DEPTH` levels;
* ``str`` (msgspec escapes the same characters the same way, for every code point; a lone
  surrogate, which neither can write as UTF-8, is left to Starlette's call to report);
* ``int`` within 64 bits, ``bool`` and ``None``;
* ``float`` zero or with magnitude in [1e-4, 1e16): there ``repr`` writes no exponent, and
  both write the shortest digits that read back as the same float. Outside that range the
  two spell the exponent differently (``1e+16`` against ``1e16``).

Anything else (a float with an exponent, NaN, a larger integer, a subclass, an enum, a key
that is not a string, an object, a cycle) goes to Starlette's own call, so it renders exactly
as before or raises exactly what it raised. A test compares both renderings on generated
content.

Headers are Starlette's own. A response made the way nearly every handler makes one (no
``headers``, no ``media_type``, a status that carries a body) is built in one step instead of
Starlette's ``__init__`` + ``render`` + ``init_headers``: it sets the same public attributes
(``status_code``, ``background``, ``body``, ``raw_headers``) to the same values, in about half
the time. fw owns that step outright because the two objects a handler meets are most of what a
bare route costs over HTTP (``docs/performance.md``). Any other response is built by Starlette's
``__init__``. A test builds both ways on every status, subclass media type and background and
compares every attribute, against whatever Starlette is installed, so a change in Starlette's
constructor fails the suite instead of drifting.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import msgspec
from starlette import responses
from starlette.background import BackgroundTask

#: Deeper content goes to ``json.dumps`` (which also reports a cycle as Starlette did).
MAX_PLAIN_DEPTH = 32
_MIN_INT, _MAX_INT = -(2**63), 2**64 - 1
_encode = msgspec.json.Encoder().encode


def _plain(value: Any, depth: int) -> bool:
    """True when msgspec renders ``value`` exactly as ``json.dumps`` does (see the module)."""
    kind = type(value)
    if kind is str or kind is bool or value is None:
        return True
    if kind is int:
        fits: bool = _MIN_INT <= value <= _MAX_INT
        return fits
    if kind is float:
        written_plainly: bool = value == 0.0 or 1e-4 <= abs(value) < 1e16  # NaN and infinities fail
        return written_plainly
    if depth >= MAX_PLAIN_DEPTH:
        return False
    if kind is dict:
        for key, item in value.items():
            if type(key) is not str:
                return False
            if type(item) is not str and item is not None and not _plain(item, depth + 1):
                return False
        return True
    if kind is list or kind is tuple:
        for item in value:  # noqa: SIM110 - a loop, not all() over a generator's frame per item
            if type(item) is not str and not _plain(item, depth + 1):
                return False
        return True
    return False


def render_json(content: Any) -> bytes:
    """The body Starlette's ``JSONResponse`` renders for ``content``, or the error it raises."""
    if _plain(content, 0):
        try:
            return _encode(content)
        except UnicodeEncodeError:  # a lone surrogate: Starlette's call below raises it in its own words
            pass
    return json.dumps(
        content, ensure_ascii=False, allow_nan=False, indent=None, separators=(",", ":")
    ).encode("utf-8")


#: Statuses that Starlette gives no ``content-length`` (no body); they take Starlette's path.
BODILESS = frozenset({204, 304})
_JSON_TYPE = (b"content-type", b"application/json")


def build_plain(
    response: responses.Response,
    status_code: int,
    body: bytes,
    background: BackgroundTask | None,
    content_type: tuple[bytes, bytes],
) -> None:
    """Leave on ``response`` what Starlette's ``Response.__init__`` leaves for a body already
    rendered, no ``headers`` and no ``media_type``, a status of 200 or more other than 204 and
    304, and a class media type that takes no charset (``content_type`` is its header)."""
    response.status_code = status_code
    response.background = background
    response.body = body
    response.raw_headers = [(b"content-length", b"%d" % len(body)), content_type]


class JSONResponse(responses.JSONResponse):
    """A JSON response, as Starlette's (a subclass of it), rendered by :func:`render_json`."""

    def __init__(
        self,
        content: Any,
        status_code: int = 200,
        headers: Mapping[str, str] | None = None,
        media_type: str | None = None,
        background: BackgroundTask | None = None,
    ) -> None:
        if (
            headers is None
            and media_type is None
            and self.media_type == "application/json"
            and status_code >= 200
            and status_code not in BODILESS
        ):  # the one-step construction (module docstring)
            build_plain(self, status_code, self.render(content), background, _JSON_TYPE)
            return
        super().__init__(content, status_code, headers, media_type, background)

    def render(self, content: Any) -> bytes:
        return render_json(content)
