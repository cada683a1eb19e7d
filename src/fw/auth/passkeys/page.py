"""``GET auth.login_path`` in ``passkey_only``: the mode's own sign-in page.

Path protection sends an anonymous browser to ``auth.login_path``; in ``passkey_only`` no
provider answers there, so fw serves the page itself: a passkey sign-in button and the first
sign-in with a login ID and one-time secret (a bootstrap credential). The page holds no script
of its own: ``passkey.js`` wires the elements marked ``data-fw-passkey`` and writes fw's message
for any refusal into the ``role="alert"`` element, which assistive technology announces.

The page is the same for everyone, but a sign-in page is never stored (``no-store``): a cached
copy would outlive the attempt it belongs to.
"""

from __future__ import annotations

import html

from starlette.requests import Request
from starlette.responses import Response

from fw.auth.webauthn import SCRIPT_NAME
from fw.page_layout import layout

#: The HTML media type of every page fw serves.
HTML_MEDIA_TYPE = "text/html; charset=utf-8"


def signin_page(passkey_path: str, *, bootstrap: bool) -> bytes:
    """The page's bytes; ``bootstrap`` adds the first sign-in with a one-time secret."""
    script = html.escape(f"{passkey_path.rstrip('/')}/{SCRIPT_NAME}")
    body = [
        "<h1>Sign in</h1>",
        '<p><button type="button" data-fw-passkey="login">Sign in with a passkey</button></p>',
    ]
    if bootstrap:
        body += [
            "<h2>First sign-in</h2>",
            "<p>Enter the login ID and one-time secret you were given, then register a passkey.</p>",
            '<form data-fw-passkey="bootstrap">',
            '<label for="fw-login-id">Login ID</label>',
            '<input id="fw-login-id" name="login_id" autocomplete="username" required>',
            '<label for="fw-secret">One-time secret</label>',
            '<input id="fw-secret" name="secret" type="password" autocomplete="one-time-code" required>',
            '<button type="submit">Register a passkey</button>',
            "</form>",
        ]
    body.append('<p id="fw-passkey-message" role="alert" data-fw-passkey-message></p>')
    return layout("Sign in", "".join(body), head=f'<script src="{script}" defer></script>')


class SignInPage:
    """The endpoint serving :func:`signin_page`, rendered once."""

    def __init__(self, passkey_path: str, *, bootstrap: bool) -> None:
        self.body = signin_page(passkey_path, bootstrap=bootstrap)

    async def serve(self, request: Request) -> Response:
        return Response(self.body, media_type=HTML_MEDIA_TYPE, headers={"cache-control": "no-store"})
