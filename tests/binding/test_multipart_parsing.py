"""fw's multipart parser (``fw.binding.multipart``) reads every body as Starlette's form parser
does, and refuses what Starlette refuses, plus a body cut before its closing boundary.

Starlette's public ``MultiPartParser`` is the reference: fw used it until it drove
python-multipart itself, and a form a handler reads with ``request.form()`` must bind the same.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from starlette.datastructures import Headers, UploadFile
from starlette.formparsers import MultiPartException, MultiPartParser

from fw.binding.multipart import InvalidMultipart, parse_multipart
from fw.binding.types import File

BOUNDARY = "fwBoundary7MA4YWxkTrZu0gW"
LIMITS = {"max_files": 5, "max_fields": 5, "max_part_size": 64}

names = st.text(st.characters(blacklist_characters='"\\\r\n', blacklist_categories=["Cs"]), max_size=8)
payloads = st.binary(max_size=80).filter(lambda data: f"--{BOUNDARY}".encode() not in data)
parts = st.tuples(
    names,
    st.none() | names,  # a filename: the part is a file
    st.none() | st.sampled_from(["text/plain", "image/png", "application/octet-stream; x=1"]),
    payloads,
)
charsets = st.sampled_from(["", "; charset=utf-8", "; charset=latin-1", "; charset=no-such-charset"])


def encode(fields: list[tuple[str, str | None, str | None, bytes]], charset: str) -> bytes:
    out = b""
    for name, filename, kind, data in fields:
        disposition = f'form-data; name="{name}"' + (
            f'; filename="{filename}"' if filename is not None else ""
        )
        encoding = "latin-1" if "latin-1" in charset else "utf-8"
        out += f"--{BOUNDARY}\r\nContent-Disposition: {disposition}\r\n".encode(encoding, "replace")
        if kind is not None:
            out += f"Content-Type: {kind}\r\n".encode()
        out += b"\r\n" + data + b"\r\n"
    return out + f"--{BOUNDARY}--\r\n".encode()


async def _chunks(body: bytes, size: int) -> AsyncGenerator[bytes, None]:
    for start in range(0, len(body), size):
        yield body[start : start + size]


def fw_reads(content_type: str, body: bytes, chunk: int) -> list[tuple[str, Any]] | None:
    try:
        items = asyncio.run(parse_multipart(content_type, _chunks(body, chunk), **LIMITS))
    except InvalidMultipart:
        return None
    return [(name, _file(item) if isinstance(item, File) else item) for name, item in items]


def _file(item: File) -> tuple[str, str, int, bytes]:
    return (item.filename, item.content_type, item.size, item.content)


def starlette_reads(content_type: str, body: bytes, chunk: int) -> list[tuple[str, Any]] | None:
    async def read() -> list[tuple[str, Any]]:
        parser = MultiPartParser(Headers({"content-type": content_type}), _chunks(body, chunk), **LIMITS)
        form = await parser.parse()
        items: list[tuple[str, Any]] = []
        for name, item in form.multi_items():
            if isinstance(item, UploadFile):
                content = await item.read()
                items.append((name, (item.filename or "", item.content_type or "", len(content), content)))
            else:
                items.append((name, item))
        await form.close()
        return items

    try:
        return asyncio.run(read())
    except MultiPartException:
        return None


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(parts, max_size=7), charsets, st.integers(1, 64))
def test_a_complete_body_reads_as_starlettes_form_parser_reads_it(
    fields: list[tuple[str, str | None, str | None, bytes]], charset: str, chunk: int
) -> None:
    content_type = f"multipart/form-data; boundary={BOUNDARY}{charset}"
    body = encode(fields, charset)
    assert fw_reads(content_type, body, chunk) == starlette_reads(content_type, body, chunk)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(parts, min_size=1, max_size=3), st.data())
def test_a_damaged_body_binds_only_as_starlette_reads_it(
    fields: list[tuple[str, str | None, str | None, bytes]], data: st.DataObject
) -> None:
    content_type = f"multipart/form-data; boundary={BOUNDARY}"
    body = bytearray(encode(fields, ""))
    for _ in range(data.draw(st.integers(1, 3))):
        at = data.draw(st.integers(0, len(body) - 1))
        body[at : at + 1] = data.draw(st.binary(max_size=3))
    read = fw_reads(content_type, bytes(body), 7)
    if read is not None:
        assert read == starlette_reads(content_type, bytes(body), 7)


@pytest.mark.parametrize(
    ("content_type", "body"),
    [
        ("multipart/form-data", f"--{BOUNDARY}--\r\n".encode()),  # no boundary
        (
            f"multipart/form-data; boundary={BOUNDARY}",
            f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="a"\r\n\r\nhello'.encode(),
        ),  # cut before the closing boundary
        (
            f"multipart/form-data; boundary={BOUNDARY}",
            f"--{BOUNDARY}\r\nContent-Disposition: form-data\r\n\r\nx\r\n--{BOUNDARY}--\r\n".encode(),
        ),  # a part without a name
        (f"multipart/form-data; boundary={BOUNDARY}", b"\x00\xff"),
        (f"multipart/form-data; boundary={BOUNDARY}", encode([("a", None, None, b"x" * 65)], "")),
        (f"multipart/form-data; boundary={BOUNDARY}", encode([("a", None, None, b"")] * 6, "")),
        (f"multipart/form-data; boundary={BOUNDARY}", encode([("a", "f", None, b"")] * 6, "")),
    ],
    ids=[
        "no boundary",
        "truncated",
        "no name",
        "garbage",
        "field too large",
        "too many fields",
        "too many files",
    ],
)
def test_a_body_fw_cannot_read_in_full_is_refused(content_type: str, body: bytes) -> None:
    assert fw_reads(content_type, body, 16) is None


def test_a_file_over_the_field_size_limit_is_kept_whole() -> None:
    body = encode([("upload", "big.bin", "application/octet-stream", b"\x01" * 200)], "")
    read = fw_reads(f"multipart/form-data; boundary={BOUNDARY}", body, 16)
    assert read == [("upload", ("big.bin", "application/octet-stream", 200, b"\x01" * 200))]
