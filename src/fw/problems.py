"""RFC 9457 problem documents and the errors that become them.

Every error fw raises toward a client is a :class:`Problem`; the App renders any uncaught one
with :func:`write_problem`, so handlers never format error bodies by hand and a 5xx never leaks
internal detail. When the request observer runs (:mod:`fw.operations.observer`), every problem
document leaving the App gets a ``request_id`` member on its way out, whoever rendered it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from http import HTTPStatus
from typing import Any, Literal

import msgspec
from starlette.requests import Request
from starlette.responses import Response

from fw.responses import BODILESS, build_plain

Location = Literal["input", "query", "payload", "path", "header", "cookie"]
PROBLEM_MEDIA_TYPE = "application/problem+json"
#: What a 503 tells the client to wait (seconds) when the problem names no ``Retry-After`` itself.
RETRY_AFTER_SECONDS = 5
#: Compact UTF-8 JSON; every rejected request renders one document.
_encode = msgspec.json.Encoder().encode
_PROBLEM_TYPE = (b"content-type", PROBLEM_MEDIA_TYPE.encode("latin-1"))


class ProblemResponse(Response):
    """A problem document already rendered, as ``application/problem+json``.

    Built in one step when it carries no headers of its own, as :class:`fw.JSONResponse` builds
    the usual response (:mod:`fw.responses`): every rejected request answers with one.
    """

    media_type = PROBLEM_MEDIA_TYPE

    def __init__(self, body: bytes, status_code: int, headers: Mapping[str, str] | None = None) -> None:
        if not headers and status_code >= 200 and status_code not in BODILESS:
            build_plain(self, status_code, body, None, _PROBLEM_TYPE)
        else:
            super().__init__(body, status_code, headers)


@dataclass(slots=True)
class FieldError:
    """One rejected field: its wire name, where its value would come from, and why.

    Not frozen: binders build one per rejected value, and a frozen dataclass's ``__init__``
    costs several times as much on that path.
    """

    field: str
    location: Location
    message: str

    def to_dict(self) -> dict[str, str]:
        return {"field": self.field, "location": self.location, "message": self.message}


class Problem(Exception):
    """An error with an HTTP status, rendered as ``application/problem+json``."""

    status: int = 500
    code: str = "internal_error"
    title: str | None = None

    def __init__(
        self,
        detail: str | None = None,
        *,
        status: int | None = None,
        code: str | None = None,
        title: str | None = None,
        errors: Iterable[FieldError] = (),
        headers: Mapping[str, str] | None = None,
    ) -> None:
        if status is not None:
            self.status = status
        if code is not None:
            self.code = code
        self.title = title or self.title or HTTPStatus(self.status).phrase
        self.detail = detail or self.title
        self.errors = list(errors)
        self.headers = dict(headers or {})
        if self.status == 503 and not any(name.lower() == "retry-after" for name in self.headers):
            # Every 503 fw answers says when to try again, to programs and to people alike.
            self.headers["Retry-After"] = str(RETRY_AFTER_SECONDS)
        super().__init__(self.detail)

    def to_dict(self) -> dict[str, Any]:
        document: dict[str, Any] = {
            "type": "about:blank",
            "title": self.title,
            "status": self.status,
            "detail": self.detail,
            "code": self.code,
        }
        if self.errors and self.status < 500:
            document["errors"] = [error.to_dict() for error in self.errors]
        return document

    def response(self) -> Response:
        return ProblemResponse(_encode(self.to_dict()), self.status, self.headers)


class BindError(Problem):
    """Every field a request got wrong, collected into one error (never just the first)."""

    status = 400
    code = "validation_failed"
    title = "Validation failed"
    detail = "Validation failed"

    def __init__(self, errors: Iterable[FieldError]) -> None:
        # Raised for every rejected request: set only what differs from the class, no keyword plumbing.
        self.errors = list(errors)
        self.headers = {}
        Exception.__init__(self, self.detail)

    def __str__(self) -> str:
        return "; ".join(f"{e.field} ({e.location}): {e.message}" for e in self.errors) or self.detail


def field(name: str, location: Location, message: str) -> FieldError:
    """Build one field failure by hand (spec: ``fw.Field``)."""
    return FieldError(name, location, message)


def validation(*fields: FieldError) -> BindError:
    """Build the same error ``fw.parse`` raises, for checks a handler makes itself."""
    return BindError(fields)


def bad_request(err: BaseException | str | None = None) -> Problem:
    """Wrap an error as a 400 problem; a :class:`BindError` keeps its field list."""
    if isinstance(err, BindError):
        return err
    if isinstance(err, Problem) and err.status == 400:
        return err
    detail = str(err) if isinstance(err, str) else None
    return Problem(detail, status=400, code="bad_request")


def problem_from(err: BaseException) -> Problem:
    """Any exception as a problem: fw problems keep their shape, anything else is an opaque 500."""
    if isinstance(err, Problem):
        return err
    return Problem(status=500, code="internal_error")


def write_problem(request: Request | None, err: BaseException) -> Response:
    """Render any problem or error as an RFC 9457 response."""
    return problem_from(err).response()
