"""Projects as ``fw init`` writes them, and the ``fw`` command run in them as a person types it:
in a real process, in the project's directory, with none of the shell's fw variables."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

#: Variables the developer's shell might hold that would change what a command reads.
_OURS = ("AUTH_", "SESSION_", "SERVER_", "MIDDLEWARE_", "APP_ENV", "PK_", "SHOP_")


def fw(cwd: Path, *arguments: str, timeout: float = 120, **env: str) -> subprocess.CompletedProcess[str]:
    """``fw ARGUMENTS`` in ``cwd`` with only ``env`` added to a clean environment."""
    clean = {name: value for name, value in os.environ.items() if not name.startswith(_OURS)}
    return subprocess.run(
        [sys.executable, "-m", "fw.cli", *arguments],
        cwd=cwd,
        env={**clean, **env},
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def generated(parent: Path, name: str, *options: str) -> Path:
    """``fw init NAME OPTIONS`` in ``parent``; the project's directory."""
    done = fw(parent, "init", name, *options)
    assert done.returncode == 0, done.stdout + done.stderr
    return parent / name
