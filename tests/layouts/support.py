"""Projects laid out the way teams lay out services, generated and run in fresh processes.

Each test writes a project into a temporary folder, runs the public ``fw generate`` in a new
interpreter, then runs :data:`PROBE` there: it imports the application as a deployment would,
sends requests through Starlette's test client, loads the settings, and prints what it saw as one
JSON object. A fresh process per step is the point: the defects this suite guards against (import
order, a module imported twice, generated files read before they were rewritten) hide in a
process that already imported everything.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

FW = [sys.executable, "-c", "import sys; from fw.cli import main; sys.exit(main(sys.argv[1:]))"]

PRELUDE = "from dataclasses import dataclass, field\nfrom typing import Annotated\n\nimport fw\n"

#: Sends the requests and reads the settings named in its JSON argument; prints one JSON object.
PROBE = r"""
import importlib, json, sys, traceback
spec = json.loads(sys.argv[1])
for folder in spec.get("path", []):
    sys.path.insert(0, folder)
out = {"requests": [], "binders": {}, "config": {}}
try:
    if spec.get("regenerate"):
        from fw.cli import _regenerate_if_stale
        from fw.generate.project import load_project
        _regenerate_if_stale(load_project())
    import fw
    from fw.binding import registry
    from starlette.testclient import TestClient
    module_name, _, attribute = spec["app"].partition(":")
    app = getattr(importlib.import_module(module_name), attribute)
    for kind in spec.get("binders", []):
        mod, _, name = kind.partition(":")
        cls = getattr(importlib.import_module(mod), name)
        try:
            registry.binder_for(cls)
            out["binders"][kind] = "ok"
        except Exception as error:
            out["binders"][kind] = f"{type(error).__name__}: {error}"
    fw.parse_config([])
    for kind in spec.get("config", []):
        mod, _, rest = kind.partition(":")
        name, _, attr = rest.partition(".")
        value = fw.config(getattr(importlib.import_module(mod), name))
        out["config"][kind] = getattr(value, attr) if attr else repr(value)
    with TestClient(app, raise_server_exceptions=False) as client:
        for method, url, headers, body in spec.get("requests", []):
            answer = client.request(method, url, headers=headers, json=body)
            errors, schemas = [], []
            kind = answer.headers.get("content-type", "")
            if kind.startswith("application/problem+json"):
                errors = sorted(item["field"] for item in answer.json().get("errors", []))
            elif kind.startswith("application/json") and "components" in answer.text:
                schemas = sorted(answer.json()["components"]["schemas"])
            out["requests"].append({"status": answer.status_code, "errors": errors, "schemas": schemas})
except Exception as error:
    out["error"] = f"{type(error).__name__}: {error}"
    out["traceback"] = traceback.format_exc()
print("PROBE " + json.dumps(out))
"""


def write(root: Path, files: Mapping[str, str]) -> None:
    """Write ``files`` (relative path -> text, dedented) below ``root``."""
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"))


def pyproject(app: str, handlers: Sequence[str], config: Sequence[str], name: str = "shop") -> str:
    return (
        f'[project]\nname = "{name}"\nversion = "1.0"\n\n'
        f'[tool.fw]\napp = "{app}"\n\n[tool.fw.generate]\n'
        f"handlers = {json.dumps(list(handlers))}\nconfig = {json.dumps(list(config))}\nopenapi = false\n"
    )


def environment(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment of a child process: this one's, without what would steer fw's settings."""
    env = {
        key: value for key, value in os.environ.items() if not key.startswith(("APP_", "AUTH_", "SERVER_"))
    }
    env.update(extra or {})
    return env


def fw(root: Path, *arguments: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """The ``fw`` command in a new interpreter, in ``cwd`` (default: the project)."""
    return subprocess.run(
        [*FW, *arguments], cwd=cwd or root, capture_output=True, text=True, timeout=120, env=environment()
    )


def generate(root: Path) -> None:
    done = fw(root, "generate")
    assert done.returncode == 0, done.stderr + done.stdout


@dataclass
class Seen:
    """What one probe run saw."""

    statuses: list[int]
    errors: list[list[str]]
    schemas: list[list[str]]
    binders: dict[str, str]
    config: dict[str, Any]
    error: str | None
    output: str

    @property
    def refused_as_stale(self) -> bool:
        """The generated code was refused with "run fw generate", never used with old rules."""
        texts = [*self.binders.values(), self.error or ""]
        return any("fw generate" in text and ("stale" in text or "no generated" in text) for text in texts)


def probe(
    root: Path,
    *,
    app: str = "shop.main:app",
    requests: Sequence[tuple[str, str, Mapping[str, str], Any]] = (),
    binders: Sequence[str] = (),
    config: Sequence[str] = (),
    regenerate: bool = False,
    cwd: Path | None = None,
    path: Sequence[str] | None = None,
    command: Sequence[str] | None = None,
) -> Seen:
    """Run :data:`PROBE` (or ``command``) in a new interpreter and read what it printed."""
    spec = {
        "app": app,
        "requests": [list(item) for item in requests],
        "binders": list(binders),
        "config": list(config),
        "regenerate": regenerate,
        "path": [str(root / "src"), str(root)] if path is None else list(path),
    }
    argv = (
        [sys.executable, "-c", PROBE, json.dumps(spec)] if command is None else [*command, json.dumps(spec)]
    )
    done = subprocess.run(
        argv, cwd=cwd or root, capture_output=True, text=True, timeout=120, env=environment()
    )
    line = next((text for text in done.stdout.splitlines() if text.startswith("PROBE ")), None)
    assert line is not None, f"the probe printed nothing:\n{done.stdout}\n{done.stderr}"
    seen = json.loads(line[len("PROBE ") :])
    return Seen(
        [item["status"] for item in seen["requests"]],
        [item["errors"] for item in seen["requests"]],
        [item["schemas"] for item in seen["requests"]],
        seen["binders"],
        seen["config"],
        seen.get("error"),
        done.stdout + done.stderr,
    )


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text, f"{old!r} not in {path}"
    path.write_text(text.replace(old, new))
