"""The last step of ``fw init``: let fw's own tools write what they own.

The binders, config loaders and OpenAPI document come from ``fw generate``, and ``.env.example``
from the env template (``--generate-config env``) of the new app itself, so a fresh project
runs without a separate ``fw generate`` and nothing here restates what those tools decide. Both
run in child processes: importing the new project's modules into this process would leave its
package and configuration registrations behind (and a second project of the same name would
find the first one's modules).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

from fw.scaffold.options import ScaffoldError
from fw.scaffold.render import render

#: Generous: the children only import the project and fw, but CI machines can be slow.
_TIMEOUT = 120.0
#: What the variables that only the scaffold's config files introduce hold (no setting reads them).
_MEANING = {
    "DATABASE_URL": "the SQL database (postgresql://user:password@host:5432/name)",
    "REDIS_URL": "the Redis server of the sessions (redis://:password@host:6379/0)",
    "PUBLIC_HOST": "the host name people browse (app.example.com): callback URL and passkey RP ID",
}
_REFERENCE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


def _child_env(root: Path) -> dict[str, str]:
    env = dict(os.environ)
    src = str(root / "src")
    env["PYTHONPATH"] = src + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env


def _run(root: Path, args: list[str], what: str) -> str:
    try:
        result = subprocess.run(
            [sys.executable, *args],
            cwd=root,
            env=_child_env(root),
            capture_output=True,
            text=True,
            timeout=_TIMEOUT,
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise ScaffoldError(f"{what} did not finish within {_TIMEOUT:.0f}s") from None
    if result.returncode != 0:
        lines = [line for line in result.stderr.splitlines() if line.strip()]
        reason = lines[-1] if lines else f"exit status {result.returncode}"
        raise ScaffoldError(f"{what} failed: {reason}")
    return result.stdout


def generate(root: Path) -> None:
    """``fw generate`` in the new project (its ``src`` importable, as an installed project's is)."""
    _run(root, ["-m", "fw.cli", "--project", str(root), "generate"], "fw generate")


def references(config_texts: Mapping[str, str]) -> dict[str, list[str]]:
    """Every ``${NAME}`` the config files reference (comments aside) -> the files naming it."""
    found: dict[str, list[str]] = {}
    for file, text in config_texts.items():
        settings = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("#"))
        for variable in _REFERENCE.findall(settings):
            if file not in found.setdefault(variable, []):
                found[variable].append(file)
    return found


def env_example(root: Path, name: str, config_texts: Mapping[str, str]) -> str:
    """``.env.example``: the entries of the app's env template a developer sets or may change.

    Every variable a config file (``config.dev.toml``, ``config.prod.toml``) references as
    ``${NAME}`` is listed to be filled in, saying which files read it; the app's own settings
    are listed commented out (the file already gives them, and a value in ``.env`` would
    silently win over it).
    """
    template = _run(root, ["-m", f"{name}.main", "--generate-config", "env"], "--generate-config env")
    referenced = references(config_texts)
    own = f"{name.upper()}_"
    blocks: list[str] = []
    listed: set[str] = set()
    for block in template.split("\n\n"):
        lines = block.strip().splitlines()
        if not lines or "=" not in lines[-1] or lines[-1].startswith("#"):
            continue
        variable = lines[-1].partition("=")[0]
        if variable in referenced:
            files = " and ".join(referenced[variable])
            blocks.append("\n".join([*lines[:-1], f"# referenced by {files}", lines[-1]]))
            listed.add(variable)
        elif variable.startswith(own):
            blocks.append("\n".join([*lines[:-1], f"# {lines[-1]}"]))
    for variable in sorted(set(referenced) - listed):  # a reference to a variable no setting reads
        meaning = f"# {variable}: {_MEANING[variable]}\n" if variable in _MEANING else ""
        blocks.append(f"{meaning}# referenced by {' and '.join(referenced[variable])}\n{variable}=")
    return render("project/env_head.j2", {"name": name}) + "\n" + "\n\n".join(blocks) + "\n"
