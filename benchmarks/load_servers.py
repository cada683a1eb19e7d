"""One application process of the sustained-load run (benchmarks/sustained_load.py).

``python load_servers.py browser CONFIG`` serves an ``oidc_only`` App (sessions in Redis, accounts
in PostgreSQL); ``python load_servers.py bearer CONFIG`` a ``jwt_only`` App with revocation in
PostgreSQL and two application endpoints that revoke and reinstate a token through this process.
Each prints ``pid=<n> port=<n>`` once listening on a free 127.0.0.1 port.
"""

from __future__ import annotations

import sys

import fw
import fw.auth
from fw import configuration
from fw.auth.settings import AuthSettings
from fw.background import serve_announced

app = fw.App()
KIND = sys.argv[1] if len(sys.argv) > 1 else "browser"

if KIND == "browser":

    @app.route("GET /page")
    async def page(request: fw.Request) -> fw.Response:
        user = fw.auth.user(request)
        return fw.JSONResponse({"signed_in": user is not None, "account": user.account_id if user else None})

else:

    @app.route("GET /api/me")
    async def me(request: fw.Request) -> fw.Response:
        caller = fw.auth.bearer(request)
        return fw.JSONResponse({"account_id": caller.account_id if caller else None})

    @app.route("POST /admin/revoke")
    async def revoke(request: fw.Request) -> fw.Response:
        issuer = configuration.config(AuthSettings).jwt.issuer
        await fw.auth.revoke_token(issuer, request.query_params["jti"], "load test")
        return fw.JSONResponse({"revoked": True})

    @app.route("POST /admin/reinstate")
    async def reinstate(request: fw.Request) -> fw.Response:
        issuer = configuration.config(AuthSettings).jwt.issuer
        await fw.auth.reinstate_token(issuer, request.query_params["jti"])
        return fw.JSONResponse({"reinstated": True})


def main() -> None:
    configuration.parse_config(["--config-path", sys.argv[2]])
    serve_announced(app)


if __name__ == "__main__":
    main()
