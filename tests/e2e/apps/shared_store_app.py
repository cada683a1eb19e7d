"""An app run twice, as two processes sharing one session store, by the scale-out tests.

Configuration comes from the environment. ``FW_TEST_REREAD_SECONDS`` shortens the account
re-read interval so a suspension made through one process reaches the other within a test.
"""

from __future__ import annotations

import os

import fw
from fw.auth import accounts

accounts.REREAD_INTERVAL = float(os.environ.get("FW_TEST_REREAD_SECONDS", "30"))

app = fw.App()


# Each app script runs alone in its own processes, so it declares its own routes.
@app.route("GET /me")
async def me(request: fw.Request) -> fw.Response:
    user = fw.auth.user(request)
    return fw.JSONResponse({"account_id": user.account_id if user else None, "pid": os.getpid()})


@app.route("POST /admin/suspend/{account_id}")
async def suspend(request: fw.Request) -> fw.Response:
    await accounts.set_account_active(request.path_params["account_id"], False)
    return fw.JSONResponse({"suspended": request.path_params["account_id"]})


if __name__ == "__main__":
    fw.run(app)
