"""Importing fw registers nothing: fw's own pillars (authentication's extension factory, OpenAPI
security, its summary filter, advisories and removed keys; the store tables' filter; the
``server.docs`` decision) join when first needed (``fw.pillars``: an App's first start,
``fw.parse_config``, ``fw.testing.configured``, the ``fw`` command), so what an App composes and
what ``fw doctor`` judges never depend on which module was imported first. Each check runs in a
fresh interpreter, since this process has long handed them over."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytestmark = pytest.mark.timeout(120)

REGISTRIES = """
from fw import extension
from fw.configuration import activity, advisory, effective, removed

def registered():
    return {
        "extensions": len(extension._factories),
        "openapi": len(extension._security_providers),
        "public": len(extension._public_path_providers),
        "inactive": len(activity._hooks),
        "advisories": len(advisory._providers),
        "removed": sorted(removed._removed),
        "effective": sorted(effective._hooks),
    }
"""


# subprocess.run spelled out: its keyword arguments are all it shares with other tests' runs.
def run(code: str, cwd: Path) -> str:
    result = subprocess.run(
        [sys.executable, "-c", REGISTRIES + textwrap.dedent(code)],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=100,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout.strip()


def test_importing_fw_and_its_public_packages_registers_nothing(tmp_path: Path) -> None:
    out = run(
        """
        import fw, fw.auth, fw.testing, fw.configuration, fw.app
        print(registered())
        """,
        tmp_path,
    )
    empty = {
        "extensions": 0,
        "openapi": 0,
        "public": 0,
        "inactive": 0,
        "advisories": 0,
        "removed": [],
        "effective": [],
    }
    assert out == str(empty)


def test_the_first_configured_block_hands_fws_own_pillars_over_before_it_parses(tmp_path: Path) -> None:
    out = run(
        """
        import fw.testing
        from fw.errors import ConfigError

        try:
            with fw.testing.configured(toml="[auth.oidc]\\nprovider_logout = true\\n"):
                pass
        except ConfigError as error:
            print("refused:", error.key)
        print(registered())
        """,
        tmp_path,
    )
    refused, registries = out.splitlines()
    assert refused == "refused: auth.oidc.provider_logout"  # auth's removed key, known at the first parse
    assert registries == str(
        {
            "extensions": 3,  # authentication, health and readiness, observability
            "openapi": 1,
            "public": 1,  # the health endpoints and the metrics scrape path
            "inactive": 2,
            "advisories": 2,
            "removed": ["auth.oidc.provider_logout"],
            "effective": ["server.docs"],
        }
    )


def test_an_app_composes_authentication_with_nothing_registered_at_import(tmp_path: Path) -> None:
    out = run(
        """
        from fw.app import App
        from fw.errors import StartupError
        from fw.testing import configured
        from starlette.testclient import TestClient

        assert registered()["extensions"] == 0
        toml = '[auth]\\nenabled = true\\nmode = "jwt_only"\\n[auth.jwt]\\nissuer = "http://example.com"\\n'
        try:
            with configured(toml=toml), TestClient(App()):
                pass
        except StartupError as error:
            print("refused:", error.key)
        """,
        tmp_path,
    )
    assert out.startswith("refused: auth.jwt.")  # jwt_only composed and checked its settings
