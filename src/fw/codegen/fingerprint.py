"""A digest of dataclass declarations: a generated file records it, the runtime compares it.

When a declaration changes after generation, the digest no longer matches and the runtime
refuses the generated code as stale instead of binding or loading the wrong fields. The digest
covers what the generated code depends on: each field's name, flags and default, and its
*resolved* annotation, so an edited type alias counts even where the class only names it
(``request_id: RequestId`` under ``from __future__ import annotations``), and so do inherited
fields and the markers and rules inside ``Annotated``. The caller passes every class the code
builds (nested dataclasses included). Each generator salts the digest with the shape of the code
it writes, so output of another fw version is stale too.

The runtime computes it once per type, when the generated module registers it, never per request.
"""

from __future__ import annotations

import dataclasses
import hashlib
import re
import typing
from collections.abc import Iterable
from typing import Any

from fw.codegen.naming import module_name

#: ``<object at 0x7f...>``: an address changes every run, so it never enters a digest.
_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")


def fingerprint(classes: Iterable[type], salt: str) -> str:
    """Type names, then per field its name, flags, default and resolved annotation, in order."""
    digest = hashlib.blake2b(salt.encode(), digest_size=10)
    for cls in classes:
        digest.update(f"\1{module_name(cls.__module__)}:{cls.__qualname__}".encode())
        hints = resolved_hints(cls)
        for item in dataclasses.fields(cls):
            annotation = hints.get(item.name, item.type)
            digest.update(
                f"\0{item.name}:{annotation_text(annotation)}:{item.init}:{item.kw_only}"
                f":{_default_text(item)}".encode()
            )
    return digest.hexdigest()


def resolved_hints(cls: type) -> dict[str, Any]:
    """The class's annotations evaluated (aliases and string annotations resolved, ``Annotated``
    kept); where one cannot be evaluated, the annotations as written."""
    try:
        return typing.get_type_hints(cls, include_extras=True)
    except Exception:  # an annotation naming something only a type checker sees
        return {}


def _default_text(item: dataclasses.Field[Any]) -> str:
    if item.default is not dataclasses.MISSING:
        return "=" + _ADDRESS.sub("", repr(item.default))
    if item.default_factory is not dataclasses.MISSING:
        factory = item.default_factory
        return "=" + getattr(factory, "__qualname__", _ADDRESS.sub("", repr(factory))) + "()"
    return ""


def annotation_text(annotation: Any) -> str:
    """An annotation as text that does not change between Python versions or runs.

    Classes are spelled out by importable module and qualified name rather than by ``repr``
    (which varies across versions); markers by their ``repr``.
    """
    if isinstance(annotation, str):
        return annotation
    if isinstance(annotation, type) and not typing.get_args(annotation):
        return f"{module_name(annotation.__module__)}.{annotation.__qualname__}"
    origin = typing.get_origin(annotation)
    if origin is not None:
        args = typing.get_args(annotation)
        if origin is typing.Annotated:
            metadata = [_ADDRESS.sub("", repr(item)) for item in args[1:]]
            return "Annotated[" + ", ".join([annotation_text(args[0]), *metadata]) + "]"
        return f"{annotation_text(origin)}[{', '.join(annotation_text(arg) for arg in args)}]"
    return _ADDRESS.sub("", repr(annotation))
