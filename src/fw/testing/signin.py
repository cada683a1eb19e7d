"""``SignInFailed``: a test's sign-in that did not sign anyone in stops the test at that line.

:meth:`fw.testing.BrowserClient.login` follows a whole sign-in and used to hand back whatever
page it ended on; a refused sign-in then surfaced later as an unrelated assert (a 401 on
``/me``). A sign-in has failed when the flow stops at the provider's origin (its user picker,
when no user was preset, or its error page) or ends in an error status (4xx or 5xx) before the
application's callback sent the browser on to the landing page. The exception carries what a
person needs to see why: the status, the final URL and the answer itself, the problem document
(RFC 9457) when the answer is one.
"""

from __future__ import annotations

import json
from typing import Any

import httpx2

#: How much of an answer that is not a problem document the message quotes.
_EXCERPT = 300


def _problem(response: httpx2.Response) -> dict[str, Any] | None:
    """The answer's JSON object when it is a problem document or other JSON, else ``None``."""
    media_type = response.headers.get("content-type", "").partition(";")[0].strip().lower()
    if media_type not in ("application/problem+json", "application/json"):
        return None
    try:
        document = json.loads(response.content)
    except ValueError:
        return None
    return document if isinstance(document, dict) else None


class SignInFailed(Exception):
    """A sign-in through :meth:`fw.testing.BrowserClient.login` ended without signing anyone in.

    ``status`` and ``url`` are the last answer's; ``problem`` is its JSON problem document (or
    ``None``), ``text`` its body, ``response`` the whole :class:`httpx2.Response`. A test that
    asserts on the failure itself passes ``allow_failure=True`` to ``login()`` instead.
    """

    def __init__(self, response: httpx2.Response, why: str) -> None:
        self.response = response
        self.status = response.status_code
        self.url = str(response.url)
        self.problem = _problem(response)
        self.text = response.text
        super().__init__(
            f"sign-in failed: {why}; the last answer was {self.status} from {self.url}: {self._answer()}"
        )

    def _answer(self) -> str:
        if self.problem is not None:
            shown = {key: self.problem[key] for key in ("title", "detail", "code") if key in self.problem}
            return json.dumps(shown or self.problem, ensure_ascii=False)
        text = " ".join(self.text.split())
        return repr(text[:_EXCERPT] + ("..." if len(text) > _EXCERPT else "")) if text else "(empty body)"


def _at(response: httpx2.Response, origin: str) -> bool:
    url = str(response.url)
    return url == origin or url.startswith(origin + "/")


def _landed(response: httpx2.Response, origin: str) -> bool:
    """Whether ``response`` is the landing page: the application redirected there after the
    provider sent the browser back (the callback's redirect), so the sign-in itself completed and
    the page's own status (a 404 for an application without ``/``) is the page's business."""
    history = response.history
    return (
        len(history) >= 2
        and not _at(history[-1], origin)
        and history[-1].is_redirect
        and any(_at(earlier, origin) for earlier in history[:-1])
    )


def check_signed_in(response: httpx2.Response, provider_origin: str | None) -> httpx2.Response:
    """``response`` when the sign-in it ends completed, else raise :class:`SignInFailed`.

    ``provider_origin`` is ``None`` when the provider shares the application's origin; then
    only the status tells, as it does when the flow ends without passing the provider.
    """
    origin = None if provider_origin is None else provider_origin.rstrip("/")
    if origin is not None and _at(response, origin):
        raise SignInFailed(
            response,
            "the flow stopped at the provider (no user preset? pass one: client.login('alice'))",
        )
    if response.status_code >= 400 and not (origin is not None and _landed(response, origin)):
        raise SignInFailed(response, f"the flow ended in {response.status_code} {response.reason_phrase}")
    return response
