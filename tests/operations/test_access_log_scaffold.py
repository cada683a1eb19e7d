"""``fw init`` writes a ``config.prod.toml`` that turns the access log on, and a development
configuration that leaves it off (its default)."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

import fw.configuration
from fw.scaffold import init_options, scaffold
from fw.settings import AccessLogSettings


@pytest.mark.parametrize(("preset", "auth"), [("web", "oidc_only"), ("api", None), ("web", "none")])
def test_the_production_configuration_turns_the_access_log_on(
    tmp_path: Path, preset: str, auth: str | None
) -> None:
    root = tmp_path / "shop"
    scaffold(init_options(root, name=None, preset=preset, auth=auth))
    prod = (root / "config.prod.toml").read_text(encoding="utf-8")
    assert tomllib.loads(prod)["observability"]["access_log"] == {"enabled": True}
    variables = {name: "x" for name in re.findall(r"\$\{([A-Z0-9_]+)\}", prod)}
    settings = fw.configuration.load(AccessLogSettings, "observability.access_log", toml=prod, env=variables)
    assert settings.enabled is True
    dev = (root / "config.dev.toml").read_text(encoding="utf-8")
    assert fw.configuration.load(AccessLogSettings, "observability.access_log", toml=dev).enabled is False
