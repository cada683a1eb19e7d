"""One application process of the scale-out test: an fw.App in jwt_only, served by uvicorn.

Run as ``python scale_out_server.py <config.toml>``; it prints ``pid=<n> port=<n>`` once listening on a
free 127.0.0.1 port. ``POST /admin/revoke?jti=...`` revokes through this process (an
application-defined endpoint: fw itself mounts none).
"""

from __future__ import annotations

import sys

import fw
import fw.auth
from fw import configuration
from fw.auth.settings import AuthSettings
from fw.auth.stores.engines.rdb import RdbSettings
from fw.background import serve_announced

app = fw.App()


@app.route("GET /api/me")
async def me(request: fw.Request) -> fw.Response:
    caller = fw.auth.bearer(request)
    return fw.JSONResponse({"account_id": caller.account_id if caller else None})


@app.route("POST /admin/revoke")
async def revoke(request: fw.Request) -> fw.Response:
    issuer = configuration.config(AuthSettings).jwt.issuer
    await fw.auth.revoke_token(issuer, request.query_params["jti"], "scale-out test")
    return fw.JSONResponse({"revoked": True})


def main() -> None:
    for cls, prefix in ((AuthSettings, "auth"), (RdbSettings, "middleware.rdb")):
        if not any(r.cls is cls for r in configuration.registry.state().configs.values()):
            configuration.register_config(cls, prefix)
    configuration.parse_config(["--config-path", sys.argv[1]])
    serve_announced(app)


if __name__ == "__main__":
    main()
