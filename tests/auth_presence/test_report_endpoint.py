"""``POST {logout_path}/presence`` and ``GET {logout_path}/presence.js`` in every browser mode:
the answers to a good tick, to bad bodies, to strangers and to other origins."""

from __future__ import annotations

import json

import pytest

from auth_presence.support import MODES, REPORT, signed_in

PRESENCE = {"presence": {"enabled": True, "interval": "1m", "absent_after": "30m"}}


@pytest.mark.parametrize("mode", MODES)
def test_a_signed_in_browser_reports_a_tick_and_gets_204(mode: str, sqlite_dsn: str) -> None:
    with signed_in(mode, sqlite_dsn, assurance=PRESENCE) as tab:
        answer = tab.report(active=True, gap=60)
        assert answer.status_code == 204, answer.text
        assert answer.headers["cache-control"] == "no-store"
        assert tab.report(active=False, gap=60.5).status_code == 204
        assert tab.signed_in()


@pytest.mark.parametrize("mode", MODES)
def test_a_browser_without_a_session_is_told_401(mode: str, sqlite_dsn: str) -> None:
    with signed_in(mode, sqlite_dsn, assurance=PRESENCE, sign_in=False) as tab:
        answer = tab.report()
        assert answer.status_code == 401
        assert answer.headers["content-type"] == "application/problem+json"
        assert answer.json()["code"] == "unauthorized"


@pytest.mark.parametrize("mode", MODES)
def test_a_report_from_another_origin_is_refused_like_logout(mode: str, sqlite_dsn: str) -> None:
    with signed_in(mode, sqlite_dsn, assurance=PRESENCE) as tab:
        foreign = tab.report(headers={"origin": "https://evil.example"})
        assert foreign.status_code == 403 and foreign.json()["code"] == "cross_origin"
        cross_site = tab.report(headers={"sec-fetch-site": "cross-site"})
        assert cross_site.status_code == 403
        assert tab.logout().status_code == 303  # logout from the page's own origin still works


@pytest.mark.parametrize(
    ("body", "fields"),
    [
        ({}, {"active", "gap"}),
        ({"active": "yes", "gap": 60}, {"active"}),
        ({"active": 1, "gap": 60}, {"active"}),
        ({"active": True, "gap": -1}, {"gap"}),
        ({"active": True, "gap": True}, {"gap"}),
        ({"active": True, "gap": "60"}, {"gap"}),
        ({"active": True}, {"gap"}),
    ],
)
def test_a_tick_with_a_wrong_member_is_a_400_naming_it(
    body: dict[str, object], fields: set[str], sqlite_dsn: str
) -> None:
    with signed_in("oidc_only", sqlite_dsn, assurance=PRESENCE) as tab:
        answer = tab.post(REPORT, json=body)
        assert answer.status_code == 400
        assert {error["field"] for error in answer.json()["errors"]} == fields
        assert tab.signed_in()  # a bad report neither ends nor keeps anything


@pytest.mark.parametrize("raw", [b"not json", b"[true, 1]", b"", b'{"active": true, "gap": NaN}'])
def test_a_body_that_is_no_json_object_is_a_400(raw: bytes, sqlite_dsn: str) -> None:
    with signed_in("oidc_only", sqlite_dsn, assurance=PRESENCE) as tab:
        answer = tab.post(REPORT, content=raw, headers={"content-type": "application/json"})
        assert answer.status_code == 400
        assert answer.headers["content-type"] == "application/problem+json"


def test_a_body_that_is_not_json_is_a_415(sqlite_dsn: str) -> None:
    with signed_in("oidc_only", sqlite_dsn, assurance=PRESENCE) as tab:
        form = tab.post(REPORT, data={"active": "true", "gap": "60"})
        assert form.status_code == 415 and form.json()["code"] == "unsupported_media_type"
        untyped = tab.post(REPORT, content=json.dumps({"active": True, "gap": 1}))
        assert untyped.status_code == 415


def test_a_body_larger_than_a_tick_is_a_413(sqlite_dsn: str) -> None:
    with signed_in("oidc_only", sqlite_dsn, assurance=PRESENCE) as tab:
        padded = {"active": True, "gap": 1, "padding": "x" * 2048}
        assert tab.post(REPORT, json=padded).status_code == 413


def test_members_besides_active_and_gap_are_ignored(sqlite_dsn: str) -> None:
    with signed_in("oidc_only", sqlite_dsn, assurance=PRESENCE) as tab:
        assert tab.post(REPORT, json={"active": True, "gap": 3, "tab": "a"}).status_code == 204


def test_only_post_reports(sqlite_dsn: str) -> None:
    with signed_in("oidc_only", sqlite_dsn, assurance=PRESENCE) as tab:
        assert tab.client.get(REPORT).status_code == 405


@pytest.mark.parametrize("mode", MODES)
def test_the_script_is_served_with_the_report_path_and_interval(mode: str, sqlite_dsn: str) -> None:
    presence = {"presence": {"enabled": True, "interval": "15s", "absent_after": "2m"}}
    with signed_in(mode, sqlite_dsn, assurance=presence, sign_in=False) as tab:
        script = tab.client.get("/auth/logout/presence.js")
        assert script.status_code == 200
        assert script.headers["content-type"] == "text/javascript; charset=utf-8"
        assert '{"endpoint": "/auth/logout/presence", "interval": 15000}' in script.text
        assert "__FW_PRESENCE_CONFIG__" not in script.text


def test_the_script_follows_the_logout_path(sqlite_dsn: str) -> None:
    presence = {"presence": {"enabled": True}}
    with signed_in(
        "oidc_only", sqlite_dsn, assurance=presence, sign_in=False, logout_path="/session/end"
    ) as tab:
        script = tab.client.get("/session/end/presence.js")
        assert '"endpoint": "/session/end/presence"' in script.text and '"interval": 60000' in script.text


def test_without_presence_there_is_neither_script_nor_report(sqlite_dsn: str) -> None:
    with signed_in("oidc_only", sqlite_dsn) as tab:
        assert tab.client.get("/auth/logout/presence.js").status_code == 404
        assert tab.report().status_code == 404


def test_presence_paths_answer_for_themselves_under_path_protection(sqlite_dsn: str) -> None:
    protected = {"include": ["/"], "unauthenticated": "redirect"}
    with signed_in("oidc_only", sqlite_dsn, assurance=PRESENCE, sign_in=False, protection=protected) as tab:
        assert tab.client.get("/me", follow_redirects=False).status_code == 302
        assert tab.client.get("/auth/logout/presence.js").status_code == 200
        assert tab.report().status_code == 401
