"""``import fw`` stays light (DESIGN 10.1): it loads no optional driver or SDK and none of the
store, auth-mode, protocol or database code that the configuration has not selected, yet every
public name of ``fw`` and ``fw.auth`` still resolves to the object its pillar defines.

Each check runs in a fresh interpreter and judges by what ``sys.modules`` holds afterwards; the
pytest process has long imported everything, so it could not tell.
"""

from __future__ import annotations

import ast
import importlib
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import fw
import fw.auth

#: Top-level packages only an extra (or a feature the configuration selects) may bring in.
OPTIONAL = (
    "webauthn",
    "asyncpg",
    "redis",
    "aiobotocore",
    "botocore",
    "google.cloud",
    "prometheus_client",
    "opentelemetry",
    "swagger_ui_bundle",
)
#: Base dependencies that only the stores, the token core or passkeys need.
NOT_FOR_IMPORT = ("sqlalchemy", "alembic", "aiosqlite", "joserfc", "cryptography", "cbor2", "httpx2")
#: All the auth code ``import fw`` may load: the package and the facade's lazy wiring.
AUTH_WIRING = {"fw.auth", "fw.auth.wiring", "fw.auth.advisories"}
#: The tables ``import fw`` registers (fw.pillars) outside fw.settings: ``[auth]``, ``[session]``
#: and each store engine's declaration with its ``[middleware.<engine>]`` table, plus the store
#: registry widening the backend keys; data and small callables, no engine or mode code.
DECLARATIONS = {
    "fw.auth.settings",
    "fw.auth.sessions",
    "fw.auth.sessions.settings",
    "fw.auth.stores",
    "fw.auth.stores.engine",
    "fw.auth.stores.engines",
    *(f"fw.auth.stores.engines.{engine}" for engine in ("rdb", "cookie", "redis", "dynamo", "firestore")),
    "fw.auth.stores.registry",
}


def loaded_after(code: str, cwd: Path) -> set[str]:
    """The names in ``sys.modules`` after ``code`` ran in a new interpreter (in ``cwd``)."""
    probe = textwrap.dedent(code) + "\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))\n"
    result = subprocess.run(
        [sys.executable, "-c", probe], cwd=cwd, capture_output=True, text=True, timeout=120, check=False
    )
    assert result.returncode == 0, result.stderr
    return set(json.loads(result.stdout.splitlines()[-1]))


def under(modules: set[str], *packages: str) -> list[str]:
    """The members of ``modules`` that are one of ``packages`` or lie beneath one."""
    return sorted(m for m in modules if any(m == p or m.startswith(f"{p}.") for p in packages))


def fw_code(modules: set[str]) -> list[str]:
    """fw's own modules of auth and the database, except the wiring and the declarations
    ``import fw`` needs."""
    return [m for m in under(modules, "fw.auth", "fw.rdb") if m not in AUTH_WIRING | DECLARATIONS]


# What `import fw` loads.
def test_import_fw_loads_no_optional_driver_or_sdk(tmp_path: Path) -> None:
    assert under(loaded_after("import fw", tmp_path), *OPTIONAL) == []


def test_import_fw_loads_no_database_token_or_passkey_library(tmp_path: Path) -> None:
    assert under(loaded_after("import fw", tmp_path), *NOT_FOR_IMPORT) == []


def test_import_fw_loads_no_store_mode_protocol_or_database_code_of_fw(tmp_path: Path) -> None:
    assert fw_code(loaded_after("import fw", tmp_path)) == []


def test_import_fw_registers_every_table_fw_declares_and_every_engine_it_ships(tmp_path: Path) -> None:
    """fw's tables live with the code owning them; the facade's import registers them all, in
    order, and the store registry's names are accepted by a parse that nothing else prepared."""
    loaded = loaded_after(
        """
        import fw
        from fw.auth.sessions.settings import SessionSettings
        from fw.auth.settings import AuthSettings
        from fw.configuration import load, registry

        assert [r.name for r in registry.state().configs.values()] == [
            "server", "server.health", "observability.access_log", "observability.metrics",
            "observability.tracing", "session", "middleware.rdb", "middleware.dynamo",
            "middleware.firestore", "auth",
        ]
        assert load(AuthSettings, "auth", toml='[auth]\\nbackend = "firestore"').backend == "firestore"
        assert load(AuthSettings, "auth").backend == "rdb"
        assert load(SessionSettings, "session", env={"SESSION_BACKEND": "redis"}).backend == "redis"
        """,
        tmp_path,
    )
    assert fw_code(loaded) == []


def test_the_probe_sees_what_a_store_and_a_passkey_mode_load(tmp_path: Path) -> None:
    """The checks above would pass vacuously if the probe saw nothing: importing the rdb store
    and passkey_only's extension does load them, SQLAlchemy and webauthn."""
    loaded = loaded_after("import fw.auth.stores.rdb, fw.auth.modes.passkey_only.extension", tmp_path)
    assert {"fw.auth.stores.rdb", "fw.auth.modes.passkey_only.extension"} <= set(fw_code(loaded))
    assert "sqlalchemy" in loaded and "webauthn" in loaded


#: The smallest app: one route, called once through the test client (whose block stays open).
HELLO_APP = """
import fw
from starlette.testclient import TestClient

app = fw.App()

@app.route("GET /hi")
async def hi(request: fw.Request) -> fw.Response:
    return fw.JSONResponse({"hi": 1})

with TestClient(app) as client:
    assert client.get("/hi").json() == {"hi": 1}
"""


def test_an_app_with_authentication_off_starts_and_answers_without_loading_auth_code(tmp_path: Path) -> None:
    loaded = loaded_after(HELLO_APP + '    assert client.get("/openapi.json").status_code == 200\n', tmp_path)
    assert fw_code(loaded) == []
    # In dev /docs is on unless configured off, so the docs extra's Swagger UI is the one
    # optional package this configuration selects; the test client itself runs on httpx2.
    assert under(loaded, *(set(OPTIONAL) - {"swagger_ui_bundle"}), *(set(NOT_FOR_IMPORT) - {"httpx2"})) == []


#: Makes every optional package unimportable in the probe, as in an install without extras.
WITHOUT_EXTRAS = "import sys\n" + "".join(f"sys.modules[{name!r}] = None\n" for name in OPTIONAL)


def test_import_fw_and_an_app_work_with_no_extra_installed(tmp_path: Path) -> None:
    loaded_after(WITHOUT_EXTRAS + HELLO_APP, tmp_path)


def test_a_passkey_call_without_the_passkeys_extra_names_the_pip_install(tmp_path: Path) -> None:
    loaded_after(
        WITHOUT_EXTRAS
        + """
import fw.auth

for name in ("passkeys", "issue_bootstrap_credential"):
    try:
        getattr(fw.auth, name)
    except ImportError as error:
        assert str(error) == f"fw.auth.{name} needs the passkeys extra: pip install 'fw-web[passkeys]'"
    else:
        raise AssertionError(f"fw.auth.{name} imported without webauthn")
assert fw.auth.revoke_token.__name__ == "revoke_token"  # names that need no extra still resolve
""",
        tmp_path,
    )


def test_fw_init_writes_every_modes_project_and_fw_version_answers_with_no_extra_installed(
    tmp_path: Path,
) -> None:
    loaded_after(
        WITHOUT_EXTRAS
        + """
import contextlib, io
from fw.cli import main

for name, options in [
    ("shop", []),
    ("mix", ["--auth", "oidc_passkey"]),
    ("vault", ["--auth", "passkey_only"]),
    ("chirp", ["--auth", "oauth_only"]),
    ("api", ["--preset", "api"]),
]:
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(["init", name, *options]) == 0, name
try:
    with contextlib.redirect_stdout(io.StringIO()):
        main(["--version"])
except SystemExit as exited:
    assert exited.code == 0
""",
        tmp_path,
    )
    assert sorted(path.name for path in tmp_path.iterdir()) == ["api", "chirp", "mix", "shop", "vault"]


JWT_ONLY_ENV = {
    "AUTH_ENABLED": "true",
    "AUTH_MODE": "jwt_only",
    "AUTH_JWT_ISSUER": "https://issuer.example",
    "AUTH_JWT_AUDIENCE": "api",
    "AUTH_JWT_ALGORITHMS": "RS256",
    "AUTH_JWT_ADMISSION": "authenticated",
    "AUTH_JWT_MAX_TOKEN_LIFETIME": "1h",
    "AUTH_JWT_REVOCATION_MODE": "off",
}
OTHER_MODES = ("oidc_only", "oidc_passkey", "passkey_only", "oauth_only")
#: A script building a jwt_only App from the environment, as a project's app module does.
JWT_ONLY_APP = """
import fw
from fw.auth.modes.jwt_only import JwtOnly
from fw.extension import build_extensions

app = fw.App()
fw.parse_config()
assert JwtOnly in [type(extension) for extension in build_extensions(app)]
"""


def test_a_jwt_only_app_loads_no_other_modes_code_and_no_webauthn(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, value in JWT_ONLY_ENV.items():
        monkeypatch.setenv(name, value)
    loaded = loaded_after(JWT_ONLY_APP, tmp_path)
    # Every mode's registry entry is loaded (auth.mode is checked against them); nothing else of theirs.
    others = under(loaded, *(f"fw.auth.modes.{mode}" for mode in OTHER_MODES))
    assert [m for m in others if not m.endswith(("_only", "_passkey", ".mode"))] == []
    protocols = ("fw.auth.webauthn", "fw.auth.passkey", "fw.auth.passkeys", "fw.auth.oidc", "fw.auth.oauth")
    assert under(loaded, *protocols) == []
    assert under(loaded, "webauthn", "redis", "asyncpg", "aiobotocore", "google.cloud") == []


def test_a_jwt_only_app_on_a_non_rdb_backend_loads_no_sqlalchemy_and_no_browser_assurance(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, value in {**JWT_ONLY_ENV, "AUTH_BACKEND": "dynamo"}.items():
        monkeypatch.setenv(name, value)
    loaded = loaded_after(JWT_ONLY_APP, tmp_path)
    assert under(loaded, "sqlalchemy", "fw.rdb", "fw.auth.assurance") == []


# The public names.
@pytest.mark.parametrize("package", ["fw", "fw.auth"])
def test_every_public_name_resolves_in_a_fresh_interpreter(package: str, tmp_path: Path) -> None:
    loaded_after(
        f"""
        import {package} as package
        assert set(package.__all__) <= set(dir(package))
        missing = [name for name in package.__all__ if not hasattr(package, name)]
        assert missing == [], missing
        """,
        tmp_path,
    )


@pytest.mark.parametrize("name", fw.auth.__all__)
def test_each_name_of_fw_auth_is_the_object_its_module_defines(name: str) -> None:
    value = getattr(fw.auth, name)
    assert value is getattr(importlib.import_module(fw.auth._EXPORTS[name]), name)


def test_the_names_type_checkers_see_are_the_names_fw_auth_exports_from_the_same_modules() -> None:
    tree = ast.parse(Path(fw.auth.__file__).read_text())
    guarded = next(
        node for node in tree.body if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING"
    )
    seen = {
        alias.name: node.module
        for node in guarded.body
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
    }
    assert seen == fw.auth._EXPORTS
    assert sorted(fw.auth.__all__) == sorted(fw.auth._EXPORTS)


def test_fw_request_authentication_is_the_auth_pillars_accessor() -> None:
    from fw.auth.caller import request_authentication

    assert fw.request_authentication is request_authentication


def test_an_unknown_name_is_an_attribute_error_naming_it() -> None:
    with pytest.raises(AttributeError, match=r"'fw' has no attribute 'no_such_name'"):
        fw.no_such_name  # noqa: B018
    with pytest.raises(AttributeError, match=r"'fw\.auth' has no attribute 'no_such_name'"):
        fw.auth.no_such_name  # noqa: B018


def test_fw_auth_passkeys_stays_the_function_after_its_subpackage_is_imported(tmp_path: Path) -> None:
    """A subpackage is called ``passkeys`` too, and importing it sets that attribute on fw.auth."""
    loaded_after(
        """
        import fw.auth
        import fw.auth.passkeys.endpoints
        from fw.auth import passkeys
        from fw.auth.passkeys.calls import passkeys as defined

        assert fw.auth.passkeys is defined and passkeys is defined
        """,
        tmp_path,
    )


# Import order.
FIRST_IMPORT = """
import importlib, json, os, sys, tempfile, traceback

names = json.loads(sys.argv[1])


def in_child(job):
    with tempfile.TemporaryFile("w+") as out:
        pid = os.fork()
        if pid == 0:
            try:
                out.write(json.dumps(job()))
                out.flush()
            except BaseException:
                out.write(json.dumps(traceback.format_exc()))
                out.flush()
                os._exit(1)
            os._exit(0)
        _, status = os.waitpid(pid, 0)
        out.seek(0)
        return os.waitstatus_to_exitcode(status), json.loads(out.read() or "null")


def everything():
    for name in names:
        importlib.import_module(name)
    return sorted(m for m in sys.modules if m.partition(".")[0] not in ("fw", "__main__"))


code, libraries = in_child(everything)
assert code == 0, libraries
for library in libraries:  # the libraries once, here: each child then runs only fw's own code
    try:
        importlib.import_module(library)
    except Exception:  # an alias such as multiprocessing's __mp_main__: not fw's to judge
        pass
failed = {}
for name in names:
    code, found = in_child(lambda: importlib.import_module(name) and None)
    if code:
        failed[name] = found
print(json.dumps(failed))
"""


def fw_modules() -> list[str]:
    """Every importable module of fw (generated files, migration scripts and ``__main__`` modules,
    which run a program, aside)."""
    root = Path(fw.__file__).parent
    names = []
    for path in sorted(root.rglob("*.py")):
        if path.name in ("_fw_binders.py", "_fw_config.py", "__main__.py") or "migrations" in path.parts:
            continue
        parts = path.relative_to(root.parent).with_suffix("").parts
        names.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return names


@pytest.mark.skipif(not hasattr(os, "fork"), reason="forks one child per module")
@pytest.mark.timeout(600)  # about 250 children: 20 s on a quiet machine, 75 s on a loaded one
def test_every_module_of_fw_imports_when_it_is_the_first_one_imported(tmp_path: Path) -> None:
    """With the public names imported on first use, a program may import any module first; a
    cycle through a package's ``__init__`` (which the architecture test does not see) would then
    fail with a partially initialised module."""
    result = subprocess.run(
        [sys.executable, "-c", FIRST_IMPORT, json.dumps(fw_modules())],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout.splitlines()[-1]) == {}
