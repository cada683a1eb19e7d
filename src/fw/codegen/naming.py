"""How generated code and its runtime name modules and types, and find them again.

Generated files are found next to the declarations, so a module run as ``python -m app`` or as a
script (``__main__``) must be named by its importable name, or the runtime would look for the
generated file in the wrong package. Generated code names the classes it builds by module and
qualified name and finds them with :func:`declared` when it first needs them, instead of importing
the modules it describes: an import there would run a module a second time when it is
``__main__``, and would import a package's other modules in the middle of the import that asked
for the generated code (the loader of one settings module importing its half-initialised sibling).
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from types import ModuleType
from typing import Any


def module_name(name: str) -> str:
    """The importable name of module ``name``: ``__main__`` becomes the module it was run as."""
    if name != "__main__":
        return name
    main = sys.modules.get("__main__")
    spec = getattr(main, "__spec__", None)
    if spec is not None and spec.name:
        return str(spec.name)
    file = getattr(main, "__file__", None)
    return module_for(Path(file).resolve())[0] if file else name


def type_name(cls: type, separator: str = ".") -> str:
    """``package.module.Class`` (or with another separator), by the module's importable name."""
    return f"{module_name(cls.__module__)}{separator}{cls.__qualname__}"


def module_for(file: Path) -> tuple[str, Path]:
    """The dotted module name of ``file`` and the ``sys.path`` root it is importable from
    (walking up while ``__init__.py`` exists; a package's ``__init__.py`` is the package)."""
    parts = [] if file.name == "__init__.py" else [file.stem]
    folder = file.parent
    while (folder / "__init__.py").exists():
        parts.insert(0, folder.name)
        folder = folder.parent
    return ".".join(parts), folder


def namespace_folder(file: Path, listed: Path) -> Path | None:
    """The first folder between ``listed`` and ``file`` that has no ``__init__.py``, if any.

    Generation imports a file by the dotted name its ``__init__.py`` files give it; below such a
    folder that name would not be the one the application imports it by, so the folder is refused
    by name rather than imported under a wrong one.
    """
    folder = file.parent
    while folder != listed and folder.is_relative_to(listed):
        if not (folder / "__init__.py").exists():
            return folder
        folder = folder.parent
    return None


def package_of(module: str) -> str:
    """The package holding module ``module``: the module itself when it is a package's
    ``__init__``, else its parent (``""`` for a top-level module)."""
    name = module_name(module)
    loaded = sys.modules.get(module) or sys.modules.get(name)
    if loaded is not None and hasattr(loaded, "__path__"):
        return name
    return name.rpartition(".")[0]


def generated_module(module: str, output: str) -> str:
    """The generated module ``output`` (``_fw_binders``) of the package holding ``module``."""
    package = package_of(module)
    return f"{package}.{output}" if package else output


class Missing:
    """What :func:`declared` answers for a class that no longer exists where generation saw it.

    Generated code holds one per vanished class instead of failing to import, so the runtime can
    say "stale: run fw generate" for exactly the types that depend on it.
    """

    def __init__(self, module: str, qualname: str, why: str) -> None:
        self.module = module
        self.qualname = qualname
        self.why = why

    def __repr__(self) -> str:
        return f"<missing {self.module}.{self.qualname}: {self.why}>"


def running_module(name: str) -> ModuleType:
    """The module object of importable name ``name``: the loaded one, the ``__main__`` module
    when that is ``name`` run as a program, else ``name`` imported now."""
    loaded = sys.modules.get(name)
    if loaded is not None:
        return loaded
    main = sys.modules.get("__main__")
    if main is not None and getattr(main, "__file__", None) and module_name("__main__") == name:
        return main
    return importlib.import_module(name)


def declared(module: str, qualname: str) -> Any:
    """The class ``qualname`` of module ``module``, or :class:`Missing` saying why it is gone.

    Typed ``Any`` because generated code calls what it returns: the runtime checks every class
    a generated entry names for :class:`Missing` before the entry is used.
    """
    try:
        found: object = running_module(module)
    except ImportError as error:
        return Missing(module, qualname, f"module {module} cannot be imported ({error})")
    for part in qualname.split("."):
        found = getattr(found, part, None)
        if found is None:
            return Missing(module, qualname, f"{module} has no class {qualname}")
    if not isinstance(found, type):
        return Missing(module, qualname, f"{module}.{qualname} is not a class")
    return found


def missing_among(classes: tuple[object, ...]) -> Missing | None:
    """The first :class:`Missing` in ``classes``, if any."""
    return next((item for item in classes if isinstance(item, Missing)), None)


__all__ = [
    "Missing",
    "declared",
    "generated_module",
    "missing_among",
    "module_for",
    "module_name",
    "namespace_folder",
    "package_of",
    "running_module",
    "type_name",
]
