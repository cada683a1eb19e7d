"""An ASGI app for the multiprocess metrics test: routes behind the request observer with the
metrics hook, served by ``uvicorn --workers 2`` with ``PROMETHEUS_MULTIPROC_DIR`` set.

Each answer names the worker's process ID, so the test knows both workers served.
"""

from __future__ import annotations

import os

from starlette.requests import Request
from starlette.responses import JSONResponse

from fw.core.router import Router
from fw.core.routes import Route
from fw.core.serve import RequestPath
from fw.operations.metrics import Metrics
from fw.operations.observer import RequestObserver

metrics = Metrics()


async def hello(request: Request) -> JSONResponse:
    return JSONResponse({"pid": os.getpid(), "name": request.path_params["name"]})


routes = [Route("/hello/{name}", hello, methods=["GET"]), metrics.route()]
app = RequestObserver(RequestPath(Router(routes)), [metrics])


def make_fw_app() -> object:
    """The same route in an fw.App configured from the environment (``OBSERVABILITY_METRICS_ENABLED``):
    what ``fw run`` serves, its metrics hook and path installed by the App itself."""
    import fw

    application = fw.App()

    @application.route("GET /hello/{name}")
    async def hello(request: fw.Request) -> fw.Response:
        return fw.JSONResponse({"pid": os.getpid(), "name": request.path_params["name"]})

    return application


fw_app = make_fw_app()
