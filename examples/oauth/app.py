"""Sign in with X: a public page, a protected page showing the X profile, logout.

Run it from this directory with ``fw dev`` (``[tool.fw.dev.idp] enabled = true`` in its
``pyproject.toml`` serves the X-shaped stand-in and injects ``AUTH_OAUTH_*``); ``config.dev.toml``
selects ``auth.mode = "oauth_only"`` with ``provider = "x"`` and protects ``/account``. The
application never sees an X token: fw discards it once the profile is read.
"""

from __future__ import annotations

import html

import fw

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
            "Welcome",
            "<p id='status'>You are not signed in.</p><a id='login' href='/auth/login'>Sign in with X</a>",
        )
    return _page(
        "Welcome",
        f"<p id='status'>Signed in as @{html.escape(user.username)}.</p>"
        f"<a id='account' href='/account'>Your account</a>{LOGOUT_FORM}",
    )


@app.route("GET /account")
async def account(request: fw.Request) -> fw.Response:
    user = fw.auth.user(request)
    assert user is not None  # /account is protected: anonymous visitors go through login first
    avatar = (
        f"<img id='avatar' src='{html.escape(user.avatar_url)}' alt='' width='48' height='48'>"
        if user.avatar_url
        else ""
    )
    return _page(
        "Your account",
        f"{avatar}<dl><dt>Name</dt><dd id='name'>{html.escape(user.display_name)}</dd>"
        f"<dt>Username</dt><dd id='username'>@{html.escape(user.username)}</dd>"
        f"<dt>Signed in with</dt><dd id='provider'>{html.escape(user.provider)}</dd></dl>{LOGOUT_FORM}",
    )


if __name__ == "__main__":
    fw.run(app)
