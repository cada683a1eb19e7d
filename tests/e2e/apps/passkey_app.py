"""A ``passkey_only`` app run twice, as two processes sharing one store, by the scale-out test.

Configuration comes from the environment. The admin routes stand in for an application's own
administration (who may call them is the application's business; here, the test).
"""

from __future__ import annotations

import os

import fw

app = fw.App()


@app.route("GET /me")
async def me(request: fw.Request) -> fw.Response:
    user = fw.auth.user(request)
    return fw.JSONResponse({"account_id": user.account_id if user else None, "pid": os.getpid()})


@app.route("POST /admin/bootstrap/{login_id}")
async def bootstrap(request: fw.Request) -> fw.Response:
    credential = await fw.auth.issue_bootstrap_credential(request.path_params["login_id"])
    return fw.JSONResponse({"login_id": credential.login_id, "secret": credential.secret})


@app.route("POST /admin/remove/{account_id}/{credential_id}")
async def remove(request: fw.Request) -> fw.Response:
    params = request.path_params
    return fw.JSONResponse(
        {"removed": await fw.auth.remove_passkey(params["account_id"], params["credential_id"])}
    )


if __name__ == "__main__":
    fw.run(app)
