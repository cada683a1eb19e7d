"""Which requests prefer an HTML page to a JSON problem document (RFC 9110 quality values)."""

from __future__ import annotations

import pytest

from fw.problem_pages import prefers_html

BROWSER = "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8"


@pytest.mark.parametrize(
    "accept",
    [
        BROWSER,
        "text/html",
        "text/html, */*",
        "application/json;q=0.5, text/html",
        "text/*, application/json;q=0.9",
        "TEXT/HTML; Q=1",
    ],
)
def test_an_accept_header_preferring_html_to_json_gets_a_page(accept: str) -> None:
    assert prefers_html(accept)


@pytest.mark.parametrize(
    "accept",
    [
        "",
        "*/*",
        "application/json",
        "application/problem+json",
        "text/html, application/json",
        "text/html;q=0.5, application/json",
        "text/html;q=0, */*",
        "text/html;q=nonsense",
        "text/plain",
        "text/*;q=0.5, */*",
        "application/*, text/html;q=0.9",
    ],
)
def test_an_accept_header_without_a_preference_for_html_keeps_json(accept: str) -> None:
    assert not prefers_html(accept)
