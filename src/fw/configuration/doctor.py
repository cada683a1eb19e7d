"""Configuration advisories: what the pillars' providers report, and secrets written into files.

``fw doctor`` prints them as lines starting ``error:`` or ``warning:`` (an error makes it exit
non-zero); the startup summary carries the same findings, so a deployment that never runs the
doctor still sees them at their level. No advisory carries a secret value (secrets appear
masked), and none names a key marked ``secret("hide")``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

from fw.configuration.advisory import Advisory, AdvisoryContext, provided
from fw.configuration.masking import MASK, mask_dsn
from fw.configuration.schema import Field, Loader
from fw.configuration.tomlfile import Entry, FileLayer

_FIX = "secrets are never committed; reference the environment with ${NAME} instead"


def advisories(
    loaders: list[Loader],
    values: Mapping[str, Any],
    sources: Mapping[str, str],
    file: FileLayer | None,
    app_env: str,
) -> list[Advisory]:
    """The registered providers' findings, then the secrets written literally into ``file``."""
    found = provided(AdvisoryContext(values, sources, app_env))
    if file is not None:
        for loader in loaders:
            for spec in loader.fields:
                entry = file.values.get(spec.key)
                if entry is not None:
                    found.extend(_written_secret(spec, entry, file.path))
    return found


def _written_secret(spec: Field, entry: Entry, path: str) -> list[Advisory]:
    """A secret value written into the file itself (not a ``${NAME}`` reference)."""
    if spec.secret in ("", "show") or entry.expanded or not entry.value:
        return []
    where = f"{path}:{entry.line}"
    if spec.secret == "hide":
        return [Advisory("warning", "", f"a hidden secret is written in {where}: {_FIX}")]
    if spec.secret == "dsn":
        if urlsplit(str(entry.value)).password is None:
            return []
        shown = mask_dsn(str(entry.value))
    else:
        shown = MASK
    return [Advisory("warning", spec.key, f"{spec.key} = {shown} is written in {where}: {_FIX}")]
