"""A digest of dataclass declarations: a generated file records it, the runtime compares it.

When a declaration changes after generation, the digest no longer matches and the runtime
refuses the generated code as stale instead of binding or loading the wrong fields. Each
generator salts the digest with the shape of the code it writes, so output of another fw version
is stale too. Computing it imports nothing and evaluates no annotation.
"""

from __future__ import annotations

import dataclasses
import hashlib
import typing
from collections.abc import Iterable
from typing import Any


def fingerprint(classes: Iterable[type], salt: str) -> str:
    """Type names, then each field's name, annotation text and init/keyword-only flags, in order."""
    digest = hashlib.blake2b(salt.encode(), digest_size=10)
    for cls in classes:
        digest.update(f"\1{cls.__module__}:{cls.__qualname__}".encode())
        for item in dataclasses.fields(cls):
            digest.update(f"\0{item.name}:{annotation_text(item.type)}:{item.init}:{item.kw_only}".encode())
    return digest.hexdigest()


def annotation_text(annotation: Any) -> str:
    """An annotation as text that does not change between Python versions.

    Under ``from __future__ import annotations`` it already is text; otherwise the objects are
    spelled out by qualified name rather than by ``repr`` (which varies across versions).
    """
    if isinstance(annotation, str):
        return annotation
    if isinstance(annotation, type) and not typing.get_args(annotation):
        return f"{annotation.__module__}.{annotation.__qualname__}"
    origin = typing.get_origin(annotation)
    if origin is not None:
        args = typing.get_args(annotation)
        if origin is typing.Annotated:
            return "Annotated[" + ", ".join([annotation_text(args[0]), *map(repr, args[1:])]) + "]"
        return f"{annotation_text(origin)}[{', '.join(annotation_text(arg) for arg in args)}]"
    return repr(annotation)
