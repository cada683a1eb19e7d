"""Passkeys: sign in without a password, register and remove passkeys, sign out.

Two configurations of one app, both run from this directory with ``fw dev``:

* ``config.dev.toml`` (``oidc_passkey``): sign in once at the development identity provider
  (``fw dev`` starts it and injects ``AUTH_OIDC_*``), register a passkey on the home page, and from
  then on sign in with the passkey alone. The provider stays the recovery route.
* ``config.passkey_only.toml`` (``passkey_only``, ``fw dev --config-path config.passkey_only.toml``):
  no provider at all. An administrator runs ``python admin.py issue ada --config-path
  config.passkey_only.toml``, hands the printed login ID and secret over, and the person enters
  them on ``/enroll`` to register their first passkey.

Every ceremony runs in the browser through ``passkey.js``, which fw serves under
``auth.passkey.path``; the pages only call ``fwPasskey.login()``, ``register()`` and
``bootstrap(loginId, secret)``.
"""

from __future__ import annotations

import html
from datetime import datetime

import fw
from fw.auth.settings import AuthSettings

app = fw.App()

#: Shows what a refused ceremony said (the problem document passkey.js rejects with).
SCRIPTS = """<script src='/auth/passkey/passkey.js'></script>
<script>
function say(error) {
  var text = error && (error.detail || error.title || error.message);
  document.getElementById('message').textContent = text || String(error);
}
</script>"""

# Kept whole: each example is read and run on its own (`fw dev` in its folder), so it shares no code.
LOGOUT_FORM = (
    "<form method='post' action='/auth/logout'><button type='submit' id='logout'>Sign out</button></form>"
)
PASSKEY_LOGIN = (
    "<button id='passkey-login' onclick=\"fwPasskey.login()"
    '.then(function (done) { location.assign(done.landing); }, say)">Sign in with a passkey</button>'
)
REGISTER = (
    "<button id='register' onclick=\"fwPasskey.register()"
    ".then(function () { location.assign('/settings'); }, say)\">Register a passkey</button>"
)


def _page(title: str, body: str) -> fw.HTMLResponse:
    return fw.HTMLResponse(
        f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title>"
        f"{SCRIPTS}</head><body><h1>{html.escape(title)}</h1>{body}<p id='message'></p></body></html>"
    )


def _last_used(when: datetime | None) -> str:
    return "never used" if when is None else f"last used {when:%Y-%m-%d %H:%M}"


def _mode(request: fw.Request) -> str:
    return fw.config(AuthSettings, request).mode


@app.route("GET /{$}")
async def home(request: fw.Request) -> fw.Response:
    user = fw.auth.user(request)
    if user is None:
        other = (
            "<a id='oidc-login' href='/auth/login'>Sign in with the identity provider</a>"
            if _mode(request) == "oidc_passkey"
            else "<a id='enroll' href='/enroll'>First visit? Enter your login ID and secret</a>"
        )
        return _page("Passkeys", f"<p id='status'>You are not signed in.</p>{PASSKEY_LOGIN}<p>{other}</p>")
    name = html.escape(user.display_name or user.key)
    return _page(
        "Passkeys",
        f"<p id='status'>Signed in as {name} (by {html.escape(user.method)}).</p>"
        f"{REGISTER}<p><a id='settings' href='/settings'>Your passkeys</a></p>{LOGOUT_FORM}",
    )


@app.route("GET /enroll")
async def enroll(request: fw.Request) -> fw.Response:
    """Where a person redeems the bootstrap credential an administrator issued (``passkey_only``)."""
    return _page(
        "Register your first passkey",
        "<label>Login ID <input id='login-id' autocomplete='username'></label>"
        "<label>Secret <input id='secret' type='password' autocomplete='one-time-code'></label>"
        "<button id='bootstrap' onclick=\"fwPasskey.bootstrap("
        "document.getElementById('login-id').value, document.getElementById('secret').value)"
        ".then(function () { location.assign('/settings'); }, say)\">Register a passkey</button>",
    )


@app.route("GET /settings")
async def settings(request: fw.Request) -> fw.Response:
    user = fw.auth.user(request)
    assert user is not None  # /settings is protected: anonymous visitors go through login first
    rows = "".join(
        f"<li class='passkey' data-id='{html.escape(key.credential_id)}'>"
        f"{html.escape(key.credential_id[:12])}&hellip; added {key.created_at:%Y-%m-%d %H:%M}, "
        f"{_last_used(key.last_used_at)}{', synced' if key.backed_up else ''}"
        "<form method='post' action='/settings/passkeys/remove'>"
        f"<input type='hidden' name='credential_id' value='{html.escape(key.credential_id)}'>"
        "<button type='submit'>Remove</button></form></li>"
        for key in await fw.auth.passkeys(user.account_id)
    )
    listing = f"<ul id='passkeys'>{rows}</ul>" if rows else "<p id='passkeys'>No passkeys yet.</p>"
    return _page("Your passkeys", f"{listing}{REGISTER}<p><a id='home' href='/'>Home</a></p>{LOGOUT_FORM}")


@app.route("POST /settings/passkeys/remove")
async def remove(request: fw.Request) -> fw.Response:
    user = fw.auth.user(request)
    if user is None:  # only if /settings/ leaves auth.protection.include
        raise fw.Problem("sign-in required", status=401, code="unauthorized")
    form = await request.form()
    credential_id = form.get("credential_id")
    if not isinstance(credential_id, str) or not credential_id:
        raise fw.Problem("credential_id is required", status=400, code="bad_request")
    await fw.auth.remove_passkey(user.account_id, credential_id)
    return fw.RedirectResponse("/settings", status_code=303)


if __name__ == "__main__":
    fw.run(app)
