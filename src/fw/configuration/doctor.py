"""Configuration advisories: what the pillars' providers report, secrets written into files, and
the file's own findings (keys no registration declares, no file at all outside ``dev``).

``fw doctor`` prints them as lines starting ``error:`` or ``warning:`` (an error makes it exit
non-zero); the startup summary carries the same findings, so a deployment that never runs the
doctor still sees them at their level. No advisory carries a secret value (secrets appear
masked), and none names a key marked ``secret("hide")``. A password inside a URL written into
the file is a secret whatever its key is called (``redis_url = "redis://default:PW@host"``):
the fix is a ``${NAME}`` reference, for the whole URL or just the password.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from pathlib import Path
from typing import Any

from fw.configuration.advisory import Advisory, AdvisoryContext, provided
from fw.configuration.filefindings import no_file, unknown_keys
from fw.configuration.masking import MASK, effective_mode, mask_dsn
from fw.configuration.schema import Field, Loader
from fw.configuration.tomlfile import Entry, FileLayer
from fw.userinfo import has_password, has_userinfo

_FIX = "secrets are never committed; reference the environment with ${NAME} instead"
_URL_FIX = (
    "secrets are never committed; reference the environment with ${NAME} instead, for the whole "
    "URL or only its password (scheme://user:${NAME}@host)"
)


def advisories(
    loaders: list[Loader],
    values: Mapping[str, Any],
    sources: Mapping[str, str],
    file: FileLayer | None,
    app_env: str,
    *,
    searched: Sequence[Path] | None = None,
    working_dir: Path | None = None,
    removed: Collection[str] = (),
) -> list[Advisory]:
    """The file's own findings (unknown keys, or no file outside ``dev``: ``searched`` is the
    search made, ``None`` when the layers were given), the registered providers' findings, then
    the secrets written literally into ``file``."""
    if file is None:
        found = no_file(app_env, searched, working_dir or Path.cwd())
    else:
        found = unknown_keys(loaders, file, removed)
    found.extend(provided(AdvisoryContext(values, sources, app_env)))
    if file is not None:
        for loader in loaders:
            for spec in loader.fields:
                entry = file.values.get(spec.key)
                if entry is not None:
                    found.extend(_written_secret(spec, entry, file.path))
    return found


def checked(loaders: list[Loader], file: FileLayer | None, app_env: str) -> str:
    """What the advisories looked at, as ``fw doctor`` says it after its findings."""
    keys = sum(len(loader.fields) + len(loader.arrays) for loader in loaders)
    if file is None:
        return (
            f"configuration (APP_ENV={app_env}, no file): {keys} declared keys loaded from defaults, "
            "the environment and options, and the pillars' rules"
        )
    elements = [element for listed in file.arrays.values() for element in listed]
    written = len(file.values) + sum(len(element) for element in elements)
    return (
        f"configuration (APP_ENV={app_env}, file {file.path} setting {written}): {keys} declared keys "
        "loaded, the file's keys compared with them, secrets written into it, and the pillars' rules"
    )


def _written_secret(spec: Field, entry: Entry, path: str) -> list[Advisory]:
    """A secret value written into the file itself (not a ``${NAME}`` reference)."""
    mode = effective_mode(entry.value, spec.secret)
    if mode in ("", "show") or entry.expanded or not entry.value:
        return []
    where = f"{path}:{entry.line}"
    if mode == "hide":
        return [Advisory("warning", "", f"a hidden secret is written in {where}: {_FIX}")]
    if mode == "dsn":
        texts = entry.value if isinstance(entry.value, list) else [entry.value]
        if not any(has_password(str(text)) for text in texts):
            return []
        shown = ",".join(mask_dsn(str(text)) if has_userinfo(str(text)) else str(text) for text in texts)
        return [Advisory("warning", spec.key, f"{spec.key} = {shown} is written in {where}: {_URL_FIX}")]
    return [Advisory("warning", spec.key, f"{spec.key} = {MASK} is written in {where}: {_FIX}")]
