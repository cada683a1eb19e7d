"""Building frozen dataclasses on the request path, without their generated ``__init__``.

A frozen dataclass's ``__init__`` sets each field through ``object.__setattr__`` (its own
``__setattr__`` refuses), looking that function up once per field. A bearer request builds
several of them (the verified token, the identity, the caller, the authentication result), and
that lookup was a visible share of the cached path. :func:`frozen_builder` returns a function
taking every field positionally that writes the fields directly (through the slot descriptors,
or the instance ``__dict__``) and gives back an instance equal in every way to the one the
class's own constructor builds: same type, same field values, still frozen. It runs no
``__post_init__`` and applies no defaults, so it is only for classes without either need on
the path that calls it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")


def frozen_builder(cls: type[T]) -> Callable[..., T]:
    """``build(*fields)`` for the frozen dataclass ``cls``, its fields in declaration order."""
    if not dataclasses.is_dataclass(cls) or not cls.__dataclass_params__.frozen:  # type: ignore[attr-defined]
        raise TypeError(f"{cls.__name__} is not a frozen dataclass")
    if hasattr(cls, "__post_init__"):
        raise TypeError(f"{cls.__name__} has a __post_init__, which a builder would skip")
    names = [f.name for f in dataclasses.fields(cls)]
    namespace: dict[str, Any] = {"_new": object.__new__, "_cls": cls}
    if "__slots__" in cls.__dict__:
        lines = []
        for index, name in enumerate(names):
            namespace[f"_set{index}"] = cls.__dict__[name].__set__
            lines.append(f"    _set{index}(obj, a{index})")
    else:
        lines = ["    fields = obj.__dict__"]
        lines += [f"    fields[{name!r}] = a{index}" for index, name in enumerate(names)]
    arguments = ", ".join(f"a{index}" for index in range(len(names)))
    source = f"def build({arguments}):\n    obj = _new(_cls)\n" + "\n".join(lines) + "\n    return obj\n"
    exec(source, namespace)  # the names are the dataclass's own fields, never outside input
    build: Callable[..., T] = namespace["build"]
    build.__qualname__ = build.__name__ = f"build_{cls.__name__}"
    build.__doc__ = f"{cls.__name__}({', '.join(names)}), built without the generated __init__."
    return build
