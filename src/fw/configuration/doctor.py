"""Configuration advisories: risky settings and secrets written into files.

``fw doctor`` prints them as lines starting ``error:`` or ``warning:`` (an error makes it exit
non-zero); the startup summary carries the same findings, so a deployment that never runs the
doctor still sees them at their level. No advisory carries a secret value: secrets appear masked.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal
from urllib.parse import urlsplit

from fw.configuration.schema import Loader
from fw.configuration.summary import MASK, mask_dsn
from fw.configuration.tomlfile import FileLayer

_BROWSER_TABLE = {"oidc_only": "auth.oidc", "oidc_passkey": "auth.oidc", "oauth_only": "auth.oauth"}


@dataclass(frozen=True, slots=True)
class Advisory:
    """One finding: its level, the key it is about, and the sentence explaining it."""

    level: Literal["error", "warning"]
    key: str
    msg: str

    def line(self) -> str:
        return f"{self.level}: {self.msg}"


def advisories(
    loaders: list[Loader],
    values: Mapping[str, Any],
    sources: Mapping[str, str],
    file: FileLayer | None,
    app_env: str,
) -> list[Advisory]:
    lines: list[Advisory] = []
    auth_on = values.get("auth.enabled") is True
    mode = values.get("auth.mode", "")
    revocation_on = values.get("auth.jwt.revocation.mode") not in (None, "", "off")
    admit = values.get("auth.jwt.revocation.on_unavailable") == "admit"
    if auth_on and mode == "jwt_only" and revocation_on and admit:
        source = sources.get("auth.jwt.revocation.on_unavailable", "default")
        lines.append(
            Advisory(
                "error",
                "auth.jwt.revocation.on_unavailable",
                f"auth.jwt.revocation.on_unavailable = 'admit' (from {source}): revoked tokens are "
                "accepted while the revocation store is down; use refuse (503) unless the risk is accepted",
            )
        )
    table = _BROWSER_TABLE.get(str(mode))
    if auth_on and table is not None and app_env != "dev":
        key = f"{table}.redirect_url"
        url = str(values.get(key, ""))
        parts = urlsplit(url)
        if not url:
            lines.append(
                Advisory(
                    "error",
                    key,
                    f"{key} is empty: outside dev set the absolute callback URL registered at the "
                    "provider (https://host/auth/callback)",
                )
            )
        elif not parts.scheme or not parts.netloc:
            lines.append(
                Advisory(
                    "error",
                    key,
                    f"{key} = {url!r} is path-only: outside dev it must be an absolute URL "
                    "(https://host/auth/callback)",
                )
            )
    if file is not None:
        for loader in loaders:
            for spec in loader.fields:
                entry = file.values.get(spec.key)
                if entry is None or spec.secret in ("", "show") or entry.expanded or not entry.value:
                    continue
                if spec.secret == "dsn":
                    parts = urlsplit(str(entry.value))
                    if parts.password is None:
                        continue
                    shown = mask_dsn(str(entry.value))
                else:
                    shown = MASK
                lines.append(
                    Advisory(
                        "warning",
                        spec.key,
                        f"{spec.key} = {shown} is written in {file.path}:{entry.line}: secrets are "
                        "never committed; reference the environment with ${NAME} instead",
                    )
                )
    return lines
