"""Every page fw serves to a person passes axe-core in Chromium with no serious or critical violation.

For each browser mode a project is written with ``fw init`` and served by ``fw dev`` (with its
development provider or X stand-in), browsed at ``http://localhost:PORT`` by headless Chromium
with a virtual authenticator. axe-core (``tests/e2e/axe``, installed by ``npm ci`` in
``.ci/run``) is injected into each page a person meets on the way: the generated home, sign-in
and account pages, the provider's pages, fw's own sign-in page, its error pages (404, 401, a
sign-in cancelled at the provider, a passkey refusal announced on the page) and ``/docs``.
Every violation found is reported together, page by page.
"""

from __future__ import annotations

import contextlib
import re
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx2
import pytest

from e2e.support import CHROMIUM, CHROMIUM_ARGS, PYTHON, REPO, clean_env, free_port, serving

if TYPE_CHECKING:
    from playwright.sync_api import Page

AXE = REPO / "tests" / "e2e" / "axe" / "node_modules" / "axe-core" / "axe.min.js"
#: axe's impacts that fail the test.
BLOCKING = ("serious", "critical")
#: What Swagger UI's own markup at /docs still violates after fw's stylesheet (docs/api-reference.md
#: lists them): ``nested-interactive``, its operation headers are buttons holding other buttons
#: (copy, authorize, expand), which no stylesheet can change.
DOCS_EXCLUDED = ("nested-interactive",)
BROWSER_MODES = ["oidc_only", "oauth_only", "oidc_passkey", "passkey_only"]
PAGE = {"accept": "text/html,application/xhtml+xml,*/*;q=0.8"}


@dataclass
class Audit:
    """The serious and critical violations found so far, by page."""

    found: dict[str, list[str]] = field(default_factory=dict)
    checked: list[str] = field(default_factory=list)

    def check(self, page: Page, name: str, *, exclude: tuple[str, ...] = ()) -> set[str]:
        """Run axe-core on ``page`` as it is now; note what it finds under ``name``; the IDs of
        the blocking rules it broke."""
        page.wait_for_load_state("load")
        if not page.evaluate("typeof axe !== 'undefined'"):
            page.add_script_tag(content=AXE.read_text(encoding="utf-8"))
        violations: list[dict[str, Any]] = page.evaluate(
            """async (excluded) => {
                const rules = Object.fromEntries(excluded.map((id) => [id, { enabled: false }]));
                const result = await axe.run(document, { rules });
                return result.violations.map((v) => ({
                    id: v.id, impact: v.impact, help: v.help,
                    nodes: v.nodes.slice(0, 3).map((n) => n.target.join(" ")),
                }));
            }""",
            list(exclude),
        )
        self.checked.append(name)
        blocking = [v for v in violations if v["impact"] in BLOCKING]
        if blocking:
            self.found[name] = [f"{v['impact']} {v['id']}: {v['help']} at {v['nodes']}" for v in blocking]
        return {v["id"] for v in blocking}


@dataclass
class Project:
    mode: str
    origin: str
    workdir: Path
    env: dict[str, str]


@contextlib.contextmanager
def project(mode: str, tmp_path: Path) -> Iterator[Project]:
    """``fw init --auth MODE`` in ``tmp_path``, served by ``fw dev`` on a free port."""
    created = subprocess.run(
        [PYTHON, "-m", "fw.cli", "init", "shop", "--auth", mode],
        cwd=tmp_path,
        env=clean_env({}),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert created.returncode == 0, created.stderr
    workdir = tmp_path / "shop"
    port = free_port()
    origin = f"http://localhost:{port}"  # a passkey's RP ID is a domain: localhost, never 127.0.0.1
    env = clean_env({"APP_ENV": "dev"})
    if "passkey" in mode:
        env["AUTH_PASSKEY_ORIGINS"] = origin
    command = [PYTHON, "-m", "fw.cli", "dev", "--server-port", str(port)]
    ready = f"http://127.0.0.1:{port}/"
    with serving(command, env=env, cwd=workdir, ready_url=ready, log=tmp_path / "fw-dev.log"):
        yield Project(mode, origin, workdir, env)


@contextlib.contextmanager
def chromium() -> Iterator[Page]:
    """A page in headless Debian chromium with a virtual passkey authenticator attached."""
    from playwright.sync_api import sync_playwright

    from e2e.webauthn import virtual_authenticator

    assert Path(CHROMIUM).exists(), f"{CHROMIUM} is missing (bash .ci/run installs it)"
    assert AXE.exists(), "axe-core is missing: npm ci --prefix tests/e2e/axe"
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(bypass_csp=True)  # axe is injected into /docs too
            with virtual_authenticator(page):
                yield page
        finally:
            browser.close()


def served_page(page: Page, project: Project, response: httpx2.Response) -> None:
    """Show ``response``'s body (a page fw served to a request a browser cannot navigate to) in
    ``page``, on the project's origin, as the browser would have shown it."""
    page.goto(f"{project.origin}/", wait_until="load")
    page.set_content(response.text, wait_until="load")


# subprocess.run spelled out: its keyword arguments are all it shares with other tests' runs.
def issue_bootstrap(project: Project, login_id: str) -> tuple[str, str]:
    """``fw passkey bootstrap LOGIN_ID``: the login ID and the one-time secret it printed."""
    issued = subprocess.run(
        [PYTHON, "-m", "fw.cli", "passkey", "bootstrap", login_id],
        cwd=project.workdir,
        env=project.env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert issued.returncode == 0, issued.stderr
    printed = dict(re.findall(r"^\s*(login ID|secret):\s*(\S+)\s*$", issued.stdout, re.MULTILINE))
    assert set(printed) == {"login ID", "secret"}, issued.stdout
    return printed["login ID"], printed["secret"]


def audit_provider_mode(page: Page, project: Project, audit: Audit) -> None:
    """A mode signing in at a provider: its picker, a cancelled sign-in, then the account page."""
    mode = project.mode
    page.goto(f"{project.origin}/account")
    assert page.locator("form button[name='deny']").count() == 1, page.content()[:500]
    audit.check(page, f"{mode}: provider sign-in page")
    page.emulate_media(color_scheme="dark")  # the providers' stylesheet follows the system's
    audit.check(page, f"{mode}: provider sign-in page, dark colour scheme")
    page.emulate_media(color_scheme="light")
    authorize = page.url.partition("?")[0]
    if mode != "oauth_only":  # the development OpenID provider's device-flow pages
        page.goto(authorize.replace("/authorize", "/device"))
        assert page.locator("input[name='user_code']").count() == 1
        audit.check(page, f"{mode}: provider device code page")
        page.goto(authorize.replace("/authorize", "/end_session"))
        audit.check(page, f"{mode}: provider signed-out page")
    refused = page.goto(f"{authorize}?client_id=nobody&response_type=code")
    assert refused is not None and refused.status == 400
    audit.check(page, f"{mode}: provider refusal page")
    page.goto(f"{project.origin}/account")  # a new sign-in attempt at the provider
    page.click("form button[name='deny']")
    page.wait_for_load_state("load")
    assert "cancelled at the identity provider" in page.inner_text("main")
    audit.check(page, f"{mode}: error page, sign-in cancelled at the provider")
    page.goto(f"{project.origin}/account")
    page.locator("form li button[name='user']").first.click()
    page.wait_for_url(f"{project.origin}/account")
    audit.check(page, f"{mode}: generated account page, signed in")


def audit_passkey_only(page: Page, project: Project, audit: Audit) -> None:
    """fw's sign-in page, a refused first sign-in announced on it, then the account page."""
    page.goto(f"{project.origin}/account")
    page.wait_for_url(re.compile(r".*/auth/login\?next=%2Faccount$"))
    audit.check(page, "passkey_only: fw's sign-in page")
    page.fill("#fw-login-id", "nobody")
    page.fill("#fw-secret", "not-a-secret")
    page.click("form[data-fw-passkey='bootstrap'] button")
    page.wait_for_selector("[role=alert]:not(:empty)")
    said = page.inner_text("[role=alert]")
    assert "DOMException" not in said and "w3.org" not in said
    audit.check(page, "passkey_only: fw's sign-in page, refusal announced")

    login_id, secret = issue_bootstrap(project, "ada")
    page.fill("#fw-login-id", login_id)
    page.fill("#fw-secret", secret)
    page.click("form[data-fw-passkey='bootstrap'] button")
    page.wait_for_url(f"{project.origin}/")
    page.goto(f"{project.origin}/account")
    audit.check(page, "passkey_only: generated account page, signed in")


@pytest.mark.timeout(600)
@pytest.mark.parametrize("mode", BROWSER_MODES)
def test_every_page_a_person_meets_passes_axe(mode: str, tmp_path: Path) -> None:
    audit = Audit()
    with project(mode, tmp_path) as running, chromium() as page:
        page.goto(f"{running.origin}/")
        audit.check(page, f"{mode}: generated home page")
        missing = page.goto(f"{running.origin}/no-such-page")
        assert missing is not None and missing.status == 404
        audit.check(page, f"{mode}: error page 404")
        anonymous = httpx2.post(
            f"{running.origin.replace('localhost', '127.0.0.1')}/auth/passkey/register/begin",
            headers={**PAGE, "origin": running.origin},
            timeout=10,
        )
        if mode in ("oidc_passkey", "passkey_only"):
            assert anonymous.status_code == 401
            assert anonymous.headers["content-type"] == "text/html; charset=utf-8"
            served_page(page, running, anonymous)
            audit.check(page, f"{mode}: error page 401")
        if mode == "passkey_only":
            audit_passkey_only(page, running, audit)
        else:
            audit_provider_mode(page, running, audit)
        if mode == "oidc_only":
            page.goto(f"{running.origin}/docs")
            page.wait_for_selector(".opblock", timeout=20_000)
            # What is excluded is exactly what Swagger UI still breaks (drop it once it is fixed).
            assert Audit().check(page, "/docs") == set(DOCS_EXCLUDED)
            audit.check(page, "/docs (Swagger UI)", exclude=DOCS_EXCLUDED)
            page.click(".opblock-summary")  # one operation opened: its parameters and responses
            page.wait_for_selector(".opblock-body")
            audit.check(page, "/docs (Swagger UI), an operation opened", exclude=DOCS_EXCLUDED)
    assert not audit.found, "\n".join(
        f"{name}:\n  " + "\n  ".join(found) for name, found in audit.found.items()
    )
    assert len(audit.checked) >= 5
