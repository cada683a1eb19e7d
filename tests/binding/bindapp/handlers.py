"""Routes binding each fixture dataclass and echoing the result as JSON."""

from __future__ import annotations

import base64
import dataclasses
from typing import Any

import fw

from .models import (
    Defaults,
    EnumOnly,
    Greeting,
    Lists,
    Nested,
    Plain,
    Profile,
    RawRest,
    Rest,
    Rules,
    Scalars,
    Sources,
    Tree,
    Upload,
    Wide,
)

app = fw.App()


def echo(value: Any) -> Any:
    if isinstance(value, fw.File):
        return {"filename": value.filename, "contentType": value.content_type, "size": value.size,
                "content": value.content.decode("latin-1")}  # fmt: skip
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: echo(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, bytes):
        return base64.b64encode(value).decode()
    if isinstance(value, list):
        return [echo(item) for item in value]
    if isinstance(value, dict):
        return {key: echo(item) for key, item in value.items()}
    return value


@app.route("POST /sources/{id}")
async def sources(request: fw.Request) -> fw.Response:
    return fw.JSONResponse(echo(await fw.parse(Sources, request)))


@app.route("POST /scalars")
async def scalars(request: fw.Request) -> fw.Response:
    return fw.JSONResponse(echo(await fw.parse(Scalars, request)))


@app.route("POST /lists")
async def lists(request: fw.Request) -> fw.Response:
    return fw.JSONResponse(echo(await fw.parse(Lists, request)))


@app.route("POST /nested")
async def nested(request: fw.Request) -> fw.Response:
    return fw.JSONResponse(echo(await fw.parse(Nested, request)))


@app.route("POST /upload")
async def upload(request: fw.Request) -> fw.Response:
    return fw.JSONResponse(echo(await fw.parse(Upload, request)))


@app.route("POST /rest")
async def rest(request: fw.Request) -> fw.Response:
    return fw.JSONResponse(echo(await fw.parse(Rest, request)))


@app.route("POST /raw-rest")
async def raw_rest(request: fw.Request) -> fw.Response:
    bound = await fw.parse(RawRest, request)
    return fw.JSONResponse({"name": bound.name, "extra": dict(bound.extra),
                            "types": sorted({type(v).__name__ for v in bound.extra.values()})})  # fmt: skip


@app.route("POST /rules")
async def rules(request: fw.Request) -> fw.Response:
    return fw.JSONResponse(echo(await fw.parse(Rules, request)))


@app.route("POST /defaults")
async def defaults(request: fw.Request) -> fw.Response:
    return fw.JSONResponse(echo(await fw.parse(Defaults, request)))


@app.route("GET /colour")
async def colour(request: fw.Request) -> fw.Response:
    return fw.JSONResponse(echo(await fw.parse(EnumOnly, request)))


@app.route("GET /plain")
async def plain(request: fw.Request) -> fw.Response:
    return fw.JSONResponse(echo(await fw.parse(Plain, request)))


@app.route("POST /tree")
async def tree(request: fw.Request) -> fw.Response:
    return fw.JSONResponse(echo(await fw.parse(Tree, request)))


@app.route("PUT /profiles/{user}")
async def profile(request: fw.Request) -> fw.Response:
    return fw.JSONResponse(echo(await fw.parse(Profile, request)))


@app.route("GET /orgs/{org}/greeting")
async def greeting(request: fw.Request) -> fw.Response:
    return fw.JSONResponse(echo(await fw.parse(Greeting, request)))


@app.route("/anything/{rest...}")
async def anything(request: fw.Request) -> fw.Response:
    return fw.JSONResponse(echo(await fw.parse(EnumOnly, request)))


@app.route("POST /wide")
async def wide(request: fw.Request) -> fw.Response:
    return fw.JSONResponse(echo(await fw.parse(Wide, request)))


@app.route("GET /untyped")
async def untyped(request: fw.Request) -> fw.Response:
    return fw.JSONResponse({"ok": True})


@app.route("DELETE /untyped/{item}/notes/{rest...}")
async def untyped_with_wildcards(request: fw.Request) -> fw.Response:
    return fw.Response(status_code=204)


async def generic(cls: type[Any], request: fw.Request) -> Any:
    """A generic wrapper: the generator cannot know ``cls``, so no binder exists for it."""
    return await fw.parse(cls, request)
