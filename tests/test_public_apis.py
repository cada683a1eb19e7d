"""fw reaches its dependencies through their public APIs only.

An underscore name of another distribution (a module, a function, an attribute) is not part of
what that library promises: any release may rename or drop it, and fw would break without a
single changed line of its own. This test reads ``src/fw`` with ``ast`` and fails, naming
``file:line``, on:

- an import of an underscore module or name of another distribution (``import x._y``,
  ``from x._y import z``, ``from x import _z``); the standard library is not another
  distribution and is not checked;
- an access ``obj._name`` (or ``getattr``/``setattr``/``hasattr``/``delattr`` with the name as a
  string) where ``_name`` is not defined by fw itself: fw's own underscore names are those its
  modules and classes define (functions, classes, assignments, ``self._x = ...``, ``__slots__``);
  every other one belongs to some other library;
- an fw class that defines an underscore name its foreign base classes use themselves: that
  overrides, or writes over, a private piece of the library;
- a subscript key such as ``scope["starlette.exception_handlers"]``, named after another
  distribution: that library's internal state in the ASGI scope.

Dunder names are public by definition. :data:`PUBLIC_BY_CONVENTION` holds the few underscore
names a library documents as public, each with its reason.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import inspect
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import fw

SOURCE = Path(fw.__file__).parent
GENERATED = {"_fw_binders.py", "_fw_config.py"}

#: Underscore names that are public by the owning library's own documentation.
PUBLIC_BY_CONVENTION: dict[str, str] = {
    # collections.namedtuple and typing.NamedTuple document _asdict/_replace/_fields as their API
    # (the underscore only keeps them clear of field names).
    "_asdict": "namedtuple API, documented",
    "_replace": "namedtuple API, documented",
    "_fields": "namedtuple API, documented",
    # SQLAlchemy's Row documents _mapping as its public dict-like view, prefixed only so it
    # cannot clash with a column name (as namedtuple does).
    "_mapping": "SQLAlchemy Row API, documented",
}


@dataclass(frozen=True)
class Use:
    file: str
    line: int
    name: str
    what: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.what} {self.name}"


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _foreign(module: str) -> bool:
    top = module.partition(".")[0]
    return top != "fw" and top not in sys.stdlib_module_names and top != "__future__"


@cache
def _sources() -> dict[str, ast.Module]:
    return {
        path.relative_to(SOURCE.parent.parent).as_posix(): ast.parse(path.read_text(), str(path))
        for path in sorted(SOURCE.rglob("*.py"))
        if path.name not in GENERATED
    }


def _self_names(tree: ast.AST) -> Iterator[str]:
    """Underscore attributes assigned on ``self`` or ``cls``, and ``__slots__`` entries."""
    for node in ast.walk(tree):
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign)):
            targets = [node.target]
        for target in targets:
            for part in ast.walk(target):
                if (
                    isinstance(part, ast.Attribute)
                    and isinstance(part.value, ast.Name)
                    and part.value.id in ("self", "cls")
                ):
                    yield part.attr
                if isinstance(part, ast.Name) and part.id == "__slots__" and isinstance(node, ast.Assign):
                    for constant in ast.walk(node.value):
                        if isinstance(constant, ast.Constant) and isinstance(constant.value, str):
                            yield constant.value


def _defined_names(tree: ast.Module) -> Iterator[str]:
    """Every name this fw module defines: at module level, in its classes, on ``self``."""
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            yield node.name
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            yield node.id
        elif isinstance(node, ast.alias):
            yield (node.asname or node.name).partition(".")[0]
    yield from _self_names(tree)


@cache
def _fw_names() -> frozenset[str]:
    return frozenset(name for tree in _sources().values() for name in _defined_names(tree) if _private(name))


def _imports(file: str, tree: ast.Module) -> Iterator[Use]:
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if _foreign(alias.name) and any(_private(part) for part in alias.name.split(".")):
                    yield Use(file, node.lineno, alias.name, "imports the private module")
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module and _foreign(node.module):
            if any(_private(part) for part in node.module.split(".")):
                yield Use(file, node.lineno, node.module, "imports from the private module")
            for alias in node.names:
                if _private(alias.name):
                    yield Use(file, node.lineno, f"{node.module}.{alias.name}", "imports the private name")


_REFLECTION = {"getattr", "setattr", "hasattr", "delattr"}


def _accesses(file: str, tree: ast.Module) -> Iterator[Use]:
    own = _fw_names()
    for node in ast.walk(tree):
        name = None
        if isinstance(node, ast.Attribute):
            name = node.attr
        elif not isinstance(node, ast.Call):
            continue
        elif (
            isinstance(node.func, ast.Name)
            and isinstance(node.func, ast.Name)
            and node.func.id in _REFLECTION
            and len(node.args) >= 2
            and isinstance(node.args[1], ast.Constant)
            and isinstance(node.args[1].value, str)
        ):
            name = node.args[1].value
        if name is not None and _private(name) and name not in own and name not in PUBLIC_BY_CONVENTION:
            assert isinstance(node, (ast.Attribute, ast.Call))
            yield Use(file, node.lineno, name, "uses another library's private attribute")


def _import_table(tree: ast.Module) -> dict[str, str]:
    """Local name -> dotted path it was imported as."""
    table: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                table[alias.asname or alias.name.partition(".")[0]] = (
                    alias.name if alias.asname else alias.name.partition(".")[0]
                )
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            for alias in node.names:
                table[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    return table


def _resolve(dotted: str) -> object | None:
    """The object a dotted path names, importing the longest module prefix; None if unknown."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            found: object = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for attribute in parts[cut:]:
            found = getattr(found, attribute, None)
            if found is None:
                return None
        return found
    return None


def _dotted(node: ast.expr, table: dict[str, str]) -> str | None:
    if isinstance(node, ast.Name):
        return table.get(node.id)
    if isinstance(node, ast.Attribute):
        base = _dotted(node.value, table)
        return f"{base}.{node.attr}" if base else None
    if isinstance(node, ast.Subscript):  # a generic base: Foo[int]
        return _dotted(node.value, table)
    return None


@cache
def _private_names_of(cls: type) -> frozenset[str]:
    """The underscore names a foreign class's own source uses."""
    try:
        text = inspect.getsource(cls)
    except (OSError, TypeError):
        return frozenset()
    return frozenset(name for name in re.findall(r"\b_[A-Za-z]\w*", text) if _private(name))


def _overrides(file: str, tree: ast.Module) -> Iterator[Use]:
    table = _import_table(tree)
    module_classes = {node.name for node in tree.body if isinstance(node, ast.ClassDef)}
    for node in ast.walk(tree):
        if not isinstance(node, ast.ClassDef):
            continue
        foreign: list[type] = []
        for base in node.bases:
            if isinstance(base, ast.Name) and base.id in module_classes:
                dotted: str | None = f"{file[4:-3].replace('/', '.')}.{base.id}"
            else:
                dotted = _dotted(base, table)
            found = _resolve(dotted) if dotted else None
            if isinstance(found, type):
                foreign += [k for k in found.__mro__ if _foreign(k.__module__)]
        if not foreign:
            continue
        used = frozenset().union(*(_private_names_of(k) for k in foreign))
        defined = {n.name for n in node.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
        defined |= {
            t.id for n in node.body if isinstance(n, ast.Assign) for t in n.targets if isinstance(t, ast.Name)
        }
        defined |= set(_self_names(node))
        for name in sorted(n for n in defined if _private(n) and n in used):
            yield Use(file, node.lineno, name, f"class {node.name} overrides its base's private name")


def _scope_keys(file: str, tree: ast.Module) -> Iterator[Use]:
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant)):
            continue
        key = node.slice.value
        if isinstance(key, str) and "." in key and _foreign(key) and _importable(key.partition(".")[0]):
            yield Use(file, node.lineno, key, "uses another library's internal key")


@cache
def _importable(module: str) -> bool:
    return importlib.util.find_spec(module) is not None


def _uses() -> list[Use]:
    return [
        use
        for file, tree in _sources().items()
        for check in (_imports, _accesses, _overrides, _scope_keys)
        for use in check(file, tree)
    ]


def test_fw_uses_no_private_name_of_another_distribution() -> None:
    found = _uses()
    assert not found, "private names of other distributions:\n" + "\n".join(map(str, found))
