"""The value types a bound dataclass can declare beyond the builtins."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class File:
    """One uploaded file from a ``multipart/form-data`` body, read into memory.

    The multipart limit bounds ``content``, so holding it in memory is safe.
    """

    filename: str
    content_type: str
    size: int
    content: bytes


class RawJSON(str):
    """A JSON value kept as JSON text, for ``dict[str, fw.RawJSON]`` rest maps.

    It lets a handler forward or decode later the keys it did not declare, without fw
    deciding their Python types.
    """

    __slots__ = ()
