"""passkey_only's own sign-in page, and what passkey.js tells a person when a ceremony is refused."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path
from typing import Any

from auth_passkey_modes.support import ORIGIN, passkey_only, passkey_only_toml, user_app
from starlette.testclient import TestClient

import fw
import fw.auth.webauthn
from fw.testing import configured

HARNESS = Path(__file__).with_name("passkey_harness.js")
SCRIPT = Path(fw.auth.webauthn.__file__).with_name("passkey.js")


def test_passkey_only_serves_its_sign_in_page_at_the_login_path(sqlite_dsn: str) -> None:
    with passkey_only(sqlite_dsn) as browser:
        page = browser.client.get("/auth/login")
        assert page.status_code == 200
        assert page.headers["content-type"] == "text/html; charset=utf-8"
        assert page.headers["cache-control"] == "no-store"
        text = page.text
        assert '<html lang="en">' in text and text.count("<main>") == 1
        inputs = re.findall(r'<input id="([^"]+)"', text)
        assert inputs == ["fw-login-id", "fw-secret"]
        for field in inputs:  # every field has its label
            assert f'<label for="{field}">' in text
        assert 'role="alert"' in text
        script = re.search(r'<script src="([^"]+)" defer></script>', text)
        assert script is not None
        served = browser.client.get(script.group(1))
        assert served.status_code == 200
        assert served.content == SCRIPT.read_bytes()


def test_an_application_page_at_the_login_path_replaces_fws_own(sqlite_dsn: str) -> None:
    app = user_app()

    @app.route("GET /login")
    async def login(request: fw.Request) -> fw.Response:
        return fw.HTMLResponse("<h1>The shop's own sign-in</h1>")

    toml = passkey_only_toml(sqlite_dsn, login_path="/login", protection={"include": ["/private/"]})
    with configured(toml=toml), TestClient(app, base_url=ORIGIN) as client:
        redirect = client.get("/private/orders", follow_redirects=False)
        assert redirect.headers["location"] == "/login?next=%2Fprivate%2Forders"
        assert client.get("/login").text == "<h1>The shop's own sign-in</h1>"


def test_a_ceremony_from_another_origin_is_refused_naming_the_origin_to_use(sqlite_dsn: str) -> None:
    with passkey_only(sqlite_dsn) as browser:
        refused = browser.post("/login/begin", headers={"origin": "http://127.0.0.1:8000"})
        assert refused.status_code == 403
        detail = refused.json()["detail"]
        assert "http://127.0.0.1:8000 may not run passkey ceremonies" in detail
        assert "open this site at http://localhost" in detail


def run_script(scenario: str, answers: list[Any] | None = None) -> dict[str, Any]:
    env = {**os.environ, "FW_ANSWERS": json.dumps(answers or [])}
    done = subprocess.run(
        ["node", str(HARNESS), str(SCRIPT), scenario],
        capture_output=True,
        text=True,
        timeout=30,
        env=env,
        check=True,
    )
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def test_a_refusal_shows_fws_words_never_the_browsers_exception_text() -> None:
    said = run_script("explain")["result"]
    for sentence in said.values():
        assert "w3.org" not in sentence and "timed out or was not allowed" not in sentence
    assert said["notAllowed"].startswith("The passkey request was cancelled")
    assert said["invalidState"].startswith("This device already holds a passkey")
    assert said["problem"] == "The server's own words."


def test_registering_on_a_session_without_a_recent_proof_proves_with_a_passkey_first() -> None:
    stale = {"status": 401, "code": "reauthentication_required", "detail": "prove who you are again first"}
    creation = {"challenge": "AA", "user": {"id": "AA"}}
    answers = [[401, stale], [200, {"challenge": "AA"}], [200, {"landing": "/"}], [200, creation]]
    answers.append([200, {"credential_id": "new"}])
    ran = run_script("register", answers)
    assert ran["calls"] == [
        "/register/begin",
        "/login/begin",
        "/login/finish",
        "/register/begin",
        "/register/finish",
    ]
    assert ran["result"] == {"resolved": {"credential_id": "new"}}


def test_any_other_registration_refusal_reaches_the_page_unchanged() -> None:
    refused = {"status": 403, "code": "registration_disabled", "detail": "no"}
    ran = run_script("register", [[403, refused]])
    assert ran["calls"] == ["/register/begin"]
    assert ran["result"] == {"rejected": refused}
