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


#: Folders that hold installed or foreign code, or tools' state, never the project's sources.
FOREIGN = frozenset({".venv", "venv", ".tox", ".nox", "site-packages", "node_modules", ".git", "__pycache__"})


def source_files(folder: Path, name: str = "*.py") -> list[Path]:
    """The Python files below ``folder`` that generation reads, in order (no generated file, none
    in a virtual environment, cache or hidden folder); with ``name``, the files so named."""
    return [
        file
        for file in sorted(folder.rglob(name))
        if (name != "*.py" or not file.name.startswith("_fw_"))
        and not any(part in FOREIGN or part.startswith(".") for part in file.relative_to(folder).parts[:-1])
    ]


def unimportable(file: Path, folder: Path) -> GenerationError | None:
    """Why ``file`` (listed below ``folder``) cannot be imported for generation, if it cannot.

    A file inside a folder without ``__init__.py`` would be imported under a name the application
    does not use, so the folder is refused by name instead.
    """
    namespace = namespace_folder(file, folder)
    if namespace is None:
        return None
    return GenerationError(
        str(file),
        1,
        f"{namespace} has no __init__.py: fw imports the modules below {folder} by their package "
        f"names, so add {namespace / '__init__.py'} (or list {namespace} itself)",
    )
