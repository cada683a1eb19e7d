"""How generated code and its runtime name modules and types.

Generated files are found next to the declarations, so a module run as ``python -m app`` or as a
script (``__main__``) must be named by its importable name, or the runtime would look for the
generated file in the wrong package.
"""

from __future__ import annotations

import sys
from pathlib import Path


def module_name(name: str) -> str:
    """The importable name of module ``name``: ``__main__`` becomes the module it was run as."""
    if name != "__main__":
        return name
    main = sys.modules.get("__main__")
    spec = getattr(main, "__spec__", None)
    if spec is not None and spec.name:
        return str(spec.name)
    file = getattr(main, "__file__", None)
    return Path(file).stem if file else name


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


def generated_module(module: str, output: str) -> str:
    """The generated module ``output`` (``_fw_binders``) of the package holding ``module``."""
    package = module_name(module).rpartition(".")[0]
    return f"{package}.{output}" if package else output
