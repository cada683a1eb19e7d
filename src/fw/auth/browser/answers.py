"""The 503 answers every browser endpoint shares, so each outage reads the same everywhere."""

from __future__ import annotations

from fw.problems import Problem


def unavailable(what: str) -> Problem:
    """A store (``"session store"``, ``"account store"``) that cannot answer right now."""
    return Problem(f"the {what} cannot answer right now", status=503, code="unavailable")


def not_started() -> Problem:
    """A request reaching a mode whose startup has not completed (or was undone by shutdown)."""
    return Problem("authentication is not started", status=503, code="unavailable")


def login_failed(detail: str, status: int = 400, code: str = "login_failed") -> Problem:
    """A sign-in that ends without a session; the browser may start again."""
    return Problem(detail, status=status, code=code, title="Sign-in failed")


def not_admitted() -> Problem:
    """A verified identity the application does not let in (admission, or an inactive account)."""
    return login_failed("this identity is not admitted to the application", status=403, code="not_admitted")


def provider_unavailable() -> Problem:
    """The provider cannot be reached (or failed) while a browser waits for it."""
    return Problem("the identity provider cannot be reached", status=503, code="provider_unavailable")
