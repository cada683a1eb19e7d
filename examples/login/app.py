"""Browser login with the development identity provider: a public page, a protected page, logout,
and two operations that need a recent proof of identity.

Run it from this directory with ``fw dev`` (``[tool.fw.dev.idp] enabled = true`` in its
``pyproject.toml`` starts the provider and injects ``AUTH_OIDC_*``); ``config.dev.toml`` turns
authentication and sessions on and protects ``/account``.

Assurance (docs/assurance.md): the settings page needs a proof at most five minutes old (the
sign-in counts); deleting the account needs a confirmation asked for this very attempt
(``confirmed(timedelta(0))``): the browser re-proves at the provider, comes back to the settings
page (a POST cannot be resumed after a redirect) and presses the button once more.
"""

from __future__ import annotations

import html
from datetime import timedelta

import fw
from fw.auth.accounts import set_account_active

app = fw.App()


# Kept whole: each example is read and run on its own (`fw dev` in its folder), so it shares no code.
def _page(title: str, body: str) -> fw.HTMLResponse:
    return fw.HTMLResponse(
        f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title></head>"
        f"<body><h1>{html.escape(title)}</h1>{body}</body></html>"
    )


LOGOUT_FORM = (
    "<form method='post' action='/auth/logout'><button type='submit' id='logout'>Sign out</button></form>"
)


@app.route("GET /{$}")
async def home(request: fw.Request) -> fw.Response:
    user = fw.auth.user(request)
    if user is None:
        return _page(
            "Welcome", "<p id='status'>You are not signed in.</p><a id='login' href='/auth/login'>Sign in</a>"
        )
    name = html.escape(user.display_name or user.key)
    return _page(
        "Welcome",
        f"<p id='status'>Signed in as {name}.</p>"
        f"<a id='account' href='/account'>Your account</a>{LOGOUT_FORM}",
    )


@app.route("GET /account")
async def account(request: fw.Request) -> fw.Response:
    user = fw.auth.user(request)
    assert user is not None  # /account is protected: anonymous visitors go through login first
    return _page(
        "Your account",
        f"<dl><dt>Name</dt><dd id='name'>{html.escape(user.display_name)}</dd>"
        f"<dt>E-mail</dt><dd id='email'>{html.escape(user.email)}</dd>"
        f"<dt>Issuer</dt><dd id='issuer'>{html.escape(user.issuer)}</dd></dl>"
        f"<a id='settings' href='/settings'>Settings</a>{LOGOUT_FORM}",
    )


@app.route("GET /settings")
@fw.auth.ensure(fw.auth.max_age(timedelta(minutes=5)))
async def settings(request: fw.Request) -> fw.Response:
    """Readable with a proof at most five minutes old; an older session re-proves first."""
    user = fw.auth.user(request)
    assert user is not None  # a guard lets only signed-in browsers through
    return _page(
        "Settings",
        f"<p id='who'>{html.escape(user.display_name or user.key)}</p>"
        "<form method='post' action='/account/delete'>"
        "<button type='submit' id='delete'>Delete my account</button></form>"
        "<p>Deleting asks you to prove who you are again, then to press the button once more.</p>",
    )


@app.route("POST /account/delete")
@fw.auth.ensure(fw.auth.confirmed(timedelta(0)))
async def delete_account(request: fw.Request) -> fw.Response:
    """Closes the account: only right after a re-proof asked for this attempt, and only once."""
    user = fw.auth.user(request)
    assert user is not None
    await set_account_active(user.account_id, False)  # its sessions end at their next request
    return _page("Account deleted", "<p id='deleted'>Your account is closed.</p><a href='/'>Home</a>")


if __name__ == "__main__":
    fw.run(app)
