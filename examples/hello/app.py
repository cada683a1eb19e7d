"""The example application: configuration, routes, request binding and the startup summary.

Run it with ``python -m examples.hello.app`` (add ``--help``-style options such as
``--hello-greeting Hi`` or ``--generate-config toml``).
"""

from __future__ import annotations

import fw
from examples.hello import members
from examples.hello.settings import HelloConfig

app = fw.App()
members.register(app)


@app.route("GET /")
async def index(request: fw.Request) -> fw.Response:
    settings = fw.config(HelloConfig, request)
    return fw.JSONResponse(
        {
            "service": "hello",
            "greeting": f"{settings.greeting}, {' and '.join(settings.names)}!",
            "cache_for_seconds": settings.cache_for.total_seconds(),
        }
    )


if __name__ == "__main__":
    fw.run(app)
