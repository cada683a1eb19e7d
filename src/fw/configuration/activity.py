"""Which key subtrees the resolved configuration leaves inactive: a display filter pillars extend.

``dependon`` hides a key while another key is off; it cannot say "shown only while auth.mode is
oidc_only". A pillar that owns such a rule registers a hook here, and the startup summary leaves
out every key under a subtree a hook names. It is a display filter only: the values are still
loaded and bound, the templates still list every key, and behaviour does not change.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

#: Given the resolved values (key -> value), the key prefixes (``"auth.oauth"``) not in use.
InactiveHook = Callable[[Mapping[str, Any]], Iterable[str]]

_hooks: list[InactiveHook] = []


def register_inactive_hook(hook: InactiveHook) -> InactiveHook:
    """Add ``hook`` (once; registering the same callable again is a no-op). Usable as a decorator."""
    if hook not in _hooks:
        _hooks.append(hook)
    return hook


def inactive_subtrees(values: Mapping[str, Any]) -> frozenset[str]:
    """Every prefix some registered hook reports inactive for these values."""
    return frozenset(prefix for hook in _hooks for prefix in hook(values) if prefix)


def is_inactive(key: str, subtrees: frozenset[str]) -> bool:
    """``key`` is one of ``subtrees`` or lies under one (``auth.oauth`` covers ``auth.oauth.claim.path``)."""
    if not subtrees:
        return False
    parts = key.split(".")
    return any(".".join(parts[:end]) in subtrees for end in range(1, len(parts) + 1))
