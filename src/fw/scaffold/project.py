"""Which files a new project gets, and their text, for one preset and auth choice.

Only the hand-written files are made here; the generated ones (binders, config loaders, the
OpenAPI document) and ``.env.example`` come from fw's own tools once these exist
(:mod:`fw.scaffold.finish`), so they are exactly what ``fw generate`` would write.
"""

from __future__ import annotations

import sys

import fw.scaffold.storage as storage
import fw.scaffold.templates as t
from fw.auth.modes.base import DevIssuer
from fw.auth.modes.registry import find_mode
from fw.auth.passkey.script import passkey_script
from fw.extras import DISTRIBUTION
from fw.scaffold.options import PASSKEY_MODES, InitOptions

#: Stands in for the development provider when asking a mode whether it would use one.
_PROBE = DevIssuer("http://127.0.0.1", "probe", "probe")


def uses_dev_provider(auth: str) -> bool:
    """Whether ``fw dev`` should start the development identity provider for mode ``auth``."""
    mode = find_mode(auth)
    return mode is not None and mode.dev_environment(_PROBE) is not None


def _main(options: InitOptions) -> str:
    web = options.preset == "web"
    frame = {"page_head": "", "page_end": ""}
    if options.auth in PASSKEY_MODES:
        other = t.OTHER_LOGIN_OIDC if options.auth == "oidc_passkey" else t.OTHER_LOGIN_BOOTSTRAP
        body = t.render(t.MAIN_WEB_PASSKEY, {"other_login": other, "home_route": t.HOME_WITH_LOGIN})
        frame = {"page_head": "{SCRIPTS}", "page_end": "<p id='message'></p>"}
        imports = "\nimport html\nfrom pathlib import Path\n"
    elif web:
        login = t.render(t.MAIN_WEB_LOGIN, {"home_route": t.HOME_WITH_LOGIN})
        body = login if options.browser_login else t.MAIN_WEB
        imports = "\nimport html\n"
    elif options.auth == "jwt_only":
        body, imports = t.MAIN_API_JWT, ""
    else:
        body = t.MAIN_API_LOGIN if options.browser_login else t.MAIN_API
        imports = ""
    page = t.render(t.PAGE_FUNCTION, frame)
    body = t.render(body, {"page_function": page})
    return t.render(t.MAIN_HEAD, {"imports": imports}) + body + t.MAIN_TAIL


def _config(options: InitOptions) -> str:
    if options.auth == "jwt_only":
        return t.CONFIG_HEAD + t.CONFIG_JWT
    if options.auth == "oidc_only":
        return t.CONFIG_HEAD + t.CONFIG_LOGIN
    if options.auth == "oauth_only":
        return t.CONFIG_HEAD + t.CONFIG_OAUTH
    if options.auth in PASSKEY_MODES:
        tail = t.CONFIG_OIDC_PASSKEY if options.auth == "oidc_passkey" else t.CONFIG_PASSKEY_ONLY
        return t.CONFIG_HEAD + t.CONFIG_PASSKEY_HEAD + tail
    return t.CONFIG_HEAD + ("" if options.preset == "web" else t.CONFIG_API_NO_LOGIN)


def import_block(lines: tuple[str, ...]) -> str:
    """Import lines, deduplicated and sorted as isort would: the standard library, then the rest."""
    unique = sorted(set(lines), key=lambda line: (line.startswith("from "), line))
    stdlib = [line for line in unique if line.split()[1].split(".")[0] in sys.stdlib_module_names]
    rest = [line for line in unique if line not in stdlib]
    return "\n".join(stdlib) + "\n\n" + "\n".join(rest) + "\n"


def _tests(options: InitOptions) -> str:
    auth = options.auth
    imports: tuple[str, ...]
    if auth == "passkey_only":
        imports, client, pieces = t.TEST_IMPORTS_PASSKEY, t.TEST_CLIENT_PASSKEY_ONLY, [t.TEST_PASSKEY_ONLY]
    elif auth == "oidc_passkey":
        pieces = [t.TEST_ACCOUNT_NEEDS_LOGIN, t.TEST_OIDC_PASSKEY]
        imports, client = t.TEST_IMPORTS_PASSKEY, t.TEST_CLIENT_LOGIN
    elif auth == "jwt_only":
        imports, client, pieces = t.TEST_IMPORTS_JWT, t.TEST_CLIENT_JWT, [t.TEST_JWT]
    elif options.browser_login:
        web = [t.TEST_ACCOUNT_NEEDS_LOGIN, t.TEST_WEB_LOGIN]
        login_tests = web if options.preset == "web" else [t.TEST_API_LOGIN]
        imports, client, pieces = t.TEST_IMPORTS_LOGIN, t.TEST_CLIENT_LOGIN, login_tests
    else:
        imports, client, pieces = t.TEST_IMPORTS_PLAIN, t.TEST_CLIENT_PLAIN, []
    if auth in PASSKEY_MODES:
        pieces.insert(0, t.TEST_PASSKEY_HELPERS)
    fixture = ""
    if options.browser_login:
        imports = (*imports, *storage.test_imports(options))
        fixture = storage.test_fixture(options)
    head = t.render(t.TEST_HEAD, {"imports": import_block(imports)})
    return head + fixture + client + t.TEST_COMMON + "".join(pieces)


def _client(auth: str) -> str:
    if auth in ("none", "passkey_only", "jwt_only"):
        return "TestClient"
    return "fw.testing.BrowserClient"


def _test_requirements(options: InitOptions) -> list[str]:
    """What the project's own tests need: the passkey modes' tests sign in with a software
    authenticator (``fw.testing.SoftAuthenticator`` runs on soft-fido2)."""
    return ["pytest>=8", *(["soft-fido2>=0.4.56"] if options.auth in PASSKEY_MODES else [])]


def source_files(options: InitOptions) -> dict[str, str]:
    """Relative path -> text of every hand-written file, in the order they are checked and written."""
    name = options.name
    web = options.preset == "web"
    values = {
        "name": name,
        "NAME": name.upper(),
        "dist": name.replace("_", "-"),
        "mode": options.auth,
        "protected": '"/account"' if web else '"/me"',
        "unauthenticated": "redirect" if web else "unauthorized",
        "client": _client(options.auth),
        "login_href": "/login" if options.auth in PASSKEY_MODES else "/auth/login",
        **t.LOGIN_VALUES["oauth" if options.auth == "oauth_only" else "oidc"],
        "auth_backend": options.auth_backend,
        "fw_requirement": f"{DISTRIBUTION}[{','.join(storage.extras(options))}]",
        "test_requirements": ", ".join(f'"{requirement}"' for requirement in _test_requirements(options)),
        "migrations": '\nmigrations = "migrations"' if storage.uses_sql(options) else "",
    }
    if options.browser_login:
        values["storage"] = storage.config_block(options)
    pyproject = t.PYPROJECT + (t.PYPROJECT_DEV_IDP if uses_dev_provider(options.auth) else "")
    package = f"src/{name}"
    files = {
        "pyproject.toml": pyproject,
        ".gitignore": t.GITIGNORE,
        "config.dev.toml": _config(options),
        f"{package}/__init__.py": t.PACKAGE_INIT,
        f"{package}/settings.py": t.SETTINGS,
        f"{package}/main.py": _main(options),
        f"{package}/models.py": t.MODELS,
        f"{package}/handlers/__init__.py": t.HANDLERS_INIT,
        f"{package}/handlers/api/__init__.py": t.API_INIT,
        f"{package}/handlers/api/greetings.py": t.GREETINGS,
        "tests/test_app.py": _tests(options),
    }
    if storage.uses_sql(options):
        files["migrations/README.md"] = t.MIGRATIONS_README
    rendered = {path: t.render(text, values) for path, text in files.items()}
    if options.auth in PASSKEY_MODES:
        # The very bytes fw serves at {auth.passkey.path}/passkey.js (never rendered: it is JavaScript).
        rendered["public/passkey.js"] = passkey_script().decode("utf-8")
    return rendered


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
