"""Dataclasses exercising every source, type and rule fw binds."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Annotated, Any, ClassVar

import fw


@dataclass
class Sources:
    """Every source a field can name."""

    name: str
    q_only: Annotated[str, fw.query()]
    p_only: Annotated[str, fw.payload()]
    id: Annotated[int, fw.path("id")]
    token: Annotated[str, fw.header("X-Token")]
    session: Annotated[str, fw.cookie("sid")]
    verb: Annotated[str, fw.method()]
    first_name: str
    renamed: Annotated[str, fw.input("alias")]
    internal: str = field(default="server", init=False)
    KIND: ClassVar[str] = "sources"


@dataclass
class Scalars:
    text: str
    count: int
    ratio: float
    flag: bool
    blob: bytes
    maybe: int | None
    note: str | None
    capped: Annotated[int, fw.query("cap"), fw.check("max=5")] | None
    q_blob: Annotated[bytes, fw.query("qb")]
    h_blob: Annotated[bytes, fw.header("X-Blob")]


@dataclass
class Lists:
    tags: Annotated[list[str], fw.query("tag")]
    nums: Annotated[list[int], fw.query("n")]
    brackets: Annotated[list[str], fw.query("tag[]")]
    body_tags: list[str]
    maybe_tags: Annotated[list[str] | None, fw.query("mt")]


@dataclass
class Line:
    sku: Annotated[str, fw.check("required")]
    qty: Annotated[int, fw.check("min=1")]


@dataclass
class Nested:
    lines: list[Line]
    by_name: dict[str, Line]
    matrix: list[list[int]]
    counts: dict[str, int]
    inner: Line | None
    deep: dict[str, list[Line]]
    head: Line


@dataclass
class Upload:
    doc: Annotated[fw.File | None, fw.payload("doc")]
    title: str
    raw: bytes


@dataclass
class Rest:
    name: str
    count: Annotated[int, fw.payload("n")]
    extra: Annotated[dict[str, Any], fw.payload("*")]


@dataclass
class RawRest:
    name: str
    extra: Annotated[dict[str, fw.RawJSON], fw.payload("*")]


@dataclass
class Rules:
    req: Annotated[str, fw.check("required")]
    req_int: Annotated[int, fw.check("required")]
    low: Annotated[int, fw.check("min=1")]
    high: Annotated[float, fw.check("max=2.5")]
    short: Annotated[str, fw.check("minlen=3")]
    long: Annotated[str, fw.check("maxlen=5")]
    exact: Annotated[str, fw.check("len=4")]
    code: Annotated[str, fw.check("pattern=^[a-z]+,[0-9]+$")]
    email: Annotated[str, fw.check("email")]
    uid: Annotated[str, fw.check("uuid")]
    day: Annotated[str, fw.check("date")]
    clock: Annotated[str, fw.check("time")]
    stamp: Annotated[str, fw.check("datetime")]
    req_email: Annotated[str, fw.check("required,email")]
    req_list: Annotated[list[str], fw.check("required")]
    req_header: Annotated[str, fw.header("X-Need"), fw.check("required")]


@dataclass
class Defaults:
    role: Annotated[str, fw.enum("admin, member ,guest"), fw.default("member")]
    level: Annotated[int, fw.check("min=1"), fw.default("-1")]
    empty: Annotated[str, fw.default("")]
    spaced: Annotated[str, fw.default("  padded ")]
    on: Annotated[bool, fw.default("true")]
    ratio: Annotated[float, fw.default("0.25")]
    outside: Annotated[str, fw.enum("a,b"), fw.default("z")]
    num: Annotated[int, fw.enum("1,2,3")]
    maybe: Annotated[int | None, fw.default("7")]


@dataclass
class EnumOnly:
    """Pick a colour."""

    colour: Annotated[str, fw.query("colour"), fw.enum("red,green")]


@dataclass
class Plain:
    """Nothing to validate.

    Deprecated: kept for old clients.
    """

    #: The greeting text.
    text: Annotated[str, fw.query("text")]
    loud: Annotated[bool, fw.query("loud")]  #: Shout it.
    count: Annotated[int, fw.query("count")]
    """How many times."""


@dataclass
class Tree:
    label: str
    child: Tree | None


@dataclass
class Profile:
    """A profile update (used by the OpenAPI and schemathesis tests)."""

    user: Annotated[str, fw.path("user")]
    #: Shown to other members.
    nickname: Annotated[str, fw.check("required,minlen=2,maxlen=20")]
    age: Annotated[int, fw.check("min=0,max=150")]
    score: Annotated[float, fw.check("min=0,max=1")]
    langs: Annotated[list[str], fw.check("required")]
    home: Line | None
    visibility: Annotated[str, fw.enum("public,private"), fw.default("public")]
    trace: Annotated[str, fw.header("X-Trace"), fw.check("maxlen=40")]


@dataclass
class Greeting:
    """Say hello; nothing here can be rejected."""

    name: Annotated[str, fw.query("name")]
    org: Annotated[str, fw.path("org")]


# Declarations alike in shape only: each is the request one group of tests binds.
@dataclass
class Wide:
    """Every rule and type the fast JSON path checks itself, in one body."""

    name: Annotated[str, fw.check("required,minlen=2,maxlen=8")]
    code: Annotated[str, fw.check("pattern=^[a-z]+[0-9]$")]
    exact: Annotated[str, fw.check("len=3")]
    email: Annotated[str, fw.check("email")]
    day: Annotated[str, fw.check("required,date")]
    count: Annotated[int, fw.check("min=-5,max=5")]
    big: int
    ratio: Annotated[float, fw.check("min=-1.5,max=2.5")]
    free: float
    flag: bool
    level: Annotated[str, fw.enum("low,high"), fw.default("low")]
    limit: Annotated[int, fw.check("min=1"), fw.default("-1")]
    maybe: int | None
    note: str | None
    tags: Annotated[list[str], fw.check("required")]
    nums: list[int]
    scores: dict[str, float]
    head: Line
    lines: list[Line]
    by_name: dict[str, Line]
    opt_line: Line | None
    grid: list[list[int]]
