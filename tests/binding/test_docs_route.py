"""The API reference at ``/docs``: when it is served, what it serves, and how it is cached."""

from __future__ import annotations

import asyncio
import contextlib
import re
import sys
from collections.abc import Iterator

import pytest
from starlette.testclient import TestClient

import fw
from fw.binding.docs_route import docs_mode
from fw.testing import configured


def make_app() -> fw.App:
    app = fw.App()

    @app.route("GET /items")
    async def items(request: fw.Request) -> fw.Response:
        return fw.JSONResponse([])

    return app


@pytest.fixture
def without_swagger_ui(monkeypatch: pytest.MonkeyPatch) -> None:
    """As if the docs extra were not installed: importing swagger_ui_bundle fails."""
    monkeypatch.setitem(sys.modules, "swagger_ui_bundle", None)


@contextlib.contextmanager
def served(env: dict[str, str]) -> Iterator[TestClient]:
    """A client on a fresh App configured by exactly ``env``."""
    with configured(env=env), TestClient(make_app()) as client:
        yield client


def asset_urls(page: str) -> list[str]:
    return ["/" + url for url in re.findall(r"(?:href|src)='([^']+)'", page)]


# When it is served.
@pytest.mark.parametrize(
    ("value", "source", "app_env", "mode"),
    [
        (False, "default", "dev", "if_installed"),
        (False, "default", "prod", "off"),
        (False, "default", "stg", "off"),
        (True, "env:SERVER_DOCS", "prod", "on"),
        (False, "file:config.dev.toml:3", "dev", "off"),
    ],
)
def test_an_unset_docs_key_follows_app_env_and_a_set_one_is_obeyed(
    value: bool, source: str, app_env: str, mode: str
) -> None:
    assert docs_mode(value, source, app_env) == mode


def test_development_serves_the_reference_without_configuration() -> None:
    with served({"APP_ENV": "dev"}) as client:
        page = client.get("/docs")
        assert page.status_code == 200 and "id='swagger-ui'" in page.text


def test_production_serves_no_reference_unless_asked() -> None:
    with served({"APP_ENV": "prod"}) as client:
        assert client.get("/docs").status_code == 404
    with served({"APP_ENV": "prod", "SERVER_DOCS": "true"}) as client:
        assert client.get("/docs").status_code == 200


def test_docs_false_turns_the_reference_off_in_development() -> None:
    with served({"APP_ENV": "dev", "SERVER_DOCS": "false"}) as client:
        assert client.get("/docs").status_code == 404
        assert client.get("/openapi.json").status_code == 200


# What it serves.
def test_every_asset_the_page_names_comes_from_the_app_with_its_content_type() -> None:
    with served({"APP_ENV": "dev"}) as client:
        page = client.get("/docs").text
        urls = asset_urls(page)
        assert not re.search(r"(?:href|src)='(?:https?:)?//", page)  # no CDN, no other origin
        types = {url.rsplit("/", 1)[-1]: client.get(url).headers["content-type"] for url in urls}
        assert types == {
            "swagger-ui.css": "text/css; charset=utf-8",
            "fw-docs.css": "text/css; charset=utf-8",
            "favicon-32x32.png": "image/png",
            "favicon-16x16.png": "image/png",
            "swagger-ui-bundle.js": "text/javascript; charset=utf-8",
            "fw-docs.js": "text/javascript; charset=utf-8",
        }
        starter = client.get(urls[-1]).text
        assert "url: root.dataset.openapi" in starter and "validatorUrl: null" in starter
        assert "data-openapi='openapi.json'" in page


def test_the_page_is_titled_by_the_project_and_allows_scripts_from_the_app_only() -> None:
    with served({"APP_ENV": "dev"}) as client:
        page = client.get("/docs")
        assert "<title>fw-web — API reference</title>" in page.text  # fw's own pyproject holds this test
        policy = page.headers["content-security-policy"]
        assert "script-src 'self';" in policy and "default-src 'self'" in policy
        assert "<script>" not in page.text  # no inline script for the policy to allow


# How it is cached.
def test_assets_are_cached_for_a_year_under_a_digest_and_the_page_is_revalidated() -> None:
    with served({"APP_ENV": "dev"}) as client:
        page = client.get("/docs")
        assert page.headers["cache-control"] == "no-cache"
        for url in asset_urls(page.text):
            answer = client.get(url)
            assert answer.status_code == 200
            assert answer.headers["cache-control"] == "public, max-age=31536000, immutable"
            assert answer.headers["x-content-type-options"] == "nosniff"


def test_an_unknown_digest_or_file_is_a_404_problem() -> None:
    with served({"APP_ENV": "dev"}) as client:
        [css, *_] = asset_urls(client.get("/docs").text)
        digest = css.split("/")[3]
        for url in (
            css.replace(digest, "0" * len(digest)),
            f"/docs/assets/{digest}/swagger-ui.js.map",
            f"/docs/assets/{digest}/..%2F..%2Fdocs_route.py",
        ):
            missing = client.get(url)
            assert missing.status_code == 404, url
            assert missing.headers["content-type"].startswith("application/problem+json")


# Without the docs extra.
@pytest.mark.usefixtures("without_swagger_ui")
def test_docs_true_without_the_extra_refuses_to_start_naming_the_install() -> None:
    with (
        configured(env={"APP_ENV": "prod", "SERVER_DOCS": "true"}),
        pytest.raises(fw.StartupError) as refused,
    ):
        asyncio.run(make_app().startup())
    assert refused.value.key == "server.docs" and "pip install 'fw-web[docs]'" in refused.value.fix


@pytest.mark.usefixtures("without_swagger_ui")
def test_development_without_the_extra_answers_a_page_naming_the_install() -> None:
    with served({"APP_ENV": "dev"}) as client:
        page = client.get("/docs")
        assert page.status_code == 501 and "pip install &#x27;fw-web[docs]&#x27;" in page.text
        assert client.get("/openapi.json").status_code == 200


def test_a_swagger_ui_older_than_5_is_refused_because_it_cannot_read_openapi_3_1(
    monkeypatch: pytest.MonkeyPatch, tmp_path: object
) -> None:
    import types
    from pathlib import Path

    old = types.ModuleType("swagger_ui_bundle")
    old.swagger_ui_path = Path(str(tmp_path)) / "vendor" / "swagger-ui-4.15.5"  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "swagger_ui_bundle", old)
    with configured(env={"SERVER_DOCS": "true"}), pytest.raises(fw.StartupError) as refused:
        asyncio.run(make_app().startup())
    assert "swagger-ui-4.15.5" in refused.value.fix and "OpenAPI 3.1" in refused.value.fix


def test_an_app_mounted_under_a_prefix_serves_a_working_reference() -> None:
    from starlette.applications import Starlette
    from starlette.routing import Mount

    with configured(env={"APP_ENV": "dev"}):
        outer = Starlette(routes=[Mount("/api", app=make_app())])
        with TestClient(outer) as client:
            page = client.get("/api/docs")
            assert page.status_code == 200
            for url in asset_urls(page.text):
                assert client.get(f"/api{url}").status_code == 200  # relative to /api/docs
            assert client.get("/api/openapi.json").json()["openapi"] == "3.1.0"  # data-openapi, relative
