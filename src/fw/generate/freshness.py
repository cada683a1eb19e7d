"""Whether the generated files are current: the record ``fw generate`` keeps in ``.fw/``.

File times cannot say it: an upgrade of fw, a checkout, or an edit that changes nothing the
generator writes all move them without changing the answer, and a type alias edited in another
module does not touch the files that use it. So every run of ``fw generate`` records, in the
project's git-ignored ``.fw/generated.json``, the fw version, a digest of every project source file
the run read or imported (wherever it lives: a ``models.py`` outside the handlers folders, the
module defining an alias), the Python files of the generated folders, and a digest of each output.
The generated code is current when all of these still match; when one does not, ``fw run``,
``fw dev`` and the pytest plugin run the generator (which rewrites only what changed, and renews
the record either way). The runtime check stays behind it: a binder or loader whose declaration's
fingerprint changed is refused as stale, so the old rules are never applied.
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Iterable
from pathlib import Path

from fw.codegen.imports import FOREIGN, source_files
from fw.codegen.output import fw_version
from fw.generate.project import Project

RECORD = Path(".fw") / "generated.json"


def record_path(project: Project) -> Path:
    return project.root / RECORD


def project_files(project: Project, files: Iterable[Path]) -> list[Path]:
    """The project's own source files among ``files`` (not installed packages inside it)."""
    found: set[Path] = set()
    for file in files:
        resolved = file.resolve()
        if not resolved.is_relative_to(project.root) or resolved.suffix != ".py":
            continue
        parts = resolved.relative_to(project.root).parts
        if FOREIGN.intersection(parts) or resolved.name.startswith("_fw_"):
            continue
        if resolved.is_relative_to(Path(sys.prefix).resolve()):
            continue
        found.add(resolved)
    return sorted(found)


def loaded_project_files(project: Project) -> list[Path]:
    """The project's source files whose modules are imported in this process now."""
    files = [getattr(module, "__file__", None) for module in list(sys.modules.values())]
    return project_files(project, (Path(file) for file in files if file))


def listing(project: Project) -> list[str]:
    """The Python files of the generated folders: a file added or removed there is a change."""
    names: set[str] = set()
    for folder in project.source_dirs:
        if folder.is_dir():
            names.update(_relative(project, file) for file in project_files(project, source_files(folder)))
    return sorted(names)


def write_record(project: Project, read: Iterable[Path], outputs: Iterable[Path]) -> None:
    """Record what this generation read and wrote (``.fw/`` ignores itself in git)."""
    path = record_path(project)
    path.parent.mkdir(exist_ok=True)
    ignore = path.parent / ".gitignore"
    if not ignore.exists():
        ignore.write_text("# fw's local state (generation record, development keys): never committed\n*\n")
    record = {
        "fw": fw_version(),
        "inputs": {_relative(project, file): _digest(file) for file in project_files(project, read)},
        "outputs": {
            _relative(project, file): _digest(file) for file in sorted(set(outputs)) if file.exists()
        },
        "listing": listing(project),
    }
    path.write_text(json.dumps(record, indent=1, sort_keys=True) + "\n")


def stale_reason(project: Project) -> str | None:
    """Why the generated files may be out of date, or ``None`` when nothing they depend on changed."""
    path = record_path(project)
    try:
        record = json.loads(path.read_text())
    except (OSError, ValueError):
        return f"no record of the last generation ({RECORD})"
    if not isinstance(record, dict):
        return f"{RECORD} is not a generation record"
    if record.get("fw") != fw_version():
        return f"fw changed from {record.get('fw')} to {fw_version()} since the last generation"
    for what, entries in (("generated file", record.get("outputs")), ("source", record.get("inputs"))):
        if not isinstance(entries, dict):
            return f"{RECORD} is not a generation record"
        for name, digest in entries.items():
            file = project.root / name
            if not file.exists():
                return f"{what} {name} is gone"
            if _digest(file) != digest:
                return f"{what} {name} changed"
    if record.get("listing") != listing(project):
        return "a Python file was added to or removed from a generated folder"
    return None


def _relative(project: Project, file: Path) -> str:
    return file.resolve().relative_to(project.root).as_posix()


def _digest(file: Path) -> str:
    return hashlib.blake2b(file.read_bytes(), digest_size=16).hexdigest()
