"""The 503 answers every browser endpoint shares, so each outage reads the same everywhere."""

from __future__ import annotations

from fw.problems import Problem


def unavailable(what: str) -> Problem:
    """A store (``"session store"``, ``"account store"``) that cannot answer right now."""
    return Problem(f"the {what} cannot answer right now", status=503, code="unavailable")


def not_started() -> Problem:
    """A request reaching a mode whose startup has not completed (or was undone by shutdown)."""
    return Problem("authentication is not started", status=503, code="unavailable")
