"""CBOR-enabled routes."""

from __future__ import annotations

import base64
from dataclasses import dataclass
from typing import Annotated

import fw

app = fw.App()


@dataclass
class Point:
    x: int
    y: int


@dataclass
class Shape:
    name: Annotated[str, fw.check("required")]
    blob: bytes
    points: list[Point]
    ratio: float


@app.route("POST /shapes")
async def shapes(request: fw.Request) -> fw.Response:
    shape = await fw.parse(Shape, request)
    return fw.JSONResponse(
        {
            "name": shape.name,
            "blob": base64.b64encode(shape.blob).decode(),
            "points": [[p.x, p.y] for p in shape.points],
            "ratio": shape.ratio,
        }
    )


@dataclass
class Node:
    label: str
    next: Node | None


@app.route("POST /nodes")
async def nodes(request: fw.Request) -> fw.Response:
    node = await fw.parse(Node, request)
    return fw.JSONResponse({"label": node.label})
