"""Importing the modules that hold declarations, at generation time only.

A generator reads call sites with ``ast`` but needs the classes themselves to read their
annotations, so it imports the module of each file with a call. The file is imported under its
package's dotted name (its root put on ``sys.path``), and a module of that name loaded from
another file (an earlier package of the same name) is dropped first.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType

from fw.codegen.naming import module_for, namespace_folder
from fw.errors import GenerationError

_collectors: list[set[Path]] = []


@contextmanager
def recording_reads() -> Iterator[set[Path]]:
    """Collect the file of every module :func:`import_file` imports meanwhile, the modules those
    import included: what generated code depends on, for the record of a generation."""
    files: set[Path] = set()
    _collectors.append(files)
    try:
        yield files
    finally:
        _collectors.remove(files)


def import_file(file: Path) -> ModuleType:
    """The module of ``file``, imported by its dotted name (raises whatever the import raises)."""
    before = set(sys.modules)
    try:
        return _import(file)
    finally:
        for collector in _collectors:
            collector.add(file)
            for name in set(sys.modules) - before:
                loaded = getattr(sys.modules.get(name), "__file__", None)
                if loaded:
                    collector.add(Path(loaded))


def _import(file: Path) -> ModuleType:
    name, root = module_for(file)
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))
    loaded = sys.modules.get(name)
    if loaded is not None and Path(getattr(loaded, "__file__", "") or "").resolve() == file.resolve():
        return loaded
    if loaded is not None:
        for cached in [module for module in sys.modules if module == name or module.startswith(name + ".")]:
            del sys.modules[cached]
    return importlib.import_module(name)


def forget_imports(before: set[str], folders: list[Path]) -> None:
    """Drop the modules imported since ``before`` from ``folders``: they were imported only to be
    read (with registration switched off), not to run."""
    for name in set(sys.modules) - before:
        file = getattr(sys.modules[name], "__file__", None)
        if file and any(Path(file).resolve().is_relative_to(folder) for folder in folders):
            del sys.modules[name]


def source_files(folder: Path, errors: list[GenerationError]) -> list[Path]:
    """The Python files below ``folder`` that generation reads, in order; a file inside a folder
    without ``__init__.py`` is refused (naming the folder) instead of imported under a wrong name."""
    files: list[Path] = []
    refused: set[Path] = set()
    for file in sorted(folder.rglob("*.py")):
        if file.name.startswith("_fw_") or "__pycache__" in file.parts:
            continue
        namespace = namespace_folder(file, folder)
        if namespace is None:
            files.append(file)
        elif namespace not in refused:
            refused.add(namespace)
            errors.append(
                GenerationError(
                    str(namespace),
                    0,
                    f"{namespace.name}/ has no __init__.py: fw imports the modules below {folder} by "
                    f"their package names, so add {namespace / '__init__.py'} (or list {namespace} itself)",
                )
            )
    return files
