"""Request binding demo: one dataclass per request, bound and validated by generated code.

``fw generate`` reads the ``fw.parse`` calls below and writes ``_fw_binders.py`` next to this
file; ``register(app)`` adds the routes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any

import fw


@dataclass
class Address:
    """A postal address."""

    #: Street and number.
    street: Annotated[str, fw.check("required,maxlen=100")]
    city: Annotated[str, fw.check("required")]
    #: Five-digit postal code.
    zip: Annotated[str, fw.check("required,pattern=^[0-9]{5}$")]


@dataclass
class Item:
    sku: Annotated[str, fw.check("required,len=8")]
    qty: Annotated[int, fw.check("min=1,max=1000"), fw.default("1")]


@dataclass
class AddMember:
    """Add a member to an organization.

    The member is created in the organization named by the path.
    """

    org: Annotated[str, fw.path("org")]
    notify: Annotated[bool, fw.query("notify")]
    request_id: Annotated[str, fw.header("X-Request-Id"), fw.check("required")]
    #: Display name of the member.
    name: Annotated[str, fw.check("required,minlen=3,maxlen=64")]
    email: Annotated[str, fw.check("required,email")]
    role: Annotated[str, fw.enum("admin,member,guest"), fw.default("member")]
    tags: Annotated[list[str], fw.query("tag")]
    address: Address | None
    verb: Annotated[str, fw.method()]
    rest: Annotated[dict[str, Any], fw.payload("*")]


@dataclass
class UploadAvatar:
    """Upload an avatar picture for a member."""

    member: Annotated[str, fw.path("member")]
    avatar: Annotated[fw.File | None, fw.payload("avatar"), fw.check("required")]
    caption: Annotated[str, fw.check("maxlen=200")]


# Alike in shape to AddMember only: each is the whole request of its own route.
@dataclass
class Order:
    """Place an order (the binding benchmark's request shape)."""

    org: Annotated[str, fw.path("org")]
    dry_run: Annotated[bool, fw.query("dryRun")]
    request_id: Annotated[str, fw.header("X-Request-Id"), fw.check("required,uuid")]
    customer: Annotated[str, fw.check("required,minlen=2,maxlen=64")]
    email: Annotated[str, fw.check("required,email")]
    priority: Annotated[str, fw.enum("low,normal,high"), fw.default("normal")]
    code: Annotated[str, fw.check("required,pattern=^[A-Z]{3}-[0-9]{4}$")]
    deliver_on: Annotated[str, fw.check("required,date")]
    quantity: Annotated[int, fw.check("min=1,max=100")]
    discount: Annotated[float, fw.check("min=0,max=0.5")]
    gift: bool
    address: Address
    items: Annotated[list[Item], fw.check("required")]
    labels: dict[str, str]


@dataclass
class Search:
    """Search members.

    Deprecated: use the members listing with filters instead.
    """

    q: Annotated[str, fw.query("q"), fw.check("required,maxlen=50")]
    page: Annotated[int, fw.query("page"), fw.check("min=1"), fw.default("1")]
    limit: Annotated[int, fw.query("limit"), fw.check("min=1,max=100"), fw.default("-1")]


def register(app: fw.App) -> None:
    """Add the binding demo routes to ``app``."""

    @app.route("POST /orgs/{org}/members")
    async def add_member(request: fw.Request) -> fw.Response:
        member = await fw.parse(AddMember, request)
        return fw.JSONResponse(
            {
                "org": member.org,
                "name": member.name,
                "email": member.email,
                "role": member.role,
                "tags": member.tags,
                "notify": member.notify,
                "city": member.address.city if member.address else None,
                "verb": member.verb,
                "extra": sorted(member.rest),
            }
        )

    @app.route("POST /members/{member}/avatar")
    async def upload_avatar(request: fw.Request) -> fw.Response:
        upload = await fw.parse(UploadAvatar, request)
        avatar = upload.avatar
        return fw.JSONResponse(
            {"member": upload.member, "size": avatar.size if avatar else 0, "caption": upload.caption}
        )

    @app.route("POST /orgs/{org}/orders")
    async def place_order(request: fw.Request) -> fw.Response:
        order = await fw.parse(Order, request)
        return fw.JSONResponse(
            {
                "org": order.org,
                "customer": order.customer,
                "items": len(order.items),
                "priority": order.priority,
            }
        )

    @app.route("GET /members/search")
    async def search(request: fw.Request) -> fw.Response:
        query = await fw.parse(Search, request)
        return fw.JSONResponse({"q": query.q, "page": query.page, "limit": query.limit})
