"""A person whose sign-in fails sees a page that says so and links back to the sign-in."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

from auth_oidc.support import open_browser

from fw.testing import TestIdentityProvider

PAGE = {"accept": "text/html,application/xhtml+xml,*/*;q=0.8"}


def test_cancelling_at_the_provider_shows_a_page_linking_to_the_sign_in(
    idp: TestIdentityProvider, sqlite_dsn: str
) -> None:
    with open_browser(idp, sqlite_dsn) as (client, _):
        to_provider = client.get("/auth/login", follow_redirects=False)
        query = {k: v[0] for k, v in parse_qs(urlsplit(to_provider.headers["location"]).query).items()}
        declined = client.post(f"{idp.issuer}/authorize", data={**query, "deny": "1"}, follow_redirects=False)
        assert "error=access_denied" in declined.headers["location"]
        response = client.get(declined.headers["location"], headers=PAGE, follow_redirects=False)
        assert response.status_code == 403
        assert response.headers["content-type"] == "text/html; charset=utf-8"
        assert response.headers["cache-control"] == "no-store"
        text = response.text
        assert "<h1>Sign-in failed</h1>" in text
        assert "cancelled at the identity provider" in text
        assert '<a href="/auth/login">Sign in</a>' in text
        assert '<html lang="en">' in text and "<main>" in text


def test_a_program_at_the_callback_still_gets_the_problem_document(
    idp: TestIdentityProvider, sqlite_dsn: str
) -> None:
    with open_browser(idp, sqlite_dsn) as (client, _):
        response = client.get("/auth/callback?error=access_denied&state=x", follow_redirects=False)
        assert response.headers["content-type"] == "application/problem+json"
        assert response.json()["title"] == "Sign-in failed"


def test_a_401_page_links_to_the_sign_in_and_back(idp: TestIdentityProvider, sqlite_dsn: str) -> None:
    protection = {"include": ["/private/"], "unauthenticated": "unauthorized"}
    with open_browser(idp, sqlite_dsn, protection=protection) as (client, _):
        response = client.get("/private/orders", headers=PAGE, follow_redirects=False)
        assert response.status_code == 401
        assert response.headers["content-type"] == "text/html; charset=utf-8"
        assert '<a href="/auth/login?next=%2Fprivate%2Forders">Sign in</a>' in response.text
