"""Configuration runtime (interim shim until the configuration pillar lands in this session)."""

from __future__ import annotations

from typing import Any, TypeVar

T = TypeVar("T")
_parsed = False


def parse_config(argv: list[str] | None = None) -> None:
    global _parsed
    _parsed = True


def ensure_parsed() -> None:
    if not _parsed:
        parse_config([])


def requested_template() -> str | None:
    return None


def config(cls: type[T], request: Any = None) -> T:
    from fw.settings import ServerSettings

    if cls is ServerSettings:
        return ServerSettings("127.0.0.1", 8000, 10 * 1024 * 1024, 1024 * 1024)  # type: ignore[return-value]
    raise LookupError(cls)


def print_summary_once() -> None:
    return None
