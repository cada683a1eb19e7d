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
from pathlib import Path

import fw.scaffold.templates as t
from fw.scaffold.options import ScaffoldError

#: Generous: the children only import the project and fw, but CI machines can be slow.
_TIMEOUT = 120.0
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


def env_example(root: Path, name: str, config_text: str) -> str:
    """``.env.example``: the entries of the app's env template a developer sets or may change.

    Variables ``config.dev.toml`` references as ``${NAME}`` are listed to be filled in; the
    app's own settings are listed commented out (the file already gives them, and a value in
    ``.env`` would silently win over it).
    """
    template = _run(root, ["-m", f"{name}.main", "--generate-config", "env"], "--generate-config env")
    settings = "\n".join(line for line in config_text.splitlines() if not line.lstrip().startswith("#"))
    referenced = set(_REFERENCE.findall(settings))
    own = f"{name.upper()}_"
    blocks: list[str] = []
    for block in template.split("\n\n"):
        lines = block.strip().splitlines()
        if not lines or "=" not in lines[-1] or lines[-1].startswith("#"):
            continue
        variable = lines[-1].partition("=")[0]
        if variable in referenced:
            blocks.append("\n".join(lines))
        elif variable.startswith(own):
            blocks.append("\n".join([*lines[:-1], f"# {lines[-1]}"]))
    missing = referenced - {block.splitlines()[-1].partition("=")[0] for block in blocks}
    for variable in sorted(missing):  # a reference to a variable no setting reads
        blocks.append(f"# referenced by config.dev.toml\n{variable}=")
    return t.render(t.ENV_HEAD, {"name": name}) + "\n" + "\n\n".join(blocks) + "\n"
