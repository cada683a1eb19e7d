"""The mode seam, proven from outside fw: a mode fw has never heard of, registered by this module.

``door`` is a throwaway mode: its own settings table (``[door]``, registered with
``fw.register_config`` like any application table, its loader generated into this directory's
``_fw_config.py``), one route, a middleware recording its own principal, and a startup check.
Registering it with :func:`fw.auth.register_mode` is all it takes for ``auth.mode = "door"`` to
compose it into an App, for the foreign-settings rule and the startup summary to treat it like
fw's own modes, and for its check to refuse bad settings at startup.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import pytest
from pillars import the_pillar
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.testclient import TestClient
from starlette.types import Scope

import fw
from fw.auth.caller import Authentication, record
from fw.auth.modes import registry as modes_registry
from fw.auth.modes.base import DevEnvironment, DevIssuer, ModeSettings, Scaffold
from fw.configuration import choices, registry
from fw.configuration.advisory import Advisory
from fw.core.middleware import Decision, Middleware
from fw.core.routes import BaseRoute, Route
from fw.generate.config import generate_folders
from fw.testing import configured


@dataclass
class DoorSettings:
    """The ``[door]`` table: where the door is and the word that opens it."""

    #: Path of the door's one route.
    path: Annotated[str, fw.default("/door")]
    #: The word a visitor presents in ``X-Door``.
    keyword: Annotated[str, fw.secret("mask")]


@dataclass(frozen=True, slots=True)
class Visitor:
    """The door's principal: fw's caller module has never heard of it."""

    account_id: str
    knocks: int


class DoorMiddleware:
    """Records a :class:`Visitor` for requests presenting the keyword (fw's one middleware protocol)."""

    def __init__(self, keyword: str) -> None:
        self.keyword = keyword.encode()

    def decide(self, scope: Scope) -> Decision:
        if scope["type"] == "http" and (b"x-door", self.keyword) in scope["headers"]:
            record(scope, Authentication("bearer", "visitor", "door", "visitor", Visitor("visitor", 1)))
        return None


class Door:
    """The door's extension: one route, one middleware."""

    def __init__(self, settings: DoorSettings) -> None:
        self.settings = settings
        self.started = False

    def routes(self) -> Sequence[BaseRoute]:
        return [Route(self.settings.path, self.knock, methods=["GET"])]

    def middleware(self) -> Sequence[Middleware]:
        return [DoorMiddleware(self.settings.keyword)]

    async def startup(self) -> None:
        self.started = True

    async def shutdown(self) -> None:
        self.started = False

    async def knock(self, request: Request) -> Response:
        found = fw.request_authentication(request)
        principal = found.principal if found is not None else None
        if not isinstance(principal, Visitor):
            return JSONResponse({"open": False}, status_code=401)
        return JSONResponse({"open": True, "visitor": principal.account_id, "knocks": principal.knocks})


# The whole Mode protocol spelled out, as a project's own mode writes it (sketch.py does the same).
class DoorMode:
    """The ``door`` mode as the registry sees it."""

    name = "door"
    browser = False
    tables: tuple[str, ...] = ()
    scaffold = Scaffold()

    def check(self, settings: ModeSettings) -> None:
        door = settings.table(DoorSettings)
        if not door.keyword:
            raise fw.StartupError("door.keyword", "", "set the word that opens the door")
        if not door.path.startswith("/"):
            raise fw.StartupError("door.path", door.path, "use a root-relative path such as /door")

    def extension(self, settings: ModeSettings) -> Door:
        return Door(settings.table(DoorSettings))

    def advisories(
        self, values: Mapping[str, Any], sources: Mapping[str, str], app_env: str
    ) -> list[Advisory]:
        return []

    def dev_environment(self, issuer: DevIssuer) -> DevEnvironment | None:
        return None


DOOR = DoorMode()
DOOR_MODE = {"auth": {"enabled": True, "mode": "door"}}


@pytest.fixture
def door(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """``[door]`` registered as configuration and ``door`` as a mode, both gone after the test."""
    saved = registry.state()
    registry.restore(registry.unparsed_copy(saved))
    monkeypatch.setattr(modes_registry, "_modes", dict(modes_registry._modes))
    monkeypatch.setattr(choices, "_extra", dict(choices._extra))  # the name "door" leaves with it
    try:
        fw.register_config(DoorSettings, "door")
        fw.auth.register_mode(DOOR)
        yield
    finally:
        registry.restore(saved)


def toml(door: str = 'keyword = "open sesame"', auth: str = "") -> str:
    return f'[auth]\nenabled = true\nmode = "door"\n{auth}\n[door]\n{door}\n'


def refusal(text: str, env: dict[str, str] | None = None) -> fw.StartupError:
    """The error an App configured with ``text`` (and ``env``) refuses to start with."""
    with configured(toml=text, env=env), pytest.raises(fw.StartupError) as refused:
        asyncio.run(fw.App().startup())
    return refused.value


def test_the_generated_loader_of_the_door_table_is_current() -> None:
    [output] = generate_folders([Path(__file__).parent])
    assert output.path.read_text() == output.text, (
        "tests/auth_modes/_fw_config.py is stale: run generate_folders"
    )


def test_an_app_composes_a_mode_registered_from_outside_fw(door: None) -> None:
    with configured(toml=toml()):
        app = fw.App()
        with TestClient(app) as client:
            assert client.get("/door").json() == {"open": False}
            opened = client.get("/door", headers={"X-Door": "open sesame"})
            assert opened.json() == {"open": True, "visitor": "visitor", "knocks": 1}
        extension = the_pillar(app)
        assert isinstance(extension, Door) and extension.settings.keyword == "open sesame"


def test_the_mode_reads_its_own_table_where_the_configuration_puts_it(door: None) -> None:
    with configured(toml=toml('keyword = "k"\npath = "/gate"')), TestClient(fw.App()) as client:
        assert client.get("/gate", headers={"X-Door": "k"}).json()["open"] is True
        assert client.get("/door").status_code == 404


@pytest.mark.parametrize(
    ("table", "key"), [("", "door.keyword"), ('keyword = "k"\npath = "door"', "door.path")]
)
def test_the_startup_check_of_a_registered_mode_refuses_bad_settings(
    door: None, table: str, key: str
) -> None:
    assert refusal(toml(table)).key == key


def test_a_table_of_fws_own_modes_is_foreign_to_a_registered_mode(door: None) -> None:
    error = refusal(toml(), env={"AUTH_OIDC_ISSUER": "https://login.example"})
    assert error.key == "auth.oidc.issuer"
    assert "auth.mode = door does not read it" in error.fix and "env:AUTH_OIDC_ISSUER" in error.fix


def test_the_rules_every_mode_shares_apply_to_a_registered_mode(door: None) -> None:
    assert refusal(toml(auth='login_path = "auth/login"')).key == "auth.login_path"


def test_the_startup_summary_hides_every_mode_table_a_registered_mode_does_not_read(door: None) -> None:
    with configured(toml=toml()):
        keys = {item.key for item in registry.summary_items()}
    assert "door.keyword" in keys and "auth.mode" in keys
    assert not {key for key in keys if key.startswith(("auth.oidc.", "auth.jwt.", "auth.session."))}


def test_an_unregistered_mode_name_is_refused_listing_the_registered_ones(door: None) -> None:
    with pytest.raises(fw.ConfigError) as refused:
        refusal('[auth]\nenabled = true\nmode = "window"\n')
    assert refused.value.key == "auth.mode"
    assert str(refused.value).endswith(
        "use one of: oidc_only, oidc_passkey, passkey_only, oauth_only, jwt_only, door (from file:<toml>:3)"
    )
