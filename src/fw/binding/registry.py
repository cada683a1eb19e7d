"""``fw.parse``: dispatch to generated binders, and nothing else.

Generated ``_fw_binders`` modules register one binder per type when imported. ``fw generate``
writes one such module into every package that declares a bound type (and one next to every
handler that calls ``fw.parse``, for its OpenAPI operation), so ``parse`` finds a type's binder
wherever the type lives: on a miss it imports the ``_fw_binders`` module of the type's package
once. A binder whose type changed after generation is refused (checked once, at registration, by
a fingerprint of the resolved declaration), so a stale build fails loudly instead of binding the
wrong fields; so is one whose class, or a class it builds, no longer exists where generation
found it.
"""

from __future__ import annotations

import importlib
import typing
from collections.abc import Callable, Coroutine, Iterable, Mapping
from typing import Any, TypeVar

from starlette.requests import Request

from fw.codegen import naming
from fw.codegen.fingerprint import fingerprint as codegen_fingerprint
from fw.codegen.naming import module_name as module_name  # the importable name, for the OpenAPI route

T = TypeVar("T")
Binder = Callable[[Request], Coroutine[Any, Any, Any]]

_binders: dict[type, Binder] = {}
#: Types whose generated binder no longer matches the declaration, with why.
_stale: dict[type, str] = {}
#: Generated modules imported (or tried) once, with the failure that made a whole module unusable.
_imported: dict[str, str | None] = {}
#: OpenAPI pieces registered by generated modules: handler key -> operation, and schemas.
operations: dict[str, dict[str, Any]] = {}
schemas: dict[str, dict[str, Any]] = {}


class NoBinderError(RuntimeError):
    """``fw.parse`` was called for a type ``fw generate`` wrote no (current) binder for."""


def type_name(cls: type) -> str:
    return naming.type_name(cls)


#: The shape of generated binder code; a module written for another shape counts as stale.
BINDER_FORMAT = 3


def fingerprint(*classes: type) -> str:
    """The digest of the declarations of ``classes`` (:mod:`fw.codegen.fingerprint`), salted with
    :data:`BINDER_FORMAT`."""
    return codegen_fingerprint(classes, f"binder format {BINDER_FORMAT}")


def register(
    cls: type | naming.Missing, binder: Binder, expected: str, *closure: type | naming.Missing
) -> None:
    """Called by generated code: bind ``cls`` with ``binder`` if its declaration is unchanged."""
    if isinstance(cls, naming.Missing):
        return  # the type itself is gone: nothing can ask for its binder
    gone = naming.missing_among(closure)
    if gone is not None:
        _stale[cls] = f"a class it binds is gone ({gone.why})"
    elif fingerprint(cls, *typing.cast(tuple[type, ...], closure)) != expected:
        _stale[cls] = "the dataclass, a type it uses, or fw itself changed since generation"
    else:
        _stale.pop(cls, None)
        _binders[cls] = binder
        return
    _binders.pop(cls, None)


def register_openapi(ops: Mapping[str, dict[str, Any]], pieces: Mapping[str, dict[str, Any]]) -> None:
    operations.update(ops)
    schemas.update(pieces)


def binders_module_for(module: str) -> str:
    return naming.generated_module(module, "_fw_binders")


def load_binders_near(module: str) -> None:
    """Import the generated module of ``module``'s package, once; a missing one is not an error here.

    A generated module that fails to import (written by an fw whose runtime names are gone, or
    edited by hand) is remembered as unusable, so ``fw.parse`` says "run fw generate" instead of
    showing a traceback from generated code.
    """
    load_generated(binders_module_for(module))


def load_generated(target: str) -> None:
    """Import the generated binders module ``target`` once (see :func:`load_binders_near`)."""
    if target in _imported:
        return
    _imported[target] = None
    try:
        importlib.import_module(target)
    except ModuleNotFoundError as missing:
        # Only the generated module (or a package above it) being absent means "no binders".
        if missing.name is None or not (target == missing.name or target.startswith(missing.name + ".")):
            _imported[target] = f"{target} cannot be imported ({missing})"
    except Exception as failure:
        _imported[target] = f"{target} cannot be imported ({type(failure).__name__}: {failure})"


def problems() -> list[str]:
    """What makes generated binders unusable, one line each: stale types and modules that fail
    to import (for ``fw doctor``, after it imported every generated module)."""
    found = [f"the generated binder for {type_name(cls)} is stale ({why})" for cls, why in _stale.items()]
    return found + [why for why in _imported.values() if why is not None]


def forget(modules: Iterable[str]) -> None:
    """Drop what was registered for types of ``modules`` (module names dropped from
    ``sys.modules``) and let every generated module be imported again: ``fw run`` and the pytest
    plugin call it after regenerating in the same process, so the new binders serve this run."""
    gone = set(modules)
    for table in (_binders, _stale):
        for cls in [cls for cls in table if cls.__module__ in gone]:
            del table[cls]
    _imported.clear()


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
            f"the generated binder for {type_name(cls)} is stale ({_stale[cls]}): run `fw generate`"
        )
    broken = _imported.get(binders_module_for(cls.__module__))
    if broken is not None:
        raise NoBinderError(f"no usable binder for {type_name(cls)}: {broken}: stale, run `fw generate`")
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
