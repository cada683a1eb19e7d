"""The example application's configuration, under the ``hello`` prefix.

Every value can come from ``config.dev.toml``, ``HELLO_*`` environment variables or
``--hello-*`` options; ``python -m examples.hello.app --generate-config toml`` prints them all.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from typing import Annotated

import fw


@dataclass
class Mailer:
    """Outgoing mail."""

    #: Sender address of every message.
    from_address: Annotated[str, fw.default("noreply@example.com")]
    #: SMTP password (masked in the startup summary).
    password: str
    #: Send real mail only when true.
    enabled: Annotated[bool, fw.default("false")]
    #: SMTP host; shown only while the mailer is enabled.
    host: Annotated[str, fw.default("127.0.0.1"), fw.dependon(".enabled")]


@dataclass
class HelloConfig:
    """The hello service."""

    #: Word the index page greets with.
    greeting: Annotated[str, fw.default("Hello")]
    #: How long clients may cache the greeting.
    cache_for: Annotated[timedelta, fw.default("1m30s")]
    #: Names greeted on the index page.
    names: Annotated[list[str], fw.default("world")]
    mailer: Mailer
    #: Database of the example; credentials are masked, the rest stays readable.
    dsn: Annotated[str, fw.default("postgresql://hello@127.0.0.1:5432/hello")]


fw.register_config(HelloConfig, "hello")
