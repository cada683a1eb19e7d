"""An app whose pages load the presence script, for the end-to-end presence tests.

Configuration comes from the environment (``AUTH_ASSURANCE_PRESENCE_*`` with short test values).
"""

from __future__ import annotations

import fw

app = fw.App()

PAGE = """<!doctype html>
<html><head><title>presence</title>
<script src="/auth/logout/presence.js" defer></script></head>
<body><h1 id="secret">{who}</h1><p>Move the pointer or type to stay signed in.</p></body></html>
"""


@app.route("GET /")
async def home(request: fw.Request) -> fw.Response:
    return fw.HTMLResponse("<!doctype html><p id='home'>home</p>")


# Each app script runs alone in its own processes, so it declares its own routes.
@app.route("GET /me")
async def me(request: fw.Request) -> fw.Response:
    user = fw.auth.user(request)
    return fw.JSONResponse({"account_id": user.account_id if user else None})


@app.route("GET /private/page")
async def private(request: fw.Request) -> fw.Response:
    user = fw.auth.user(request)
    return fw.HTMLResponse(PAGE.format(who=user.display_name if user else ""))


if __name__ == "__main__":
    fw.run(app)
