"""The same order endpoint in four frameworks and by hand, for ``binding_bench.py``.

Each app answers ``POST /orgs/{org}/orders?dryRun=...`` with header ``X-Request-Id`` and a JSON
body of about ten fields (nested object, list of objects, map, enum, pattern, email, date) and
returns the same small JSON document. Run one with ``uvicorn benchmarks.binding_apps:<name>``.

Each framework also has an *unbound* twin (``fw_unbound_app``, ...): the same route answering the
same document without binding anything, so that the difference between the two is what binding
costs inside that framework.
"""

from __future__ import annotations

import datetime
import sys
import uuid
from pathlib import Path
from typing import Annotated, Literal

import msgspec
from pydantic import BaseModel, Field

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

EMAIL = r"^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+$"
CODE = r"^[A-Z]{3}-[0-9]{4}$"


def _answer(org: str, customer: str, items: int, priority: str) -> dict[str, object]:
    return {"org": org, "customer": customer, "items": items, "priority": priority}


# fw ---------------------------------------------------------------------------------------------
UNBOUND = _answer("acme", "Ada Lovelace", 2, "high")


def make_fw(bound: bool = True) -> object:
    import fw
    from examples.hello.members import Order

    app = fw.App()

    @app.route("POST /orgs/{org}/orders")
    async def place_order(request: fw.Request) -> fw.Response:
        if not bound:
            return fw.JSONResponse(UNBOUND)
        order = await fw.parse(Order, request)
        return fw.JSONResponse(_answer(order.org, order.customer, len(order.items), order.priority))

    return app


# pydantic / FastAPI -----------------------------------------------------------------------------
class AddressModel(BaseModel):
    street: Annotated[str, Field(min_length=1, max_length=100)]
    city: Annotated[str, Field(min_length=1)]
    zip: Annotated[str, Field(pattern=r"^[0-9]{5}$")]


class ItemModel(BaseModel):
    sku: Annotated[str, Field(min_length=8, max_length=8)]
    qty: Annotated[int, Field(ge=1, le=1000)] = 1


class OrderModel(BaseModel):
    customer: Annotated[str, Field(min_length=2, max_length=64)]
    email: Annotated[str, Field(pattern=EMAIL)]
    priority: Literal["low", "normal", "high"] = "normal"
    code: Annotated[str, Field(pattern=CODE)]
    deliverOn: datetime.date
    quantity: Annotated[int, Field(ge=1, le=100)] = 0
    discount: Annotated[float, Field(ge=0, le=0.5)] = 0.0
    gift: bool = False
    address: AddressModel
    items: Annotated[list[ItemModel], Field(min_length=1)]
    labels: dict[str, str] = {}


class ParamsModel(BaseModel):
    org: str
    dryRun: bool = False
    request_id: uuid.UUID


def make_fastapi(bound: bool = True) -> object:
    from fastapi import FastAPI, Header

    app = FastAPI(openapi_url=None, docs_url=None, redoc_url=None)

    if not bound:

        @app.post("/orgs/{org}/orders")
        async def place_order_unbound() -> dict[str, object]:
            return UNBOUND

        return app

    @app.post("/orgs/{org}/orders")
    async def place_order(
        org: str, order: OrderModel, dryRun: bool = False, x_request_id: uuid.UUID = Header()
    ) -> dict[str, object]:
        return _answer(org, order.customer, len(order.items), order.priority)

    return app


# msgspec / Litestar -----------------------------------------------------------------------------
class AddressStruct(msgspec.Struct):
    street: Annotated[str, msgspec.Meta(min_length=1, max_length=100)]
    city: Annotated[str, msgspec.Meta(min_length=1)]
    zip: Annotated[str, msgspec.Meta(pattern=r"^[0-9]{5}$")]


class ItemStruct(msgspec.Struct):
    sku: Annotated[str, msgspec.Meta(min_length=8, max_length=8)]
    qty: Annotated[int, msgspec.Meta(ge=1, le=1000)] = 1


class OrderStruct(msgspec.Struct):
    customer: Annotated[str, msgspec.Meta(min_length=2, max_length=64)]
    email: Annotated[str, msgspec.Meta(pattern=EMAIL)]
    code: Annotated[str, msgspec.Meta(pattern=CODE)]
    deliverOn: datetime.date
    address: AddressStruct
    items: Annotated[list[ItemStruct], msgspec.Meta(min_length=1)]
    priority: Literal["low", "normal", "high"] = "normal"
    quantity: Annotated[int, msgspec.Meta(ge=1, le=100)] = 1
    discount: Annotated[float, msgspec.Meta(ge=0, le=0.5)] = 0.0
    gift: bool = False
    labels: dict[str, str] = {}


class ParamsStruct(msgspec.Struct):
    org: str
    request_id: uuid.UUID
    dryRun: bool = False


def make_litestar(bound: bool = True) -> object:
    from litestar import Litestar, post
    from litestar.params import Parameter

    if not bound:

        @post("/orgs/{org:str}/orders", status_code=200)
        async def place_order_unbound() -> dict[str, object]:
            return UNBOUND

        return Litestar([place_order_unbound], openapi_config=None)

    @post("/orgs/{org:str}/orders", status_code=200)
    async def place_order(
        org: str,
        data: OrderStruct,
        request_id: Annotated[uuid.UUID, Parameter(header="X-Request-Id")],
        dryRun: bool = False,
    ) -> dict[str, object]:
        return _answer(org, data.customer, len(data.items), data.priority)

    return Litestar([place_order], openapi_config=None)


# raw Starlette: the floor -----------------------------------------------------------------------
def make_starlette() -> object:
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    async def place_order(request: Request) -> JSONResponse:
        body = await request.json()
        request.query_params.get("dryRun")
        request.headers.get("x-request-id")
        return JSONResponse(
            _answer(
                request.path_params["org"], body["customer"], len(body["items"]), body.get("priority", "")
            )
        )

    return Starlette(routes=[Route("/orgs/{org}/orders", place_order, methods=["POST"])])


# Starlette + msgspec, written by hand: what a team validating without a framework writes ----------
def make_starlette_msgspec() -> object:
    """A Starlette handler decoding the body into msgspec structs and converting the query string,
    the header and the path parameter: the same checks as fw's ``Order`` and a 400 naming the
    first bad field (msgspec stops at the first; fw's problem names every one)."""
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    decoder = msgspec.json.Decoder(OrderStruct)

    async def place_order(request: Request) -> JSONResponse:
        if request.headers.get("content-type") != "application/json":
            return JSONResponse({"detail": "expected application/json"}, status_code=415)
        try:
            params = msgspec.convert(
                {
                    "org": request.path_params["org"],
                    "request_id": request.headers.get("x-request-id"),
                    "dryRun": request.query_params.get("dryRun", "false"),
                },
                ParamsStruct,
                strict=False,
            )
            order = decoder.decode(await request.body())
        except msgspec.ValidationError as error:
            return JSONResponse({"detail": str(error)}, status_code=400)
        return JSONResponse(_answer(params.org, order.customer, len(order.items), order.priority))

    return Starlette(routes=[Route("/orgs/{org}/orders", place_order, methods=["POST"])])


def __getattr__(name: str) -> object:
    makers = {"fw": make_fw, "fastapi": make_fastapi, "litestar": make_litestar}
    if name == "starlette_app":
        return make_starlette()
    if name == "starlette_msgspec_app":
        return make_starlette_msgspec()
    framework, _, kind = name.partition("_")
    if framework in makers and kind in ("app", "unbound_app"):
        return makers[framework](bound=kind == "app")
    raise AttributeError(name)
