"""How secret values are shown: masked, a DSN reduced to what locates the database, or not at all.

Decided by the generated key table (explicit ``secret`` markers, else the key-word
auto-detection), so the summary, ``fw doctor``, the advisories and any log agree on what is
shown. :func:`redact` is the last line of defence for messages built from configuration values.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any
from urllib.parse import unquote, urlsplit

from fw.configuration.schema import Loader, SecretShow, Value
from fw.configuration.values import display

MASK = "*****"


def mask_dsn(text: str) -> str:
    """Keep scheme, host, port and database path; user information becomes asterisks; no query."""
    if text == "":
        return ""
    try:
        parts = urlsplit(text)
        port = parts.port
    except ValueError:
        return MASK
    if not parts.scheme or "://" not in text:
        return MASK
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    netloc = host if port is None else f"{host}:{port}"
    if parts.username is not None or parts.password is not None:
        netloc = f"{MASK}@{netloc}"
    return f"{parts.scheme}://{netloc}{parts.path}"


def shown(value: Value, mode: SecretShow) -> tuple[str, Any] | None:
    """The text and JSON form of a value under a secret mode; ``None`` when it is hidden."""
    if mode == "hide":
        return None
    text = display(value)
    if mode == "mask":
        masked = MASK if text else ""
        return masked, masked
    if mode == "dsn":
        masked = mask_dsn(text)
        return masked, masked
    return text, _json(value)


def _json(value: Value) -> Any:
    if isinstance(value, (bool, int, str, list)):
        return value
    return display(value)


def secret_texts(loaders: Sequence[Loader], values: Mapping[str, Any]) -> list[str]:
    """Every non-empty secret value as text, longest first; of a DSN, what its masked form drops
    (the password and the query), not the parts the summary shows anyway."""
    found: set[str] = set()

    def add(value: Any, mode: SecretShow) -> None:
        if mode in ("", "show"):
            return
        for text in value if isinstance(value, list) else [value]:
            text = display(text) if not isinstance(text, str) else text
            if not text:
                continue
            if mode != "dsn":
                found.add(text)
                continue
            if mask_dsn(text) != text:
                found.add(text)
            try:
                parts = urlsplit(text)
                hidden = [parts.password, parts.query]
            except ValueError:
                continue
            found.update(part for part in hidden if part)
            found.update(unquote(part) for part in hidden if part)

    for loader in loaders:
        for spec in loader.fields:
            if spec.key in values:
                add(values[spec.key], spec.secret)
        for array in loader.arrays:
            for element in values.get(array.key, []):
                for spec in array.fields:
                    if spec.key in element:
                        add(element[spec.key], array.secret or spec.secret)
    return sorted(found, key=len, reverse=True)


def hidden_keys(loaders: Iterable[Loader]) -> list[str]:
    """The keys marked ``secret("hide")``, longest first: their very names stay out of every output."""
    keys = {spec.key for loader in loaders for spec in loader.fields if spec.secret == "hide"}
    keys.update(array.key for loader in loaders for array in loader.arrays if array.secret == "hide")
    return sorted(keys, key=len, reverse=True)


def hide_names(text: str, keys: Sequence[str]) -> str:
    """``text`` with each of ``keys`` (whole key names only) replaced by ``(a hidden setting)``."""
    for key in keys:
        text = re.sub(rf"(?<![\w.-]){re.escape(key)}(?![\w-])", "(a hidden setting)", text)
    return text


def redact(text: str, secrets: Sequence[str]) -> str:
    """``text`` with every secret value replaced by the mask (the last line of defence for messages
    built from configuration values)."""
    for secret in secrets:
        text = text.replace(secret, MASK)
    return text
