"""``fw.parse``: dispatch to generated binders, and nothing else.

Generated ``_fw_binders`` modules register one binder per type when imported. ``parse`` looks the
type up; on a miss it imports the ``_fw_binders`` module next to the type once. A binder whose
type changed after generation is refused (checked once, at registration, by a fingerprint of the
declaration), so a stale build fails loudly instead of binding the wrong fields.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Coroutine, Mapping
from typing import Any, TypeVar

from starlette.requests import Request

from fw.codegen import naming
from fw.codegen.fingerprint import fingerprint as codegen_fingerprint
from fw.codegen.naming import module_name as module_name  # the importable name, for the OpenAPI route

T = TypeVar("T")
Binder = Callable[[Request], Coroutine[Any, Any, Any]]

_binders: dict[type, Binder] = {}
_stale: dict[type, str] = {}
_imported: set[str] = set()
#: OpenAPI pieces registered by generated modules: handler key -> operation, and schemas.
operations: dict[str, dict[str, Any]] = {}
schemas: dict[str, dict[str, Any]] = {}


class NoBinderError(RuntimeError):
    """``fw.parse`` was called for a type ``fw generate`` wrote no (current) binder for."""


def type_name(cls: type) -> str:
    return naming.type_name(cls)


#: The shape of generated binder code; a module written for another shape counts as stale.
BINDER_FORMAT = 2


def fingerprint(*classes: type) -> str:
    """The digest of the declarations of ``classes`` (:mod:`fw.codegen.fingerprint`), salted with
    :data:`BINDER_FORMAT`."""
    return codegen_fingerprint(classes, f"binder format {BINDER_FORMAT}")


def register(cls: type, binder: Binder, expected: str, *closure: type) -> None:
    """Called by generated code: bind ``cls`` with ``binder`` if its declaration is unchanged."""
    if fingerprint(cls, *closure) != expected:
        _stale[cls] = expected
        _binders.pop(cls, None)
        return
    _stale.pop(cls, None)
    _binders[cls] = binder


def register_openapi(ops: Mapping[str, dict[str, Any]], pieces: Mapping[str, dict[str, Any]]) -> None:
    operations.update(ops)
    schemas.update(pieces)


def binders_module_for(module: str) -> str:
    return naming.generated_module(module, "_fw_binders")


def load_binders_near(module: str) -> None:
    """Import the generated module of ``module``'s package, once; a missing one is not an error here."""
    target = binders_module_for(module)
    if target in _imported:
        return
    _imported.add(target)
    try:
        importlib.import_module(target)
    except ModuleNotFoundError as missing:
        # Only the generated module (or a package above it) being absent means "no binders";
        # a missing import inside a generated module is a real error and propagates.
        if missing.name is None or not (target == missing.name or target.startswith(missing.name + ".")):
            raise


def binder_for(cls: type) -> Binder:
    if not isinstance(cls, type):
        raise NoBinderError(f"fw.parse needs a dataclass type, got {cls!r}: no binder can exist for it")
    binder = _binders.get(cls)
    if binder is not None:
        return binder
    load_binders_near(cls.__module__)
    binder = _binders.get(cls)
    if binder is not None:
        return binder
    if cls in _stale:
        raise NoBinderError(
            f"the generated binder for {type_name(cls)} is stale (the dataclass, or fw itself, changed since "
            "generation): run `fw generate`"
        )
    raise NoBinderError(
        f"no generated binder for {type_name(cls)}: run `fw generate` "
        "(fw.parse needs a dataclass written at the call, in a [tool.fw.generate] handlers directory)"
    )


def parse(cls: type[T], request: Request) -> Coroutine[Any, Any, T]:
    """Bind ``request`` into a ``cls`` and validate it; raises :class:`fw.BindError` listing every field.

    Only dispatches to the binder ``fw generate`` wrote for ``cls``: ``await fw.parse(T, request)``
    awaits that binder itself, with no coroutine of fw's in between.
    """
    binder = _binders.get(cls)
    if binder is None:
        binder = binder_for(cls)
    return binder(request)
