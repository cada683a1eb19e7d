"""Which files a new project gets, and their text, for one preset and auth choice.

Only the hand-written files are made here; the generated ones (binders, config loaders, the
OpenAPI document) and ``.env.example`` come from fw's own tools once these exist
(:mod:`fw.scaffold.finish`), so they are exactly what ``fw generate`` would write.
"""

from __future__ import annotations

import fw.scaffold.templates as t
from fw.scaffold.options import InitOptions


def source_files(options: InitOptions) -> dict[str, str]:
    """Relative path -> text of every hand-written file, in the order they are checked and written."""
    name = options.name
    login = options.browser_login
    web = options.preset == "web"
    values = {
        "name": name,
        "NAME": name.upper(),
        "dist": name.replace("_", "-"),
        "protected": '"/account"' if web else '"/me"',
        "unauthenticated": "redirect" if web else "unauthorized",
        "client": "fw.testing.BrowserClient" if login else "TestClient",
    }

    pyproject = t.PYPROJECT + (t.PYPROJECT_DEV_IDP if login else "")
    if web:
        main_body = t.MAIN_WEB_LOGIN if login else t.MAIN_WEB
    else:
        main_body = t.MAIN_API_LOGIN if login else t.MAIN_API
    main_imports = "\nimport html\n" if web else ""
    main = t.render(t.MAIN_HEAD, {"imports": main_imports}) + main_body + t.MAIN_TAIL

    config = t.CONFIG_HEAD
    if login:
        config += t.CONFIG_LOGIN
    elif not web:
        config += t.CONFIG_API_NO_LOGIN

    test_imports = t.TEST_IMPORTS_LOGIN if login else t.TEST_IMPORTS_PLAIN
    tests = t.render(t.TEST_HEAD, {"imports": test_imports})
    tests += t.TEST_CLIENT_LOGIN if login else t.TEST_CLIENT_PLAIN
    tests += t.TEST_COMMON
    if login:
        tests += t.TEST_WEB_LOGIN if web else t.TEST_API_LOGIN

    package = f"src/{name}"
    files = {
        "pyproject.toml": pyproject,
        ".gitignore": t.GITIGNORE,
        "config.dev.toml": config,
        f"{package}/__init__.py": t.PACKAGE_INIT,
        f"{package}/settings.py": t.SETTINGS,
        f"{package}/main.py": main,
        f"{package}/handlers/__init__.py": t.HANDLERS_INIT,
        f"{package}/handlers/greetings.py": t.GREETINGS,
        "tests/test_app.py": tests,
    }
    return {path: t.render(text, values) for path, text in files.items()}


def generated_files(options: InitOptions) -> list[str]:
    """Relative paths written by the finishing step (checked for conflicts like the rest)."""
    package = f"src/{options.name}"
    return [
        f"{package}/_fw_config.py",
        f"{package}/handlers/_fw_binders.py",
        f"{package}/openapi.json",
        ".env.example",
    ]
