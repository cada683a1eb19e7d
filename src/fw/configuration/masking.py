"""How secret values are shown: masked, a URL reduced to what locates the service, or not at all.

Decided by the generated key table (explicit ``secret`` markers, else the key-word
auto-detection), so the summary, ``fw doctor``, the advisories and any log agree on what is
shown. A key with no marker that detection left alone is still judged by its value: a URL
carrying user information (``redis://default:PASSWORD@host``) is shown like a DSN, whatever the
key is called (:mod:`fw.userinfo`). :func:`redact` is the last line of defence for messages built
from configuration values.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from fw.configuration.schema import Loader, SecretShow, Value
from fw.configuration.values import display
from fw.userinfo import MASK, has_userinfo, hidden_parts, mask_userinfo

__all__ = [
    "MASK",
    "effective_mode",
    "hidden_keys",
    "hide_names",
    "mask_dsn",
    "redact",
    "secret_texts",
    "shown",
]


def mask_dsn(text: str) -> str:
    """Keep scheme, host, port and database path; user information becomes asterisks; no query."""
    return mask_userinfo(text)


def effective_mode(value: Any, mode: SecretShow) -> SecretShow:
    """``mode``, except that an unmarked, undetected value carrying a URL with user information
    (itself, or an element of a list) is shown as a DSN. An explicit marker always wins."""
    if mode != "":
        return mode
    texts = value if isinstance(value, list) else [value]
    return "dsn" if any(isinstance(text, str) and has_userinfo(text) for text in texts) else mode


def shown(value: Value, mode: SecretShow) -> tuple[str, Any] | None:
    """The text and JSON form of a value under a secret mode; ``None`` when it is hidden."""
    if mode == "hide":
        return None
    effective = effective_mode(value, mode)
    if effective == "dsn" and isinstance(value, list):
        elements = [mask_dsn(text) if mode == "dsn" or has_userinfo(text) else text for text in value]
        return ",".join(elements), elements
    text = display(value)
    if effective == "mask":
        masked = MASK if text else ""
        return masked, masked
    if effective == "dsn":
        masked = mask_dsn(text)
        return masked, masked
    return text, _json(value)


def _json(value: Value) -> Any:
    if isinstance(value, (bool, int, str, list)):
        return value
    return display(value)


def secret_texts(loaders: Sequence[Loader], values: Mapping[str, Any]) -> list[str]:
    """Every non-empty secret value as text, longest first; of a URL shown as a DSN, what its
    masked form drops (the password and the query), not the parts the summary shows anyway."""
    found: set[str] = set()

    def add(value: Any, declared: SecretShow) -> None:
        mode = effective_mode(value, declared)
        if mode in ("", "show"):
            return
        for text in value if isinstance(value, list) else [value]:
            text = display(text) if not isinstance(text, str) else text
            if not text:
                continue
            if mode != "dsn":
                found.add(text)
                continue
            if declared == "" and not has_userinfo(text):
                continue  # a plain element beside a URL with credentials: nothing to hide
            if mask_dsn(text) != text:
                found.add(text)
            found.update(hidden_parts(text))

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
