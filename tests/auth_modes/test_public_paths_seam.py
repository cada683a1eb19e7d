"""The public-paths seam, proven from outside fw: a pillar fw has never heard of declares a path
that carries no credentials, and every mode lets it through whatever ``[auth.protection]`` covers.

``beacon`` is a throwaway pillar: an extension serving ``/beacon`` (a load balancer's check,
say), registered with :func:`fw.extension.register_extension`, and its path declared with
:func:`fw.extension.register_public_paths`, the same two calls fw's operations pillar makes for
``/healthz``, ``/readyz`` and the metrics scrape path.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence

import pytest
from auth_jwt.config_file import jwt_only_toml
from auth_passkey_modes.support import passkey_only_toml
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.testclient import TestClient

import fw
from fw import extension
from fw.core.middleware import Middleware
from fw.core.routes import BaseRoute, Route
from fw.pillars import install
from fw.testing import configured
from fw.testing.issuer import LocalIssuer

BEACON = "/beacon"


class Beacon:
    """An outside pillar's extension: one route that callers without credentials ask."""

    def routes(self) -> Sequence[BaseRoute]:
        return [Route(BEACON, self.shine, methods=["GET"])]

    def middleware(self) -> Sequence[Middleware]:
        return ()

    async def startup(self) -> None:
        return None

    async def shutdown(self) -> None:
        return None

    async def shine(self, request: Request) -> Response:
        return JSONResponse({"shining": True})


def beacon_paths(app: object) -> tuple[str, ...]:
    return (BEACON,)


@pytest.fixture
def beacon(monkeypatch: pytest.MonkeyPatch) -> None:
    """The beacon pillar registered as an application would, gone after the test (fw's own
    pillars handed over first, so they stay once it is gone)."""
    install()
    monkeypatch.setattr(extension, "_factories", list(extension._factories))
    monkeypatch.setattr(extension, "_public_path_providers", list(extension._public_path_providers))
    extension.register_extension(lambda app: Beacon())
    extension.register_public_paths(beacon_paths)


def app_with_a_private_route() -> fw.App:
    app = fw.App()

    @app.route("GET /private/orders")
    async def orders(request: fw.Request) -> fw.Response:
        return fw.JSONResponse({"orders": []})

    return app


@contextlib.contextmanager
def jwt_only_everything_protected() -> Iterator[TestClient]:
    with LocalIssuer() as issuer:
        toml = jwt_only_toml(issuer.url, include="/")
        with configured(toml=toml), TestClient(app_with_a_private_route()) as client:
            yield client


@contextlib.contextmanager
def passkey_only_everything_protected(dsn: str) -> Iterator[TestClient]:
    toml = passkey_only_toml(dsn, protection={"include": ["/"], "unauthenticated": "unauthorized"})
    with configured(toml=toml), TestClient(app_with_a_private_route(), "http://localhost") as client:
        yield client


@pytest.mark.parametrize("mode", ["jwt_only", "passkey_only"])
def test_a_path_an_outside_pillar_declares_public_is_let_through_when_protection_covers_every_path(
    beacon: None, mode: str, sqlite_dsn: str
) -> None:
    opened = (
        jwt_only_everything_protected()
        if mode == "jwt_only"
        else passkey_only_everything_protected(sqlite_dsn)
    )
    with opened as client:
        assert client.get("/private/orders", follow_redirects=False).status_code == 401  # protected indeed
        assert client.get("/beacon/", follow_redirects=False).status_code == 401  # exactly the path
        shone = client.get(BEACON, follow_redirects=False)
        assert shone.status_code == 200 and shone.json() == {"shining": True}
        assert client.get("/healthz").status_code == 200  # fw's own declared paths still pass


def test_the_public_paths_of_every_pillar_are_one_list_without_repeats(beacon: None) -> None:
    extension.register_public_paths(beacon_paths)  # registering a provider again is a no-op
    extension.register_public_paths(lambda app: ["/ping", BEACON])
    paths = extension.public_paths(None)
    assert paths.count(BEACON) == 1 and "/ping" in paths
    assert paths.index(BEACON) < paths.index("/ping")  # registration order
