"""The text of every file ``fw init`` writes, as plain strings with ``{{name}}``-style holes.

Holes are filled by :func:`render` with ``str.replace``, not ``str.format``: the templates are
Python, TOML and JSON full of braces and ``${NAME}`` references that must come out as written.
Which pieces a project gets depends only on its preset and whether it has browser login.
"""

from __future__ import annotations

from collections.abc import Mapping


def render(template: str, values: Mapping[str, str]) -> str:
    text = template
    for key, value in values.items():
        text = text.replace("{{" + key + "}}", value)
    return text


PYPROJECT = """\
[build-system]
requires = ["setuptools>=69"]
build-backend = "setuptools.build_meta"

[project]
name = "{{dist}}"
version = "0.1.0"
description = "{{name}}, an fw application."
requires-python = ">=3.11"
dependencies = ["{{fw_requirement}}"]

[project.optional-dependencies]
test = [{{test_requirements}}]

[tool.setuptools.packages.find]
where = ["src"]

[tool.setuptools.package-data]
{{name}} = ["openapi.json"]

[tool.pytest.ini_options]
testpaths = ["tests"]
pythonpath = ["src"]

# fw generate / fw run / fw dev read this table.
[tool.fw]
app = "{{name}}.main:app"{{migrations}}

[tool.fw.generate]
handlers = ["src/{{name}}/handlers"]
config = ["src/{{name}}"]
"""

PYPROJECT_DEV_IDP = """
# fw dev starts the development identity provider (users alice and bob, no password) and
# injects {{dev_variables}}.
[tool.fw.dev.idp]
enabled = true
"""

PACKAGE_INIT = '''\
"""{{name}}, an fw application (``fw init`` wrote the start of it)."""
'''

SETTINGS = '''\
"""{{name}}'s own configuration, under the ``{{name}}`` prefix.

Each value comes from its default, ``config.{APP_ENV}.toml`` (table
``[{{name}}]``), the environment (``{{NAME}}_GREETING``, also read from
``.env``) or an option (``--{{name}}-greeting Hi``), the later winning.
``fw generate`` writes the loader into ``_fw_config.py``.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from typing import Annotated

import fw


@dataclass
class Settings:
    """{{name}}."""

    #: First word of every greeting.
    greeting: Annotated[str, fw.default("Hello")]
    #: How long clients may cache the home page.
    cache_for: Annotated[timedelta, fw.default("1m")]


fw.register_config(Settings, "{{name}}")
'''

HANDLERS_INIT = '''\
"""Handlers whose ``fw.parse`` calls get generated binders (``[tool.fw.generate] handlers``).

One sub-package per area of the API (``api`` here; ``v1`` and ``v2`` side by side work the same);
``fw generate`` writes a ``_fw_binders.py`` into each package that needs one.
"""
'''

API_INIT = '''\
"""The JSON API's handlers."""
'''

MODELS = '''\
"""The request types: one dataclass says what a request accepts.

``fw generate`` finds them through the ``fw.parse`` calls in the handlers and writes their
binders next to them (``_fw_binders.py`` in this package); a request that does not fit gets a
400 problem document listing every rejected field.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

import fw

#: A name a person gives: required, at most 64 characters. An alias like this one can be shared
#: by many request types; editing it marks their generated binders stale.
PersonName = Annotated[str, fw.check("required,maxlen=64")]


@dataclass
class Greeting:
    """Ask for a greeting."""

    #: Who to greet.
    name: PersonName
    #: Exclamation marks at the end.
    excitement: Annotated[int, fw.check("min=0,max=5"), fw.default("1")]
'''

GREETINGS = '''\
"""``POST /greetings``: binds a :class:`~{{name}}.models.Greeting` and answers with a message."""

from __future__ import annotations

import fw

from {{name}}.models import Greeting
from {{name}}.settings import Settings


def register(app: fw.App) -> None:
    """Add the greeting routes to ``app``."""

    @app.route("POST /greetings")
    async def greet(request: fw.Request) -> fw.Response:
        ask = await fw.parse(Greeting, request)
        settings = fw.config(Settings, request)
        message = f"{settings.greeting}, {ask.name}{'!' * ask.excitement}"
        return fw.JSONResponse({"message": message})
'''

MAIN_HEAD = '''\
"""{{name}}: the App and its routes; ``fw run`` and ``fw dev`` serve ``app``.

``create_app()`` builds a fresh App, so each test can start one under the configuration
it states (an App decides its pillars, authentication above all, when it first starts).
"""

from __future__ import annotations
{{imports}}
import fw

from {{name}}.handlers.api import greetings
from {{name}}.settings import Settings

'''

MAIN_TAIL = """

app = create_app()

if __name__ == "__main__":
    fw.run(app)
"""

#: Every web page's frame; ``{{page_head}}`` and ``{{page_end}}`` add scripts and a message line.
PAGE_FUNCTION = """def _page(title: str, body: str) -> fw.HTMLResponse:
    return fw.HTMLResponse(
        "<!doctype html><html><head><meta charset='utf-8'>"
        f"<title>{html.escape(title)}</title>{{page_head}}</head>"
        f"<body><h1>{html.escape(title)}</h1>{body}{{page_end}}</body></html>"
    )
"""

MAIN_WEB = '''
{{page_function}}

def create_app() -> fw.App:
    """A new App with every route."""
    app = fw.App()
    greetings.register(app)

    @app.route("GET /{$}")
    async def home(request: fw.Request) -> fw.Response:
        settings = fw.config(Settings, request)
        greeting = html.escape(settings.greeting)
        page = _page("{{name}}", f"<p id='greeting'>{greeting}, world!</p>")
        max_age = int(settings.cache_for.total_seconds())
        page.headers["Cache-Control"] = f"max-age={max_age}"
        return page

    return app
'''

#: The home page of a project with login: a greeting naming who is signed in, and the way in or out.
HOME_WITH_LOGIN = """    @app.route("GET /{$}")
    async def home(request: fw.Request) -> fw.Response:
        settings = fw.config(Settings, request)
        user = fw.auth.user(request)
        who = "world" if user is None else (user.display_name or user.key)
        link = (
            "<a id='login' href='{{login_href}}'>Sign in</a>"
            if user is None
            else f"<a id='account' href='/account'>Your account</a>{LOGOUT_FORM}"
        )
        greeting = f"{html.escape(settings.greeting)}, {html.escape(who)}!"
        page = _page("{{name}}", f"<p id='greeting'>{greeting}</p>{link}")
        max_age = int(settings.cache_for.total_seconds())
        page.headers["Cache-Control"] = f"private, max-age={max_age}"
        return page"""

MAIN_WEB_LOGIN = '''LOGOUT_FORM = (
    "<form method='post' action='/auth/logout'>"
    "<button type='submit'>Sign out</button></form>"
)


{{page_function}}

def create_app() -> fw.App:
    """A new App with every route (``config.dev.toml`` protects ``/account``)."""
    app = fw.App()
    greetings.register(app)

{{home_route}}

    @app.route("GET /account")
    async def account(request: fw.Request) -> fw.Response:
        user = fw.auth.user(request)
        if user is None:  # only if /account leaves auth.protection.include
            return fw.RedirectResponse("/auth/login?next=/account", status_code=302)
        return _page(
            "Your account",
            f"<dl><dt>Name</dt><dd id='name'>{html.escape(user.display_name)}</dd>"
{{account_detail}}
            f"{LOGOUT_FORM}",
        )

    return app
'''

MAIN_API = '''
def create_app() -> fw.App:
    """A new App with every route."""
    app = fw.App()
    greetings.register(app)

    @app.route("GET /{$}")
    async def index(request: fw.Request) -> fw.Response:
        settings = fw.config(Settings, request)
        max_age = int(settings.cache_for.total_seconds())
        return fw.JSONResponse(
            {"service": "{{name}}", "greeting": settings.greeting},
            headers={"Cache-Control": f"max-age={max_age}"},
        )

    return app
'''

#: The start of ``create_app`` in the API projects that sign in: the App and its index route.
API_INDEX = '''
def create_app() -> fw.App:
    """A new App with every route (``config.dev.toml`` protects ``/me``)."""
    app = fw.App()
    greetings.register(app)

    @app.route("GET /{$}")
    async def index(request: fw.Request) -> fw.Response:
        settings = fw.config(Settings, request)
        max_age = int(settings.cache_for.total_seconds())
        return fw.JSONResponse(
            {"service": "{{name}}", "greeting": settings.greeting},
            headers={"Cache-Control": f"max-age={max_age}"},
        )
'''

MAIN_API_LOGIN = (
    API_INDEX
    + """
    @app.route("GET /me")
    async def me(request: fw.Request) -> fw.Response:
        user = fw.auth.user(request)
        if user is None:  # only if /me leaves auth.protection.include
            raise fw.Problem(status=401, code="unauthorized")
        return fw.JSONResponse(
            {
                "account_id": user.account_id,
                "name": user.display_name,
{{me_detail}}
            }
        )

    return app
"""
)

CONFIG_HEAD = """\
# Development configuration: read when APP_ENV is dev (the default). Other environments read
# config.{APP_ENV}.toml. Secrets never go in this file: they are ${NAME} references filled from
# the environment or .env (see .env.example). Durations are quoted strings ("90s", "1h30m").

[server]
host = "127.0.0.1"
port = 8000

[{{name}}]
greeting = "Hello"
cache_for = "1m"
"""

#: What every browser-login project configures: sessions, the database, [auth] with its mode.
BROWSER_AUTH = """{{storage}}
[auth]
enabled = true
mode = "@MODE@"
backend = "{{auth_backend}}"
protection.include = [{{protected}}]
protection.unauthenticated = "{{unauthenticated}}"
session.ttl = "24h"
"""

CONFIG_LOGIN = (
    """
# Browser login with OpenID Connect. `fw dev` starts a development identity provider and sets
# AUTH_OIDC_ISSUER, AUTH_OIDC_CLIENT_ID and AUTH_OIDC_CLIENT_SECRET; elsewhere set them to your
# provider's values (and an https redirect_url registered there).
"""
    + BROWSER_AUTH.replace("@MODE@", "oidc_only")
    + """
[auth.oidc]
issuer = "${AUTH_OIDC_ISSUER}"
client_id = "${AUTH_OIDC_CLIENT_ID}"
client_secret = "${AUTH_OIDC_CLIENT_SECRET}"
allow_loopback_http = true
scopes = ["profile", "email"]
"""
)

CONFIG_OAUTH = (
    """
# Sign in with X (OAuth 2.0, no ID token). `fw dev` serves an X-shaped stand-in and sets
# AUTH_OAUTH_CLIENT_ID, AUTH_OAUTH_CLIENT_SECRET and the three AUTH_OAUTH_*_ENDPOINT variables;
# elsewhere set the client id and secret of your X app, leave the endpoints unset (X's own), and
# set an https redirect_url registered there (see docs/auth-oauth.md in fw).
"""
    + BROWSER_AUTH.replace("@MODE@", "oauth_only")
    + """
[auth.oauth]
provider = "x"
client_id = "${AUTH_OAUTH_CLIENT_ID}"
client_secret = "${AUTH_OAUTH_CLIENT_SECRET}"
allow_loopback_http = true
"""
)

#: What differs between an OpenID Connect and an X project's pages, tests and fw dev note.
LOGIN_VALUES = {
    "oidc": {
        "account_detail": (
            """            f"<dt>E-mail</dt><dd id='email'>{html.escape(user.email)}</dd></dl>\""""
        ),
        "me_detail": """                "email": user.email,""",
        "dev_variables": "AUTH_OIDC_ISSUER, AUTH_OIDC_CLIENT_ID and AUTH_OIDC_CLIENT_SECRET",
        "provider_class": "TestIdentityProvider",
        "provider_factory": "identity_provider",
        "provider_doc": "The development identity provider",
        "provider_prefix": "AUTH_OIDC_",
    },
    "oauth": {
        "account_detail": (
            """            f"<dt>Username</dt>"\n"""
            """            f"<dd id='username'>@{html.escape(user.username)}</dd></dl>\""""
        ),
        "me_detail": """                "username": user.username,""",
        "dev_variables": (
            "AUTH_OAUTH_CLIENT_ID, AUTH_OAUTH_CLIENT_SECRET and the three endpoints of\n"
            "# its X-shaped stand-in"
        ),
        "provider_class": "TestOAuthProvider",
        "provider_factory": "oauth_provider",
        "provider_doc": "The X-shaped stand-in",
        "provider_prefix": "AUTH_OAUTH_",
    },
}

CONFIG_API_NO_LOGIN = """
# Authentication is off. `fw init --preset api` (without --auth none) makes a bearer-token
# API; by hand it looks like this (see docs/auth-jwt.md in fw):
#
# [auth]
# enabled = true
# mode = "jwt_only"
# protection.include = ["/api/"]
#
# [auth.jwt]
# issuer = "https://login.example.com"
# audience = ["https://api.example.com"]
# algorithms = ["RS256"]
# admission = "authenticated"
# max_token_lifetime = "1h"
# revocation.mode = "off"
"""

ENV_HEAD = """\
# Environment variables {{name}} reads, from `python -m {{name}}.main --generate-config env`.
# Copy to .env (never committed) and fill in. Process variables win over .env; the
# commented lines only show the variable name of a setting config.dev.toml already gives.
"""

GITIGNORE = """\
__pycache__/
*.py[cod]
*.egg-info/
.venv/
.pytest_cache/
.env
.env.local
.env.*.local
*.sqlite3
"""

TEST_HEAD = '''\
"""Tests of {{name}}: run ``pytest`` in the project directory (fw's pytest plugin
regenerates stale binders and config loaders first).

Each test builds a fresh App inside ``fw.testing.configured(...)``: the configuration
is exactly the layers given (the real ``config.dev.toml`` plus a test environment),
never the developer's shell or ``.env``.
"""

from __future__ import annotations

{{imports}}
from {{name}}.main import create_app

ROOT = Path(__file__).resolve().parents[1]
CONFIG = (ROOT / "config.dev.toml").read_text("utf-8")
'''

#: Import lines of a project's tests, per kind of project; the storage choice adds its own
#: (:mod:`fw.scaffold.storage`) and :func:`fw.scaffold.project.import_block` sorts them.
TEST_IMPORTS_PLAIN = (
    "import contextlib",
    "from collections.abc import Callable, Iterator",
    "from pathlib import Path",
    "import fw.testing",
    "import pytest",
    "from starlette.testclient import TestClient",
)

TEST_IMPORTS_LOGIN = (
    "import contextlib",
    "from collections.abc import Callable, Iterator",
    "from pathlib import Path",
    "import fw.testing",
    "import pytest",
)

TEST_CLIENT_PLAIN = '''

@pytest.fixture
def client_for() -> Iterator[Callable[..., TestClient]]:
    """``client_for(VAR="value")``: a client on a fresh App configured from
    config.dev.toml and these environment variables (lifespan on: startup checks
    run)."""
    with contextlib.ExitStack() as stack:

        def open_client(**env: str) -> TestClient:
            stack.enter_context(fw.testing.configured(toml=CONFIG, env=env))
            return stack.enter_context(TestClient(create_app()))

        yield open_client
'''

TEST_CLIENT_LOGIN = '''

@pytest.fixture
def idp() -> Iterator[fw.testing.{{provider_class}}]:
    """{{provider_doc}} on a free loopback port (alice and bob)."""
    with fw.testing.{{provider_factory}}() as provider:
        yield provider


@pytest.fixture
def client_for(
    idp: fw.testing.{{provider_class}}, storage: dict[str, str]
) -> Iterator[Callable[..., fw.testing.BrowserClient]]:
    """``client_for(VAR="value")``: a browser-like client on a fresh App configured
    from config.dev.toml, the provider's {{provider_prefix}}* variables, the test's own
    store and these variables (lifespan on: startup checks run)."""
    with contextlib.ExitStack() as stack:

        def open_client(**env: str) -> fw.testing.BrowserClient:
            layers = {**idp.env, **storage, **env}
            stack.enter_context(fw.testing.configured(toml=CONFIG, env=layers))
            return stack.enter_context(fw.testing.BrowserClient(create_app(), idp))

        yield open_client
'''

TEST_COMMON = """

def test_the_home_page_uses_the_configured_greeting(
    client_for: Callable[..., {{client}}],
) -> None:
    response = client_for({{NAME}}_GREETING="Howdy").get("/")
    assert response.status_code == 200
    assert "Howdy" in response.text


def test_a_greeting_is_bound_from_the_json_body(
    client_for: Callable[..., {{client}}],
) -> None:
    response = client_for().post("/greetings", json={"name": "Ada", "excitement": 2})
    assert response.status_code == 200
    assert response.json() == {"message": "Hello, Ada!!"}


def test_a_bad_greeting_is_a_problem_naming_every_field(
    client_for: Callable[..., {{client}}],
) -> None:
    response = client_for().post("/greetings", json={"name": "", "excitement": 9})
    assert response.status_code == 400
    assert response.headers["content-type"] == "application/problem+json"
    fields = {item["field"]: item["message"] for item in response.json()["errors"]}
    assert fields == {"name": "required", "excitement": "must be <= 5"}
"""

TEST_ACCOUNT_NEEDS_LOGIN = """

def test_the_account_page_sends_anonymous_visitors_to_sign_in(
    client_for: Callable[..., fw.testing.BrowserClient],
) -> None:
    response = client_for().get("/account", follow_redirects=False)
    assert response.status_code == 302
    assert response.headers["location"].startswith("/auth/login?next=")
"""

TEST_WEB_LOGIN = """

def test_signing_in_with_the_development_provider_shows_the_account(
    client_for: Callable[..., fw.testing.BrowserClient],
) -> None:
    client = client_for()
    client.login("alice")
    page = client.get("/account")
    assert page.status_code == 200
    assert "Alice Example" in page.text
    assert client.logout().status_code in (302, 303)
    assert client.get("/account", follow_redirects=False).status_code == 302
"""

TEST_API_LOGIN = """

def test_me_answers_anonymous_callers_with_a_401_problem(
    client_for: Callable[..., fw.testing.BrowserClient],
) -> None:
    response = client_for().get("/me", follow_redirects=False)
    assert response.status_code == 401
    assert response.json()["code"] == "unauthorized"


def test_signing_in_with_the_development_provider_opens_me(
    client_for: Callable[..., fw.testing.BrowserClient],
) -> None:
    client = client_for()
    client.login("alice")
    me = client.get("/me")
    assert me.status_code == 200
    assert me.json()["name"] == "Alice Example"
"""

# --- passkey modes (web preset): a login page, passkey.js from public/, registration ---

MAIN_WEB_PASSKEY = '''LOGOUT_FORM = (
    "<form method='post' action='/auth/logout'>"
    "<button type='submit' id='logout'>Sign out</button></form>"
)
#: fw init wrote public/passkey.js; fw serves the same script at /auth/passkey/passkey.js.
PASSKEY_JS = Path(__file__).resolve().parents[2] / "public" / "passkey.js"
#: passkey.js, and what the pages show when a ceremony is refused (the problem's detail).
SCRIPTS = (
    "<script src='/passkey.js' data-path='/auth/passkey'></script>"
    "<script>function say(error) { document.getElementById('message').textContent ="
    " (error && (error.detail || error.title || error.message)) || String(error); }</script>"
)
REGISTER = (
    "<button id='register' onclick=\\"fwPasskey.register()"
    ".then(function () { location.reload(); }, say)\\">Register a passkey</button>"
)


{{page_function}}

def create_app() -> fw.App:
    """A new App with every route (``config.dev.toml`` protects ``/account``)."""
    app = fw.App()
    greetings.register(app)

    @app.route("GET /passkey.js")
    async def passkey_js(request: fw.Request) -> fw.Response:
        return fw.Response(PASSKEY_JS.read_bytes(), media_type="text/javascript; charset=utf-8")

{{home_route}}

    @app.route("GET /login")
    async def login(request: fw.Request) -> fw.Response:
        return _page(
            "Sign in",
            "<button id='passkey-login' onclick=\\"fwPasskey.login()"
            ".then(function (done) { location.assign(done.landing); }, say)\\">"
            "Sign in with a passkey</button>"{{other_login}},
        )

    @app.route("GET /account")
    async def account(request: fw.Request) -> fw.Response:
        user = fw.auth.user(request)
        if user is None:  # only if /account leaves auth.protection.include
            return fw.RedirectResponse("/login", status_code=302)
        keys = await fw.auth.passkeys(user.account_id)
        return _page(
            "Your account",
            f"<dl><dt>Name</dt><dd id='name'>{html.escape(user.display_name)}</dd>"
            f"<dt>Passkeys</dt><dd id='passkeys'>{len(keys)}</dd></dl>"
            f"{REGISTER}{LOGOUT_FORM}",
        )

    return app
'''

#: The second way in on the login page, per mode.
OTHER_LOGIN_OIDC = """
            "<p><a id='oidc-login' href='/auth/login'>Sign in with your identity provider</a></p>\""""

OTHER_LOGIN_BOOTSTRAP = """
            "<h2>First sign-in</h2><p>Enter the login ID and secret you were given.</p>"
            "<input id='login-id' autocomplete='username'>"
            "<input id='secret' type='password' autocomplete='one-time-code'>"
            "<button id='bootstrap' onclick=\\"fwPasskey.bootstrap("
            "document.getElementById('login-id').value, document.getElementById('secret').value)"
            ".then(function () { location.assign('/account'); }, say)\\">"
            "Register a passkey</button>\""""

CONFIG_PASSKEY_HEAD = """
# Browse http://localhost:8000, not 127.0.0.1: a passkey's RP ID is a domain, never an IP
# address. In production rp_id is your domain and origins its https origin.
{{storage}}
[auth]
enabled = true
mode = "{{mode}}"
backend = "{{auth_backend}}"
protection.include = ["/account"]
session.ttl = "24h"

[auth.passkey]
rp_id = "localhost"
rp_name = "{{name}}"
origins = ["http://localhost:8000"]
"""

CONFIG_OIDC_PASSKEY = """
# The account comes from the OpenID provider; after signing in there once, people register a
# passkey and use it from then on. `fw dev` starts a development identity provider and sets
# AUTH_OIDC_ISSUER, AUTH_OIDC_CLIENT_ID and AUTH_OIDC_CLIENT_SECRET.
[auth.oidc]
issuer = "${AUTH_OIDC_ISSUER}"
client_id = "${AUTH_OIDC_CLIENT_ID}"
client_secret = "${AUTH_OIDC_CLIENT_SECRET}"
allow_loopback_http = true
scopes = ["profile", "email"]

[auth.recovery]
# Lost every passkey: sign in at the provider again and register a new one.
policy = "oidc"
"""

CONFIG_PASSKEY_ONLY = """
# No identity provider: an administrator issues a login ID and one-time secret
# (await fw.auth.issue_bootstrap_credential("ada")), the person enters them on /login and
# registers their first passkey.
[auth.registration]
policy = "administrator"

[auth.recovery]
policy = "administrator"
"""

TEST_IMPORTS_PASSKEY = (
    "import asyncio",
    "import contextlib",
    "import uuid",
    "from collections.abc import Callable, Iterator",
    "from pathlib import Path",
    "from typing import Any",
    "import fw",
    "import fw.testing",
    "import pytest",
    "from fw.auth.passkey import passkey_script",
    "from fw.testing.passkeys import SoftAuthenticator",
    "from starlette.testclient import TestClient",
)

TEST_PASSKEY_HELPERS = '''

ORIGIN = "http://localhost:8000"
CEREMONIES = "/auth/passkey"


def unique(login_id: str) -> str:
    """A login ID no earlier test used (a shared database outlives one test)."""
    return f"{login_id}-{uuid.uuid4().hex[:8]}"


def ceremony(client: TestClient, step: str, body: Any = None) -> Any:
    """POST one passkey step as passkey.js does (JSON, the page's Origin); its JSON answer."""
    response = client.post(f"{CEREMONIES}/{step}", json=body or {}, headers={"Origin": ORIGIN})
    assert response.status_code == 200, response.text
    return response.json()


def register(client: TestClient, authenticator: SoftAuthenticator) -> Any:
    options = ceremony(client, "register/begin")
    return ceremony(client, "register/finish", authenticator.create(options))


def passkey_login(client: TestClient, authenticator: SoftAuthenticator) -> Any:
    options = ceremony(client, "login/begin")
    return ceremony(client, "login/finish", authenticator.get(options))


def logout(client: TestClient) -> int:
    """Sign out as the page's logout form does; the status code."""
    response = client.post("/auth/logout", headers={"Origin": ORIGIN}, follow_redirects=False)
    return response.status_code


def test_passkey_js_is_the_script_fw_serves(client_for: Callable[..., {{client}}]) -> None:
    client = client_for()
    copy = client.get("/passkey.js")
    assert copy.status_code == 200
    assert copy.content == passkey_script() == client.get(f"{CEREMONIES}/passkey.js").content
'''

TEST_CLIENT_PASSKEY_ONLY = '''

@pytest.fixture
def client_for(storage: dict[str, str]) -> Iterator[Callable[..., TestClient]]:
    """``client_for(VAR="value")``: a client on the page's origin, on a fresh App
    configured from config.dev.toml, the test's own store and these variables
    (lifespan on: startup checks run). passkey_only needs no identity provider."""
    with contextlib.ExitStack() as stack:

        def open_client(**env: str) -> TestClient:
            layers = {**storage, **env}
            stack.enter_context(fw.testing.configured(toml=CONFIG, env=layers))
            return stack.enter_context(TestClient(create_app(), base_url=ORIGIN))

        yield open_client
'''

TEST_OIDC_PASSKEY = """

def test_after_signing_in_at_the_provider_a_passkey_signs_in_alone(
    client_for: Callable[..., fw.testing.BrowserClient],
) -> None:
    client = client_for()
    client.login("alice")
    authenticator = SoftAuthenticator(ORIGIN)
    assert "credential_id" in register(client, authenticator)
    assert "<dd id='passkeys'>1</dd>" in client.get("/account").text
    assert logout(client) in (302, 303)
    assert client.get("/account", follow_redirects=False).status_code == 302

    assert passkey_login(client, authenticator) == {"landing": "/"}
    page = client.get("/account")
    assert page.status_code == 200
    assert "Alice Example" in page.text
"""

TEST_PASSKEY_ONLY = """

def test_the_account_page_sends_anonymous_visitors_to_sign_in(
    client_for: Callable[..., TestClient],
) -> None:
    response = client_for().get("/account", follow_redirects=False)
    assert response.status_code in (302, 401)


def test_a_bootstrap_credential_registers_the_first_passkey_which_then_signs_in(
    client_for: Callable[..., TestClient],
) -> None:
    client = client_for()
    issued = asyncio.run(fw.auth.issue_bootstrap_credential(unique("ada")))
    body = {"login_id": issued.login_id, "secret": issued.secret}
    assert ceremony(client, "bootstrap", body) == {"next": f"{CEREMONIES}/register/begin"}
    authenticator = SoftAuthenticator(ORIGIN)
    assert "credential_id" in register(client, authenticator)
    assert "<dd id='passkeys'>1</dd>" in client.get("/account").text
    assert logout(client) in (302, 303)

    assert passkey_login(client, authenticator) == {"landing": "/"}
    assert client.get("/account").status_code == 200


def test_a_bootstrap_secret_is_spent_by_its_registration(
    client_for: Callable[..., TestClient],
) -> None:
    client = client_for()
    issued = asyncio.run(fw.auth.issue_bootstrap_credential(unique("ada")))
    body = {"login_id": issued.login_id, "secret": issued.secret}
    ceremony(client, "bootstrap", body)
    register(client, SoftAuthenticator(ORIGIN))
    again = client.post(f"{CEREMONIES}/bootstrap", json=body, headers={"Origin": ORIGIN})
    assert again.status_code == 403
"""

# --- jwt_only (the api preset's default): a bearer-token API ---

MAIN_API_JWT = (
    API_INDEX
    + """
    @app.route("GET /me")
    async def me(request: fw.Request) -> fw.Response:
        caller = fw.auth.bearer(request)
        if caller is None:  # only if /me leaves auth.protection.include
            raise fw.Problem(status=401, code="unauthorized")
        scope = caller.identity.claims.get("scope", "")
        return fw.JSONResponse({"account_id": caller.account_id, "scopes": str(scope).split()})

    return app
"""
)

CONFIG_JWT = """
# A bearer-token API: every request to /me needs an access token from your authorization
# server, which AUTH_JWT_ISSUER names (set it in .env; its signing keys load at startup, so the
# server must be reachable; http is accepted for a loopback issuer only). The tests mint tokens
# with fw.testing.LocalIssuer. See docs/auth-jwt.md in fw.
[auth]
enabled = true
mode = "jwt_only"
protection.include = ["/me"]

[auth.jwt]
issuer = "${AUTH_JWT_ISSUER}"
audience = ["{{name}}"]
algorithms = ["RS256"]
admission = "authenticated"
max_token_lifetime = "1h"
allow_loopback_http = true
revocation.mode = "off"
"""

TEST_IMPORTS_JWT = (
    "import contextlib",
    "from collections.abc import Callable, Iterator",
    "from pathlib import Path",
    "import fw.testing",
    "import pytest",
    "from starlette.testclient import TestClient",
)

TEST_CLIENT_JWT = '''

@pytest.fixture
def issuer() -> Iterator[fw.testing.LocalIssuer]:
    """An authorization server of the test's own on a free loopback port; it mints tokens."""
    with fw.testing.LocalIssuer() as local:
        yield local


@pytest.fixture
def client_for(issuer: fw.testing.LocalIssuer) -> Iterator[Callable[..., TestClient]]:
    """``client_for(VAR="value")``: a client on a fresh App configured from
    config.dev.toml, the issuer's URL and these variables (lifespan on: startup loads the
    issuer's keys)."""
    with contextlib.ExitStack() as stack:

        def open_client(**env: str) -> TestClient:
            layers = {"AUTH_JWT_ISSUER": issuer.url, **env}
            stack.enter_context(fw.testing.configured(toml=CONFIG, env=layers))
            return stack.enter_context(TestClient(create_app()))

        yield open_client
'''

TEST_JWT = """

def test_me_answers_a_call_without_a_token_with_a_401_problem(
    client_for: Callable[..., TestClient],
) -> None:
    response = client_for().get("/me")
    assert response.status_code == 401
    assert response.headers["www-authenticate"].startswith("Bearer")


def test_me_names_the_caller_of_a_valid_token(
    client_for: Callable[..., TestClient], issuer: fw.testing.LocalIssuer
) -> None:
    token = issuer.mint("ada", audience="{{name}}", scope="read")
    response = client_for().get("/me", headers={"Authorization": f"Bearer {token}"})
    assert response.status_code == 200
    assert response.json() == {"account_id": "ada", "scopes": ["read"]}


def test_a_token_for_another_audience_is_refused(
    client_for: Callable[..., TestClient], issuer: fw.testing.LocalIssuer
) -> None:
    token = issuer.mint("ada", audience="someone-else")
    response = client_for().get("/me", headers={"Authorization": f"Bearer {token}"})
    assert response.status_code == 401
"""

MIGRATIONS_README = """\
# Migrations of {{name}}

`fw migrate` (and `fw dev`) applies fw's own tables first, then the revisions in this directory
(`[tool.fw] migrations` in pyproject.toml names it). Add one with

    fw migrate new "add the orders table"

and write its `upgrade()` and `downgrade()` with Alembic's operations. The tests apply the same
migrations to each test's own database.
"""
