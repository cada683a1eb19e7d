"""Write the hand-made part of the seed corpus: ``python tests/fuzz/seeds.py`` (after adding one).

The rest of ``tests/fuzz/corpus`` are inputs earlier atheris campaigns kept because each reached
new coverage (copied from the scratch directory of a long run).

Seeds are valid inputs and near misses for each target, so the fuzzer starts inside the
interesting shapes (a multipart body, a signed token, a TOML table) instead of finding them
byte by byte. Files are named by content hash, as libFuzzer names what it adds.
"""

from __future__ import annotations

import base64
import hashlib
import json

import cbor2
from targets import BOUNDARY, CONTENT_TYPES, CORPUS, ROUTES, binder_input


def _route(path: str) -> int:
    return next(i for i, (_, _, p) in enumerate(ROUTES) if p == path)


def _kind(prefix: str) -> int:
    return next(i for i, c in enumerate(CONTENT_TYPES) if c is not None and c.startswith(prefix))


def _multipart(fields: dict[str, str], files: dict[str, bytes]) -> bytes:
    parts = [
        f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="{k}"\r\n\r\n{v}\r\n'.encode()
        for k, v in fields.items()
    ]
    parts += [
        f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="{k}"; filename="{k}.txt"\r\n'
        f"Content-Type: text/plain\r\n\r\n".encode()
        + v
        + b"\r\n"
        for k, v in files.items()
    ]
    return b"".join(parts) + f"--{BOUNDARY}--\r\n".encode()


def binders() -> list[bytes]:
    json_kind, form, multi, cbor = (
        _kind("application/json"),
        _kind("application/x-www"),
        _kind("multipart/form-data; b"),
        _kind("application/cbor"),
    )
    seeds = [
        binder_input(
            _route("/scalars"),
            json_kind,
            b"",
            json.dumps({"count": 3, "ratio": 0.5, "flag": True, "name": "x"}).encode(),
        ),
        binder_input(_route("/lists"), form, b"tag=a&tag=b", b"ids=1&ids=2&names=x"),
        binder_input(
            _route("/nested"), json_kind, b"", json.dumps({"inner": {"a": [1, 2]}, "list": [{}]}).encode()
        ),
        binder_input(_route("/upload"), multi, b"", _multipart({"title": "t"}, {"file": b"hello"})),
        binder_input(
            _route("/sources/7"),
            json_kind,
            b"q_only=x&alias=r",
            json.dumps({"name": "n", "p_only": "p", "first_name": "f"}).encode(),
            (b"X-Token: t", b"Cookie: sid=abc; other=1"),
        ),
        binder_input(_route("/scalars"), json_kind, b"cap=9&qb=%ff", b'{"blob": "!!"}', (b"X-Blob: ===",)),
        binder_input(_route("/rest"), json_kind, b"", json.dumps({"name": "n", "x": 1, "y": [1]}).encode()),
        binder_input(_route("/rules"), form, b"", b"email=a%40b.example&age=200&code=AB12"),
        binder_input(_route("/colour"), 5, b"colour=red&colour=blue", b""),
        binder_input(_route("/untyped"), 5, b"a=1&a=2&b=%ff%fe", b""),
        binder_input(_route("/tree"), json_kind, b"", json.dumps({"children": [{"children": []}]}).encode()),
        binder_input(_route("/wide"), json_kind, b"", json.dumps({f"f{i}": i for i in range(40)}).encode()),
        binder_input(_route("/shapes"), cbor, b"", cbor2.dumps({"kind": "circle", "r": 1.5, "tags": ["a"]})),
        binder_input(_route("/nodes"), cbor, b"", cbor2.dumps({"value": 1, "next": {"value": 2}})),
        binder_input(_route("/shapes"), cbor, b"", bytes.fromhex("d9d9f7a0")),
        binder_input(_route("/profiles/u1"), json_kind, b"", b'{"name": "\\ud800", "age": 1e400}'),
    ]
    return seeds


def _b64(data: bytes) -> bytes:
    return base64.urlsafe_b64encode(data).rstrip(b"=")


def jwt() -> list[bytes]:
    header = _b64(json.dumps({"alg": "RS256", "kid": "fuzz", "typ": "at+jwt"}).encode())
    body = _b64(json.dumps({"iss": "https://id.example", "sub": "a", "exp": 1}).encode())
    return [
        header + b"." + body + b"." + _b64(b"\x00" * 256),
        _b64(b'{"alg":"none"}') + b"." + body + b".",
        _b64(b'{"alg":"ES256","kid":"k","crit":["b64"],"b64":false}') + b"." + body + b".AAAA",
        _b64(b'{"alg":"RS256","alg":"none"}') + b"." + body + b".sig",
        b"a.b.c.d.e",
        header + b"." + _b64(b"[1,2]") + b"." + _b64(b"x"),
    ]


def toml() -> list[bytes]:
    return [
        b'[auth]\nenabled = true\nmode = "oidc_only"\n[auth.oidc]\nissuer = "https://id.example"\n',
        b'[server]\nport = 8080\nhost = "${HOST:-127.0.0.1}"\n',
        b'[session]\nttl = "24h"\nlist = [\n  "a",\n  "b",\n]\n',
        b"[[auth.claim]]\npath = '/org'\nvalues = ['a']\n",
        b'a.b.c = """multi\nline"""\n"quoted" = 1\n',
        b"x = {inline = 1}\ny = [[1], [2]]\n",
    ]


def duration() -> list[bytes]:
    return [b"1h30m", b"-1.5s", b"300ms", b"2562047h47m16.854775807s", b"1us", b"1\xc2\xb5s", b".5m", b"0"]


def next_paths() -> list[bytes]:
    return [b"/", b"/a/b?c=1#f", b"//evil.example", b"/%2F%2Fevil", b"/%252F%252F", b"/\\x", b"/a/./b"]


def main() -> None:
    for name, seeds in {"binders": binders(), "jwt": jwt(), "toml": toml(), "duration": duration(),
                        "next": next_paths()}.items():  # fmt: skip
        folder = CORPUS / name
        folder.mkdir(parents=True, exist_ok=True)
        for seed in seeds:
            (folder / hashlib.sha1(seed).hexdigest()).write_bytes(seed)


if __name__ == "__main__":
    main()
