"""The ``[session]`` table: browser sessions on or off, where their records live, the cookie key.

Registered like any application's configuration, with its loader pre-generated into
``fw/_fw_config.py``; :mod:`fw.pillars` imports this module with the facade, so the table is
registered before anything parses. It imports nothing of the sessions' code.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from fw.configuration import register_config
from fw.markers import default, dependon, enum, secret


@dataclass
class SessionKeyring:
    #: Key that seals cookie sessions (32 bytes or more, base64url); required by the cookie backend.
    secret: Annotated[str, secret("mask")]


@dataclass
class SessionSettings:
    """Browser sessions."""

    #: Turn browser sessions on (required by the browser login modes).
    enabled: Annotated[bool, default("false")]
    # Declared with its default only (the generator requires the default among the declared
    # choices); the store registry (fw.auth.stores.registry, imported with this table by
    # fw.pillars) widens it with every engine keeping sessions, fw's own and any registered.
    #: Where session records live.
    backend: Annotated[str, enum("rdb"), default("rdb"), dependon("session.enabled")]
    #: Redis URL for the redis backend.
    redis_url: Annotated[str, default("redis://127.0.0.1:6379/0"), secret("dsn"), dependon("session.enabled")]
    keyring: Annotated[SessionKeyring, dependon("session.enabled")]


register_config(SessionSettings, "session")
