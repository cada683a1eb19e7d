"""Which files a new project gets, and their text, for one preset, auth choice and stores.

Only the hand-written files are made here, from the template files under
``fw/scaffold/templates/`` (:mod:`fw.scaffold.render`); the generated ones (binders, config
loaders, the OpenAPI document) and ``.env.example`` come from fw's own tools once these exist
(:mod:`fw.scaffold.finish`), so they are exactly what ``fw generate`` would write.
"""

from __future__ import annotations

import sys
from typing import Any

import fw.scaffold.storage as storage
from fw.auth.modes.base import DevIssuer
from fw.auth.modes.registry import find_mode
from fw.auth.webauthn.script import passkey_script
from fw.extras import DISTRIBUTION
from fw.scaffold.options import PASSKEY_MODES, InitOptions
from fw.scaffold.render import render, static

#: Stands in for the development provider when asking a mode whether it would use one.
_PROBE = DevIssuer("http://127.0.0.1", "probe", "probe")

#: What differs between an OpenID Connect and an X project's tests and fw dev notes.
_PROVIDERS = {
    "oidc": {
        "dev_variables": "AUTH_OIDC_ISSUER, AUTH_OIDC_CLIENT_ID and AUTH_OIDC_CLIENT_SECRET",
        "dev_provider_words": "the development identity provider",
        "provider_class": "TestIdentityProvider",
        "provider_factory": "identity_provider",
        "provider_doc": "The development identity provider",
        "provider_prefix": "AUTH_OIDC_",
    },
    "jwt": {
        "dev_variables": "AUTH_JWT_ISSUER;\n# `fw token` prints access tokens it accepts",
        "dev_provider_words": "a development token issuer",
    },
    "oauth": {
        "dev_variables": (
            "AUTH_OAUTH_CLIENT_ID, AUTH_OAUTH_CLIENT_SECRET and the three endpoints of\n"
            "# its X-shaped stand-in"
        ),
        "dev_provider_words": "an X-shaped stand-in for signing in with X",
        "provider_class": "TestOAuthProvider",
        "provider_factory": "oauth_provider",
        "provider_doc": "The X-shaped stand-in",
        "provider_prefix": "AUTH_OAUTH_",
    },
}

#: One sentence of the README per kind of project: what it is.
_WHAT = {
    ("web", "none"): "a few pages and a JSON API, without sign-in.",
    ("web", "oidc_only"): "pages people sign in to with OpenID Connect, and a JSON API.",
    ("web", "oauth_only"): "pages people sign in to with X, and a JSON API.",
    ("web", "oidc_passkey"): "pages people sign in to with OpenID Connect and then with passkeys.",
    ("web", "passkey_only"): "pages people sign in to with passkeys alone, and a JSON API.",
    ("api", "none"): "a JSON API without sign-in.",
    ("api", "jwt_only"): "a JSON API whose callers present bearer tokens (JWT).",
    ("api", "oidc_only"): "a JSON API whose callers sign in with OpenID Connect in the browser.",
    ("api", "oauth_only"): "a JSON API whose callers sign in with X in the browser.",
}


def uses_dev_provider(auth: str) -> bool:
    """Whether ``fw dev`` should start the development identity provider for mode ``auth``."""
    mode = find_mode(auth)
    return mode is not None and mode.dev_environment(_PROBE) is not None


def import_block(lines: tuple[str, ...]) -> str:
    """Import lines, deduplicated and sorted as isort would: the standard library, then the rest."""
    unique = sorted(set(lines), key=lambda line: (line.startswith("from "), line))
    stdlib = [line for line in unique if line.split()[1].split(".")[0] in sys.stdlib_module_names]
    rest = [line for line in unique if line not in stdlib]
    return "\n".join(stdlib) + "\n\n" + "\n".join(rest) + "\n"


def _test_imports(options: InitOptions) -> str:
    lines = [
        "import contextlib",
        "from collections.abc import Callable, Iterator",
        "from pathlib import Path",
        "import fw.testing",
        "import pytest",
        "from starlette.testclient import TestClient",
    ]
    if options.auth in PASSKEY_MODES:
        lines += [
            "import uuid",
            "from typing import Any",
            "from fw.auth.webauthn import passkey_script",
            "from fw.testing.passkeys import SoftAuthenticator",
        ]
    if options.auth == "passkey_only":
        lines += ["import asyncio", "import fw"]
    if options.browser_login:
        lines += storage.test_imports(options)
    return import_block(tuple(lines))


def _client(auth: str) -> str:
    if auth in ("none", "passkey_only", "jwt_only"):
        return "TestClient"
    return "fw.testing.BrowserClient"


def _test_requirements(options: InitOptions) -> list[str]:
    """What the project's tests, linter and type checker need, beyond fw itself.

    pytest-asyncio runs the async fixtures (and is configured, so it warns about nothing); the
    passkey modes' tests sign in with a software authenticator (``SoftAuthenticator`` runs on
    soft-fido2).
    """
    passkeys = ["soft-fido2>=0.4.56"] if options.auth in PASSKEY_MODES else []
    return ["pytest>=8", "pytest-asyncio>=0.24", *passkeys, "ruff>=0.5", "mypy>=1.10"]


def values(options: InitOptions) -> dict[str, Any]:
    """What the templates are rendered with."""
    name = options.name
    web = options.preset == "web"
    protected_path = "/account" if web else "/me"
    found: dict[str, Any] = {
        "name": name,
        "NAME": name.upper(),
        "dist": name.replace("_", "-"),
        "mode": options.auth,
        "preset": options.preset,
        "web": web,
        "login": options.browser_login,
        "passkey": options.auth in PASSKEY_MODES,
        "protected": f'"{protected_path}"' if options.auth != "none" else "",
        "protected_path": protected_path,
        "unauthenticated": "redirect" if web else "unauthorized",
        "client": _client(options.auth),
        "login_href": "/login" if options.auth in PASSKEY_MODES else "/auth/login",
        "session": options.session,
        "db": options.db,
        "auth_backend": options.auth_backend,
        "storage": options.browser_login,
        "prod": False,  # config.prod.toml sets it for its storage tables
        "services": [storage.SERVICE_VARIABLES[service] for service in storage.services(options)],
        "fw_requirement": f"{DISTRIBUTION}[{','.join(storage.extras(options))}]",
        "test_requirements": _test_requirements(options),
        "migrations": storage.uses_sql(options),
        "dev_provider": uses_dev_provider(options.auth),
        "what": _WHAT[(options.preset, options.auth)],
        **_PROVIDERS[{"oauth_only": "oauth", "jwt_only": "jwt"}.get(options.auth, "oidc")],
    }
    found["imports"] = _test_imports(options)
    found["dev_does"] = _dev_does(options)
    return found


def _dev_does(options: InitOptions) -> str:
    """What ``fw dev`` does before serving, in words (the README's run section)."""
    steps = ["regenerates stale generated code"]
    if options.browser_login:
        steps.append("applies the migrations")
    if uses_dev_provider(options.auth):
        kind = {"oauth_only": "oauth", "jwt_only": "jwt"}.get(options.auth, "oidc")
        steps.append("starts " + _PROVIDERS[kind]["dev_provider_words"])
    return ", ".join(steps) + " and serves the app on"


def source_files(options: InitOptions) -> dict[str, str | bytes]:
    """Relative path -> content of every hand-written file, in the order they are checked and written."""
    given = values(options)
    package = f"src/{options.name}"
    templates = {
        "pyproject.toml": "project/pyproject.toml.j2",
        "README.md": "project/README.md.j2",
        ".gitignore": "project/gitignore.j2",
        "config.dev.toml": "project/config.dev.toml.j2",
        "config.prod.toml": "project/config.prod.toml.j2",
        f"{package}/__init__.py": "package/__init__.py.j2",
        f"{package}/settings.py": "package/settings.py.j2",
        f"{package}/main.py": "package/main.py.j2",
        f"{package}/models.py": "package/models.py.j2",
        f"{package}/handlers/__init__.py": "package/handlers_init.py.j2",
        f"{package}/handlers/api/__init__.py": "package/api_init.py.j2",
        f"{package}/handlers/api/greetings.py": "package/greetings.py.j2",
        "tests/test_app.py": "tests/test_app.py.j2",
    }
    if storage.uses_sql(options):
        templates["migrations/README.md"] = "project/migrations_README.md.j2"
    pages = ["base.html", "home.html"]
    if options.preset == "web":
        pages += ["account.html"] if options.browser_login else []
        pages += ["login.html"] if options.auth in PASSKEY_MODES else []
        templates.update({f"{package}/templates/{page}": f"pages/{page}" for page in pages})
    files: dict[str, str | bytes] = {path: render(template, given) for path, template in templates.items()}
    files[f"{package}/static/favicon.ico"] = static("favicon.ico")
    if options.preset == "web":
        files[f"{package}/static/style.css"] = static("style.css")
    if options.auth in PASSKEY_MODES:
        # The very bytes fw serves at {auth.passkey.path}/passkey.js, served here from /static.
        files[f"{package}/static/passkey.js"] = passkey_script()
    return files


def generated_files(options: InitOptions) -> list[str]:
    """Relative paths written by the finishing step (checked for conflicts like the rest)."""
    package = f"src/{options.name}"
    written = [
        f"{package}/_fw_config.py",
        f"{package}/_fw_binders.py",
        f"{package}/handlers/_fw_binders.py",
        f"{package}/handlers/api/_fw_binders.py",
        f"{package}/openapi.json",
        ".env.example",
    ]
    if options.session == "cookie":
        written.append(".env")  # the session key, drawn fresh (never committed: .gitignore)
    return written
