"""One token core: one rejection class, one key-set parser and one discovery check for both halves of fw."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import pytest

import fw.auth.jwt
import fw.auth.oidc
import fw.auth.tokens
from fw.auth.tokens import IssuerMismatch, MalformedKeySet, issuer_metadata, parse_jwks
from fw.testing.issuer import generate_key

KEY = generate_key("RS256", "a")


def test_access_tokens_and_id_tokens_are_rejected_with_one_class() -> None:
    assert fw.auth.jwt.TokenRejected is fw.auth.tokens.TokenRejected
    assert fw.auth.oidc.TokenRejected is fw.auth.tokens.TokenRejected
    assert issubclass(fw.auth.tokens.TokenRejected, fw.auth.oidc.OidcError)
    rejection = fw.auth.tokens.TokenRejected("the ID token is malformed", "detail")
    assert rejection.reason == "the ID token is malformed"
    assert str(rejection) == "the ID token is malformed: detail"


def test_a_strict_key_set_refuses_an_unusable_entry_that_a_lenient_one_skips() -> None:
    document = {"keys": [{"kty": "RSA", "kid": "broken", "n": "!!", "e": "AQAB"}, KEY.as_dict(private=False)]}
    assert set(parse_jwks(document).by_kid) == {"a"}
    with pytest.raises(MalformedKeySet, match="broken"):
        parse_jwks(document, strict=True)
    with pytest.raises(MalformedKeySet, match="not an object"):
        parse_jwks({"keys": ["not an object"]}, strict=True)


def serving(document: dict[str, Any], fetched: list[str]) -> Any:
    async def get_json(url: str) -> dict[str, Any]:
        fetched.append(url)
        return document

    return get_json


async def test_metadata_must_name_the_issuer_it_was_fetched_for() -> None:
    fetched: list[str] = []
    named = serving({"issuer": "https://id.example/"}, fetched)
    with pytest.raises(IssuerMismatch, match="must match exactly"):
        await issuer_metadata(named, "https://id.example")
    assert await issuer_metadata(named, "https://id.example", ignore_trailing_slash=True)
    with pytest.raises(IssuerMismatch):
        await issuer_metadata(serving({"issuer": "https://evil.example"}, fetched), "https://id.example")
    assert fetched[0] == "https://id.example/.well-known/openid-configuration"


#: Imports every module of fw (``__main__`` modules run a program, so not those), then says
#: whether the old client came along.
EVERY_MODULE = """
import importlib, pkgutil, sys
import fw
for module in pkgutil.walk_packages(fw.__path__, "fw."):
    if not module.name.endswith(".__main__"):
        importlib.import_module(module.name)
print("httpx" in sys.modules, "httpx2" in sys.modules)
"""


def test_fw_itself_never_imports_httpx_only_httpx2() -> None:
    result = subprocess.run([sys.executable, "-c", EVERY_MODULE], capture_output=True, text=True, timeout=120)
    assert result.stdout.split() == ["False", "True"], result.stdout + result.stderr
