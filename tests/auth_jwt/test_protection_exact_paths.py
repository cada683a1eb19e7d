"""``{$}`` in protection patterns, as in route patterns: ``"/{$}"`` names the home page alone and
``"/api/{$}"`` that path with its slash, never the subtree below it."""

from __future__ import annotations

from pathlib import Path

import httpx2
import pytest
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.responses import PlainTextResponse
from starlette.routing import Route

from fw.auth import plugin
from fw.auth.protection import PatternError, Protection, compile_pattern, pattern_problem
from fw.cli.routetable import ProtectionRules
from fw.core.middleware import Pipeline
from fw.testing.issuer import LocalIssuer

from .conftest import jwt_only
from .settings import auth_settings, jwt_settings, mode_settings


@pytest.mark.parametrize(
    ("pattern", "path", "matches"),
    [
        ("/{$}", "/", True),
        ("/{$}", "/index.html", False),
        ("/{$}", "/a/b", False),
        ("/api/{$}", "/api/", True),
        ("/api/{$}", "/api", False),
        ("/api/{$}", "/api/orders", False),
        ("/shops/{id}/{$}", "/shops/7/", True),
        ("/shops/{id}/{$}", "/shops/7/items", False),
    ],
)
def test_a_pattern_ending_in_the_anchor_matches_exactly_that_path(
    pattern: str, path: str, matches: bool
) -> None:
    assert bool(compile_pattern(pattern).fullmatch(path)) is matches


@pytest.mark.parametrize(
    ("pattern", "reason"),
    [
        ("/{$}/more", "has {$} before its end ({$} may only end a pattern, after /)"),
        ("/api{$}", "has {$} after a name ({$} may only end a pattern, after /)"),
        ("/{$}{$}", "has {$} before its end ({$} may only end a pattern, after /)"),
    ],
)
def test_the_anchor_anywhere_but_after_a_final_slash_is_refused_with_the_rule(
    pattern: str, reason: str
) -> None:
    assert pattern_problem(pattern) == reason
    with pytest.raises(PatternError, match="may only end a pattern"):
        compile_pattern(pattern)


def test_the_startup_rules_accept_the_home_page_pattern() -> None:
    plugin.check(
        mode_settings(auth_settings(jwt_settings("https://issuer.example"), include=["/{$}"])),
        lambda _: "default",
    )


def test_protecting_the_home_page_alone_leaves_every_other_path_public() -> None:
    protection = Protection.from_patterns(["/{$}"], [])
    assert protection.requires_auth("/")
    assert not any(protection.requires_auth(path) for path in ("/about", "/api/", "/a/b/"))


async def test_a_served_app_refuses_an_anonymous_home_page_and_serves_the_rest(
    issuer: LocalIssuer, tmp_path: Path
) -> None:
    settings = auth_settings(jwt_settings(issuer.url), include=["/{$}"])
    extension = jwt_only(settings, f"sqlite:///{tmp_path / 'unused.sqlite3'}")

    async def page(_request: object) -> PlainTextResponse:
        return PlainTextResponse("page")

    app = Starlette(
        routes=[Route("/", page), Route("/about", page)],
        middleware=[Middleware(Pipeline, middleware=extension.middleware())],
    )
    await extension.startup()
    try:
        transport = httpx2.ASGITransport(app=app)
        async with httpx2.AsyncClient(transport=transport, base_url="http://testserver") as client:
            assert (await client.get("/")).status_code == 401
            assert (await client.get("/about")).text == "page"
    finally:
        await extension.shutdown()


def test_fw_routes_shows_the_home_route_covered_by_the_home_page_pattern() -> None:
    rules = ProtectionRules(True, ("/{$}",))
    assert rules.describe("/{$}") == "auth (include /{$})"
    assert rules.describe("/about") == "public"
