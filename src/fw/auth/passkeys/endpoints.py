"""The routes a passkey mode mounts under ``auth.passkey.path``: the four ceremony endpoints, the
mode's extra ones (``/bootstrap`` in ``passkey_only``), each behind the guards, and
``GET passkey.js``."""

from __future__ import annotations

from collections.abc import Mapping

from starlette.requests import Request
from starlette.responses import Response

from fw.auth.passkeys.bound import BoundRecords
from fw.auth.passkeys.guards import Endpoint, passkey_endpoint
from fw.auth.passkeys.live import LiveState
from fw.auth.passkeys.registration import PasskeyRegistration, Registrants
from fw.auth.passkeys.settings import relying_party
from fw.auth.passkeys.signin import PasskeySignIn
from fw.auth.settings import AuthSettings
from fw.auth.webauthn import SCRIPT_MEDIA_TYPE, SCRIPT_NAME, passkey_script
from fw.core.routes import BaseRoute, Route

CEREMONY_COOKIE = "fw_passkey"


class PasskeyEndpoints:
    """Sign-in and registration by passkey, composed by both passkey modes."""

    def __init__(
        self,
        auth: AuthSettings,
        live: LiveState,
        registrants: Registrants,
        *,
        tickets: BoundRecords | None = None,
        extra: Mapping[str, Endpoint] | None = None,
    ) -> None:
        self.path = auth.passkey.path.rstrip("/")
        self.party = relying_party(auth)
        ceremony = BoundRecords("ceremony", CEREMONY_COOKIE, self.path)
        self.signin = PasskeySignIn(auth, self.party, ceremony, live)
        self.registration = PasskeyRegistration(self.party, ceremony, live, registrants, tickets)
        self.endpoints: dict[str, Endpoint] = {
            "/login/begin": self.signin.begin,
            "/login/finish": self.signin.finish,
            "/register/begin": self.registration.begin,
            "/register/finish": self.registration.finish,
            **(extra or {}),
        }

    def paths(self) -> frozenset[str]:
        """Every path mounted here (the session middleware leaves them to their own refusals)."""
        return frozenset({*(self.path + suffix for suffix in self.endpoints), self.script_path})

    @property
    def script_path(self) -> str:
        return f"{self.path}/{SCRIPT_NAME}"

    def routes(self) -> list[BaseRoute]:
        guard = passkey_endpoint(self.party.origins)
        routes: list[BaseRoute] = [
            Route(self.path + suffix, guard(endpoint), methods=["POST"])
            for suffix, endpoint in self.endpoints.items()
        ]
        routes.append(Route(self.script_path, _script, methods=["GET"]))
        return routes


async def _script(request: Request) -> Response:
    return Response(passkey_script(), media_type=SCRIPT_MEDIA_TYPE, headers={"cache-control": "no-cache"})
