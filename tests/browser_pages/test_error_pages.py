"""fw's problems as small HTML pages for a browser, and unchanged JSON documents for programs."""

from __future__ import annotations

import re
from collections.abc import Iterator

import httpx2
import pytest
from starlette.testclient import TestClient

import fw
from fw.testing import configured

PAGE = {"accept": "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"}
PROGRAM = {"accept": "*/*"}


def make_app() -> fw.App:
    app = fw.App()

    @app.route("GET /")
    async def home(request: fw.Request) -> fw.Response:
        return fw.JSONResponse({"page": "home"})

    @app.route("GET /status/{code}")
    async def status(request: fw.Request) -> fw.Response:
        raise fw.Problem("the <b>shop</b> says no", status=int(request.path_params["code"]))

    @app.route("GET /boom")
    async def boom(request: fw.Request) -> fw.Response:
        raise RuntimeError("secret internal detail")

    @app.route("POST /echo")
    async def echo(request: fw.Request) -> fw.Response:
        return fw.JSONResponse({"size": len(await request.body())})

    return app


@pytest.fixture
def client() -> Iterator[TestClient]:
    with configured(), TestClient(make_app(), raise_server_exceptions=False) as client:
        yield client


def assert_page(response: httpx2.Response, status: int, title: str) -> str:
    assert response.status_code == status
    headers = response.headers
    assert headers["content-type"] == "text/html; charset=utf-8"
    text = response.text
    assert int(headers["content-length"]) == len(text.encode("utf-8"))
    assert text.startswith("<!doctype html>")
    assert '<html lang="en">' in text
    assert text.count("<main>") == 1
    assert f"<title>{title}</title>" in text and f"<h1>{title}</h1>" in text
    assert '<a href="/">' in text
    assert "http://" not in text and "https://" not in text  # nothing from a CDN
    return text


@pytest.mark.parametrize(
    ("status", "title"),
    [
        (401, "Unauthorized"),
        (403, "Forbidden"),
        (404, "Not Found"),
        (405, "Method Not Allowed"),
        (413, "Request Entity Too Large"),
        (415, "Unsupported Media Type"),
        (429, "Too Many Requests"),
        (500, "Internal Server Error"),
        (502, "Bad Gateway"),
        (503, "Service Unavailable"),
    ],
)
def test_a_browser_gets_each_problem_as_a_page_with_the_same_status(
    client: TestClient, status: int, title: str
) -> None:
    text = assert_page(client.get(f"/status/{status}", headers=PAGE), status, title)
    assert f"Error {status}" in text
    assert "The &lt;b&gt;shop&lt;/b&gt; says no." in text  # the detail, escaped
    assert "<b>" not in text


def test_a_program_gets_the_same_problem_as_json(client: TestClient) -> None:
    for headers in (PROGRAM, {"accept": "application/json"}, {}):
        response = client.get("/status/404", headers=headers)
        assert response.status_code == 404
        assert response.headers["content-type"] == "application/problem+json"
        assert response.json()["detail"] == "the <b>shop</b> says no"


def test_an_unknown_path_and_a_wrong_method_are_pages_for_a_browser(client: TestClient) -> None:
    assert_page(client.get("/nowhere", headers=PAGE), 404, "Not Found")
    response = client.delete("/", headers=PAGE)
    assert_page(response, 405, "Method Not Allowed")
    assert "GET" in response.headers["allow"]  # the problem's own headers stay


def test_an_unhandled_error_is_an_opaque_page(client: TestClient) -> None:
    text = assert_page(client.get("/boom", headers=PAGE), 500, "Internal Server Error")
    assert "secret" not in text


def test_a_body_over_the_limit_is_a_413_page() -> None:
    with configured(toml="[server]\nmax_request_body = 16\n"), TestClient(make_app()) as client:
        document = client.post("/echo", content=b"x" * 64)
        assert document.headers["content-type"] == "application/problem+json"
        response = client.post("/echo", content=b"x" * 64, headers=PAGE)
        assert_page(response, 413, document.json()["title"])


def test_a_503_says_when_to_retry_as_json_and_as_a_page(client: TestClient) -> None:
    for headers in (PAGE, PROGRAM):
        response = client.get("/status/503", headers=headers)
        assert response.status_code == 503
        assert re.fullmatch(r"[1-9][0-9]*", response.headers["retry-after"])


def test_a_problem_naming_its_own_retry_after_keeps_it() -> None:
    problem = fw.Problem(status=503, headers={"retry-after": "120"})
    assert problem.response().headers["retry-after"] == "120"


def test_a_head_request_gets_the_page_headers_without_a_body(client: TestClient) -> None:
    response = client.head("/nowhere", headers=PAGE)
    assert response.status_code == 404
    assert response.headers["content-type"] == "text/html; charset=utf-8"
    assert response.content == b""


def test_a_page_the_handler_answers_itself_is_left_alone(client: TestClient) -> None:
    response = client.get("/", headers=PAGE)
    assert response.json() == {"page": "home"}
