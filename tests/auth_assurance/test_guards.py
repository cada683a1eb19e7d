"""The page and API guards in ``oidc_only`` against the development provider: who passes, who is
sent to step up (and where), and how zero windows are used once."""

from __future__ import annotations

import time
from datetime import timedelta
from urllib.parse import parse_qs, urlsplit

import pytest
from auth_oidc.support import layers, session_settings

import fw
from auth_assurance.conftest import Build
from auth_assurance.support import concurrently, guarded_app, open_guarded, read_session, step_up_location
from fw.auth.assurance.guards import requirement_of
from fw.testing import BrowserClient, TestIdentityProvider, configured

ORIGIN = "http://localhost:8000"


def sign_in(client: BrowserClient, idp: TestIdentityProvider, sub: str = "alice", *, age: int = 0) -> None:
    """Sign in as ``sub`` with a provider proof ``age`` seconds old."""
    idp.state.answer_auth_time = int(time.time()) - age if age else None
    landed = client.login(sub, next="/me")
    idp.state.answer_auth_time = None
    assert landed.status_code == 200 and landed.json()["signed_in"] is True, landed.text


# Anonymous requests: what path protection does.
def test_an_anonymous_request_to_a_guarded_page_goes_through_login_and_back(guarded: Build) -> None:
    client, _ = guarded()
    response = client.get("/settings", follow_redirects=False)
    assert response.status_code == 302
    assert response.headers["location"] == "/auth/login?next=%2Fsettings"


def test_an_anonymous_api_call_gets_401_when_protection_answers_unauthorized(guarded: Build) -> None:
    client, _ = guarded(protection={"include": ["/private/"], "unauthenticated": "unauthorized"})
    response = client.post("/api/writing")
    assert response.status_code == 401 and response.json()["code"] == "unauthorized"


# max_age: any recent proof counts, the login included.
def test_the_login_itself_satisfies_max_age(guarded: Build, idp: TestIdentityProvider) -> None:
    client, _ = guarded()
    sign_in(client, idp)
    assert client.get("/settings").json() == {"page": "settings"}
    assert client.get("/reading").json() == {"page": "reading"}


def test_an_old_proof_sends_the_page_to_step_up_with_max_age_and_next(
    guarded: Build, idp: TestIdentityProvider
) -> None:
    client, _ = guarded()
    sign_in(client, idp, age=1000)
    response = client.get("/settings?tab=mail", follow_redirects=False)
    assert response.headers["location"] == "/auth/login?max_age=300&next=%2Fsettings%3Ftab%3Dmail"
    path, query = step_up_location(response)
    assert path == "/auth/login" and query == {"max_age": ["300"], "next": ["/settings?tab=mail"]}


def test_a_step_up_asks_the_provider_for_prompt_login_and_max_age_then_resumes_the_page(
    guarded: Build, idp: TestIdentityProvider
) -> None:
    client, _ = guarded()
    sign_in(client, idp, age=1000)
    landed = client.get("/settings", follow_redirects=True)
    assert landed.status_code == 200 and landed.json() == {"page": "settings"}
    assert str(landed.url) == f"{ORIGIN}/settings"
    asked = idp.state.authorizations[-1]
    assert asked["prompt"] == "login" and asked["max_age"] == "300"


# confirmed: only a re-proof a guard asked for counts.
def test_a_fresh_login_never_fills_confirmed(guarded: Build, idp: TestIdentityProvider) -> None:
    client, app = guarded()
    sign_in(client, idp)
    _, query = step_up_location(client.get("/confirmed", follow_redirects=False))
    assert query["max_age"] == ["300"]
    summary = read_session(client, app)
    assert summary is not None and summary.confirmed_at is None


def test_a_step_up_fills_confirmed_for_its_whole_window(guarded: Build, idp: TestIdentityProvider) -> None:
    client, app = guarded()
    sign_in(client, idp)
    assert client.get("/confirmed", follow_redirects=True).json() == {"page": "confirmed"}
    assert client.get("/confirmed").json() == {"page": "confirmed"}  # a positive window covers several
    summary = read_session(client, app)
    assert summary is not None and summary.confirmed_at is not None
    assert abs(summary.confirmed_at - time.time()) < 10


def test_an_old_confirmation_is_asked_for_again(guarded: Build, idp: TestIdentityProvider) -> None:
    client, _ = guarded()
    sign_in(client, idp)
    idp.state.answer_auth_time = int(time.time()) - 200  # inside the 300 s window the step-up asks for
    assert client.get("/confirmed", follow_redirects=True).json() == {"page": "confirmed"}
    idp.state.answer_auth_time = None
    # A 360 s policy that needs confirmation is met by the same re-proof; a 300 s page still is too.
    assert client.post("/api/writing").json() == {"written": True}


# Zero windows: satisfied once, by the step-up they asked for.
def test_confirmed_zero_is_satisfied_once_by_its_step_up(guarded: Build, idp: TestIdentityProvider) -> None:
    client, _ = guarded()
    sign_in(client, idp)
    first = client.get("/once", follow_redirects=True)
    assert first.json() == {"page": "once"} and str(first.url) == f"{ORIGIN}/once"
    assert idp.state.authorizations[-1]["max_age"] == "0"
    _, query = step_up_location(client.get("/once", follow_redirects=False))
    assert query["max_age"] == ["0"]


def test_elapsed_time_never_satisfies_a_zero_window(guarded: Build, idp: TestIdentityProvider) -> None:
    client, _ = guarded()
    sign_in(client, idp)  # proved this very second
    assert client.get("/confirmed", follow_redirects=True).status_code == 200  # and re-proved for 5 min
    _, query = step_up_location(client.get("/once", follow_redirects=False))
    assert query["max_age"] == ["0"]
    assert client.post("/api/once").status_code == 401


def test_a_zero_window_policy_behaves_like_confirmed_zero(guarded: Build, idp: TestIdentityProvider) -> None:
    client, _ = guarded()
    sign_in(client, idp)
    refused = client.post("/api/once")
    assert refused.status_code == 401 and refused.json()["code"] == "step_up_required"
    assert refused.json()["max_age"] == 0
    client.get(refused.json()["login"], follow_redirects=True)
    assert client.post("/api/once").json() == {"done": True}
    assert client.post("/api/once").status_code == 401


def test_a_zero_window_api_grant_satisfies_no_other_guarded_route_and_its_own_once(
    guarded: Build, idp: TestIdentityProvider
) -> None:
    client, _ = guarded()
    sign_in(client, idp)
    refused = client.post("/api/once", headers={"referer": f"{ORIGIN}/account"})
    landed = client.get(refused.json()["login"], follow_redirects=True)
    assert landed.json() == {"page": "account"}  # stepped up; the grant waits for POST /api/once
    # The same guard kind on another route, and the same policy guarding another route: not theirs.
    assert step_up_location(client.get("/once", follow_redirects=False))[1]["max_age"] == ["0"]
    assert client.post("/account/delete", follow_redirects=False).status_code == 303
    assert step_up_location(client.get("/policy/each_time", follow_redirects=False))[1]["max_age"] == ["0"]
    # Their refusals did not spend it: the operation that asked for it runs, once.
    assert client.post("/api/once").json() == {"done": True}
    assert client.post("/api/once").status_code == 401


# The page twin of the API test above, kept apart so each grant's rule has its own name.
def test_a_zero_window_page_grant_satisfies_no_other_guarded_route_and_its_own_once(
    guarded: Build, idp: TestIdentityProvider
) -> None:
    client, _ = guarded()
    sign_in(client, idp)
    referer = {"referer": f"{ORIGIN}/account"}
    asked = client.post("/account/delete", headers=referer, follow_redirects=False)
    assert client.get(asked.headers["location"], follow_redirects=True).json() == {"page": "account"}
    assert client.get("/once", follow_redirects=False).status_code == 303  # also confirmed(0), another route
    assert client.post("/api/once").status_code == 401
    assert client.post("/account/delete", headers=referer).json() == {"deleted": True}
    assert client.post("/account/delete", headers=referer, follow_redirects=False).status_code == 303


def test_a_zero_window_grant_for_one_path_of_a_route_does_not_serve_another_path(
    idp: TestIdentityProvider, sqlite_dsn: str
) -> None:
    app = fw.App()

    @app.route("GET /me")
    async def me(request: fw.Request) -> fw.Response:
        return fw.JSONResponse({"signed_in": fw.auth.user(request) is not None})

    @app.route("POST /api/items/{item}/delete")
    @fw.auth.ensure_api(fw.auth.confirmed(timedelta(0)))
    async def delete_item(request: fw.Request) -> fw.Response:
        return fw.JSONResponse({"deleted": request.path_params["item"]})

    arguments = layers(idp.issuer, sqlite_dsn, client_id=idp.client_id, client_secret=idp.client_secret)
    with configured(**arguments), BrowserClient(app, idp) as client:
        sign_in(client, idp)
        refused = client.post("/api/items/1/delete")
        client.get(refused.json()["login"], follow_redirects=True)
        assert client.post("/api/items/2/delete").status_code == 401
        assert client.post("/api/items/1/delete").json() == {"deleted": "1"}


def test_the_login_url_of_a_zero_window_names_the_operation_of_its_guard_and_route(
    guarded: Build, idp: TestIdentityProvider
) -> None:
    client, _ = guarded()
    sign_in(client, idp)
    referer = {"referer": f"{ORIGIN}/account"}
    operations = [
        step_up_location(client.get("/once", follow_redirects=False))[1]["operation"],
        step_up_location(client.post("/account/delete", headers=referer, follow_redirects=False))[1][
            "operation"
        ],
        step_up_location(client.get("/policy/each_time", follow_redirects=False))[1]["operation"],
        parse_qs(urlsplit(client.post("/api/once").json()["login"]).query)["operation"],
    ]
    assert len({operation for [operation] in operations}) == 4
    assert step_up_location(client.get("/once", follow_redirects=False))[1]["operation"] == operations[0]
    # A positive window leaves no grant, so its login URL names no operation.
    assert "operation" not in step_up_location(client.get("/confirmed", follow_redirects=False))[1]


def test_a_head_request_asks_for_the_grant_its_page_uses(guarded: Build, idp: TestIdentityProvider) -> None:
    client, _ = guarded()
    sign_in(client, idp)
    asked = client.head("/once", follow_redirects=False)
    assert asked.status_code == 303
    before = len(idp.state.authorizations)
    landed = client.get(asked.headers["location"], follow_redirects=True)
    assert str(landed.url) == f"{ORIGIN}/once" and landed.json() == {"page": "once"}
    assert len(idp.state.authorizations) == before + 1  # one step-up, not one per method


def test_a_zero_window_step_up_no_guard_asked_for_leaves_no_grant(
    guarded: Build, idp: TestIdentityProvider
) -> None:
    client, app = guarded()
    sign_in(client, idp)
    landed = client.get("/auth/login?max_age=0&next=/me", follow_redirects=True)
    assert str(landed.url) == f"{ORIGIN}/me"
    summary = read_session(client, app)
    assert summary is not None and summary.confirmed_at is not None and summary.grant == ""
    assert client.get("/once", follow_redirects=False).status_code == 303
    assert client.post("/api/once").status_code == 401


@pytest.mark.parametrize("backend", ["rdb", "cookie", "redis"])
def test_two_concurrent_uses_of_one_zero_window_step_up_let_exactly_one_through(
    idp: TestIdentityProvider, sqlite_dsn: str, backend: str, request: pytest.FixtureRequest
) -> None:
    secret = "k" * 43 if backend == "cookie" else ""
    redis_url = request.getfixturevalue("redis_url") if backend == "redis" else ""
    session = session_settings(backend, secret=secret, redis_url=redis_url)
    with open_guarded(idp, sqlite_dsn, session=session) as (client, app):
        sign_in(client, idp)
        refused = client.post(
            "/account/delete", headers={"referer": f"{ORIGIN}/account"}, follow_redirects=False
        )
        landed = client.get(refused.headers["location"], follow_redirects=True)
        assert landed.json() == {"page": "account"}  # the POST resumed as its safe page; grant unused
        statuses = concurrently(client, app, "POST", "/account/delete", copies=2)
        assert sorted(statuses) == [200, 303]


# Only a safe method is resumed after the callback.
def test_a_post_is_resumed_as_the_page_it_came_from(guarded: Build, idp: TestIdentityProvider) -> None:
    client, _ = guarded()
    sign_in(client, idp)
    response = client.post(
        "/account/delete", headers={"referer": f"{ORIGIN}/account?tab=danger"}, follow_redirects=False
    )
    _, query = step_up_location(response)
    [operation] = query.pop("operation")
    assert query == {"max_age": ["0"], "next": ["/account?tab=danger"]} and operation


@pytest.mark.parametrize("referer", [None, "https://evil.example/account", f"{ORIGIN}/account/delete"])
def test_a_post_without_a_same_origin_page_lands_on_post_login_path(
    guarded: Build, idp: TestIdentityProvider, referer: str | None
) -> None:
    client, _ = guarded(post_login_path="/me")
    sign_in(client, idp)
    headers = {"referer": referer} if referer else {}
    _, query = step_up_location(client.post("/account/delete", headers=headers, follow_redirects=False))
    assert query["next"] == ["/me"]
    landed = client.get(f"/auth/login?max_age=0&next={query['next'][0]}", follow_redirects=True)
    assert str(landed.url) == f"{ORIGIN}/me"


# APIs: 401 step_up_required instead of a redirect.
def test_an_api_guard_answers_401_step_up_required_with_the_login_to_use(
    guarded: Build, idp: TestIdentityProvider
) -> None:
    client, _ = guarded()
    sign_in(client, idp)
    refused = client.post("/api/writing", headers={"referer": f"{ORIGIN}/account"})
    assert refused.status_code == 401
    body = refused.json()
    assert body["code"] == "step_up_required" and body["max_age"] == 360
    assert body["login"] == "/auth/login?max_age=360&next=%2Faccount"
    client.get(body["login"], follow_redirects=True)
    assert client.post("/api/writing").json() == {"written": True}


# Policy names: unknown ones that cannot be checked at startup answer 503.
def test_a_policy_name_resolved_per_request_answers_503_when_not_configured(
    guarded: Build, idp: TestIdentityProvider
) -> None:
    client, _ = guarded()
    sign_in(client, idp)
    assert client.get("/policy/read_settings").json() == {"page": "policy"}
    unknown = client.get("/policy/nope")
    assert unknown.status_code == 503 and "nope" in unknown.json()["detail"]


def test_a_guard_without_a_browser_mode_answers_503(sqlite_dsn: str, idp: TestIdentityProvider) -> None:
    arguments = layers(idp.issuer, sqlite_dsn, enabled=False)
    with configured(**arguments), BrowserClient(guarded_app(), idp) as client:
        assert client.get("/settings").status_code == 503
        assert client.get("/me").json() == {"signed_in": False}


def test_a_malformed_max_age_on_the_login_path_is_a_400(guarded: Build, idp: TestIdentityProvider) -> None:
    client, _ = guarded()
    sign_in(client, idp)
    for value in ("-1", "abc", "1e3", "99999999999"):
        assert client.get(f"/auth/login?max_age={value}").status_code == 400


def test_a_malformed_operation_on_the_login_path_is_a_400(guarded: Build, idp: TestIdentityProvider) -> None:
    client, _ = guarded()
    sign_in(client, idp)
    [operation] = step_up_location(client.get("/once", follow_redirects=False))[1]["operation"]
    for value in ("", "x", operation + "A", operation[:-1] + "!", operation[:-1] + "%C3%A9"):
        refused = client.get(f"/auth/login?max_age=0&operation={value}", follow_redirects=False)
        assert refused.status_code == 400, value
    to_provider = client.get(f"/auth/login?max_age=0&operation={operation}", follow_redirects=False)
    assert to_provider.status_code == 302 and to_provider.headers["location"].startswith(idp.issuer)


def test_a_guarded_handler_keeps_its_name_and_its_requirement() -> None:
    async def page(request: fw.Request) -> fw.Response:
        return fw.JSONResponse({})

    requirement = fw.auth.max_age(timedelta(minutes=1))
    wrapped = fw.auth.ensure(page, requirement)
    assert wrapped is not page and wrapped.__name__ == "page"
    assert requirement_of(wrapped) == requirement and requirement_of(page) is None
