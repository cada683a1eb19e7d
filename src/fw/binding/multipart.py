"""Parsing a ``multipart/form-data`` body into its fields and files, on python-multipart's parser.

fw drives python-multipart's public streaming parser itself instead of a framework's form
parser, because the binder needs two things a form parser does not give: a body that stops
before its closing boundary is refused (a truncated upload must not bind as if complete), and
a file arrives as :class:`fw.File`, in memory, since the multipart limit bounds it anyway.

Everything else reads a part as browsers and Starlette's ``request.form()`` do: the
``Content-Disposition`` ``name`` (required) and ``filename`` (present: the part is a file),
the part's first ``Content-Type`` as the file's type, and names, filenames and field values
decoded in the body's ``charset`` (UTF-8 by default), falling back to Latin-1 for bytes that
charset cannot decode.
"""

from __future__ import annotations

import codecs
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING

from python_multipart import MultipartParser
from python_multipart.exceptions import FormParserError
from python_multipart.multipart import parse_options_header

from fw.binding.types import File

if TYPE_CHECKING:
    from python_multipart.multipart import MultipartCallbacks


class InvalidMultipart(Exception):
    """The body is not a complete, well-formed multipart body within the part limits."""


def _text(raw: bytes | bytearray, charset: str) -> str:
    try:
        return raw.decode(charset)
    except (UnicodeDecodeError, LookupError):
        return raw.decode("latin-1")


def _charset(params: dict[bytes, bytes]) -> str:
    try:
        return codecs.lookup(params.get(b"charset", b"utf-8").decode("latin-1")).name
    except LookupError:
        return "latin-1"


class _Parts:
    """The parser's callbacks: collects each part, in order, as ``(name, text or File)``."""

    def __init__(self, charset: str, max_files: int, max_fields: int, max_part_size: int) -> None:
        self.charset = charset
        self.max_files = max_files
        self.max_fields = max_fields
        self.max_part_size = max_part_size
        self.items: list[tuple[str, str | File]] = []
        self.files = 0
        self.fields = 0
        self.ended = False
        self.header_name = bytearray()
        self.header_value = bytearray()
        self.headers: list[tuple[bytes, bytes]] = []
        self.disposition = b""
        self.name = ""
        self.filename: str | None = None
        self.data = bytearray()

    def callbacks(self) -> MultipartCallbacks:
        return {
            "on_part_begin": self.part_begin,
            "on_part_data": self.part_data,
            "on_part_end": self.part_end,
            "on_header_field": self.header_field,
            "on_header_value": self.header_value_data,
            "on_header_end": self.header_end,
            "on_headers_finished": self.headers_finished,
            "on_end": self.end,
        }

    def part_begin(self) -> None:
        self.headers = []
        self.disposition = b""
        self.name = ""
        self.filename = None
        self.data = bytearray()

    def header_field(self, data: bytes, start: int, end: int) -> None:
        self.header_name += data[start:end]

    def header_value_data(self, data: bytes, start: int, end: int) -> None:
        self.header_value += data[start:end]

    def header_end(self) -> None:
        name, value = bytes(self.header_name).lower(), bytes(self.header_value)
        if name == b"content-disposition":
            self.disposition = value
        self.headers.append((name, value))
        self.header_name = bytearray()
        self.header_value = bytearray()

    def headers_finished(self) -> None:
        _, options = parse_options_header(self.disposition)
        if b"name" not in options:
            raise InvalidMultipart('a part without a Content-Disposition "name"')
        self.name = _text(options[b"name"], self.charset)
        if b"filename" in options:
            self.files += 1
            if self.files > self.max_files:
                raise InvalidMultipart(f"more than {self.max_files} files")
            self.filename = _text(options[b"filename"], self.charset)
        else:
            self.fields += 1
            if self.fields > self.max_fields:
                raise InvalidMultipart(f"more than {self.max_fields} fields")

    def part_data(self, data: bytes, start: int, end: int) -> None:
        if self.filename is None and len(self.data) + (end - start) > self.max_part_size:
            raise InvalidMultipart(f"a field over {self.max_part_size} bytes")
        self.data += data[start:end]

    def part_end(self) -> None:
        if self.filename is None:
            self.items.append((self.name, _text(self.data, self.charset)))
            return
        kind = next((value for name, value in self.headers if name == b"content-type"), b"")
        content = bytes(self.data)
        self.items.append((self.name, File(self.filename, kind.decode("latin-1"), len(content), content)))

    def end(self) -> None:
        self.ended = True


async def parse_multipart(
    content_type: str,
    chunks: AsyncIterator[bytes],
    *,
    max_files: int,
    max_fields: int,
    max_part_size: int,
) -> list[tuple[str, str | File]]:
    """Every part of the body ``chunks`` yields, in order: a field's text or a :class:`File`.

    Raises :class:`InvalidMultipart` for a missing boundary, a malformed or truncated body, a
    part without a name, more than ``max_files`` files or ``max_fields`` fields, or a field
    over ``max_part_size`` bytes. Whatever ``chunks`` raises (a body over its limit, a client
    that went away) passes through.
    """
    _, params = parse_options_header(content_type)
    boundary = params.get(b"boundary")
    if boundary is None:
        raise InvalidMultipart("no boundary in the Content-Type")
    parts = _Parts(_charset(params), max_files, max_fields, max_part_size)
    try:
        parser = MultipartParser(boundary, parts.callbacks())
        async for chunk in chunks:
            parser.write(chunk)
        parser.finalize()
    except FormParserError as error:
        raise InvalidMultipart(str(error)) from None
    if not parts.ended:
        raise InvalidMultipart("the body ends before its closing boundary")
    return parts.items
