"""``Cache-Control: no-store`` for every response that depends on the session.

A page rendered for a signed-in person, a sign-in page, or a page whose handler asked who is
signed in (``fw.auth.user``) is different for the next visitor, and for the same browser a minute
later: a cache that keeps it shows a signed-out page after signing in, or one person's page to
another. The browser session middleware marks such requests (:data:`SESSION_DEPENDENT`) and fw
sets ``no-store`` on their answers, whatever looser caching a handler asked for.
"""

from __future__ import annotations

from starlette.datastructures import MutableHeaders

#: A request scope key: present when the answer depends on the session.
SESSION_DEPENDENT = "fw.session_dependent"


def forbid_storing(headers: MutableHeaders) -> None:
    """``Cache-Control: no-store``, unless the handler already forbade storing (its value kept)."""
    current = headers.get("cache-control")
    if current is None or "no-store" not in current.lower():
        headers["cache-control"] = "no-store"
