"""Browser login with the development identity provider: a public page, a protected page, logout.

Run it from this directory with ``fw dev`` (``[tool.fw.dev.idp] enabled = true`` in its
``pyproject.toml`` starts the provider and injects ``AUTH_OIDC_*``); ``config.dev.toml`` turns
authentication and sessions on and protects ``/account``.
"""

from __future__ import annotations

import html

import fw

app = fw.App()


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
        f"<dt>Issuer</dt><dd id='issuer'>{html.escape(user.issuer)}</dd></dl>{LOGOUT_FORM}",
    )


if __name__ == "__main__":
    fw.run(app)
