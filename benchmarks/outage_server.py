"""The application process of the operations-outage scenario (benchmarks/operations_outage.py).

``python outage_server.py CONFIG`` serves, through ``fw.run`` (so logging is set up as under
``fw run``: JSON lines on standard error, fw's access log instead of uvicorn's), a ``jwt_only``
App whose bearer revocation lives in PostgreSQL, with these routes:

- ``GET /api/me``: protected, so each request asks the revocation store (or its cache);
- ``GET /open``: outside ``[auth.protection]``, touching no store;
- ``POST /admin/revoke?jti=...``: revokes a token through this process.

Where it listens, and metrics, tracing and the access log, come from ``CONFIG``.
``--no-preflight`` serves as ``fw.run`` does but without its preflight (the App started and shut
down once in its own event loop before uvicorn binds), to tell a defect of the preflight apart.
"""

from __future__ import annotations

import sys

import fw
import fw.auth
from fw import configuration
from fw.auth.settings import AuthSettings

app = fw.App()


@app.route("GET /api/me")
async def me(request: fw.Request) -> fw.Response:
    caller = fw.auth.bearer(request)
    return fw.JSONResponse({"account_id": caller.account_id if caller else None})


@app.route("GET /open")
async def open_page(request: fw.Request) -> fw.Response:
    return fw.JSONResponse({"open": True})


@app.route("POST /admin/revoke")
async def revoke(request: fw.Request) -> fw.Response:
    issuer = configuration.config(AuthSettings).jwt.issuer
    await fw.auth.revoke_token(issuer, request.query_params["jti"], "outage run")
    return fw.JSONResponse({"revoked": True})


def serve_without_preflight(config_path: str) -> None:
    import uvicorn

    import fw.pillars
    from fw.operations.logsetup import configure_logging
    from fw.settings import ServerSettings

    fw.pillars.install()
    configuration.parse_config(["--config-path", config_path])
    options = configure_logging()
    server = configuration.config(ServerSettings)
    configuration.print_summary_once()
    uvicorn.run(app, host=server.host, port=server.port, log_level="info", lifespan="on", **options)


if __name__ == "__main__":
    if "--no-preflight" in sys.argv[2:]:
        serve_without_preflight(sys.argv[1])
    else:
        fw.run(app, ["--config-path", sys.argv[1]])
