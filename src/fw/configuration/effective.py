"""Values in effect: what the startup summary shows for a key a pillar decides at run time.

A key left unset usually means its declared default, but not always: ``server.docs`` unset is on
in ``dev`` and off elsewhere, so printing its declared ``false`` would contradict the ``/docs``
being served. The pillar that decides registers a hook here (the configuration layer knows no
pillar's rules), and the summary shows the hook's value and source. It is a display rule only:
:func:`fw.configuration.config` and :func:`fw.configuration.source_of` still return what was
loaded, so the pillar's own decision keeps reading the real source.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

#: ``hook(value, source, app_env)`` -> the value in effect and the source the summary shows.
EffectiveHook = Callable[[Any, str, str], tuple[Any, str]]

_hooks: dict[str, EffectiveHook] = {}


def register_effective(key: str, hook: EffectiveHook) -> None:
    """Let ``hook`` say what ``key`` is in effect (one hook per key; registering again replaces it)."""
    _hooks[key] = hook


def in_effect(
    values: Mapping[str, Any], sources: Mapping[str, str], app_env: str
) -> tuple[dict[str, Any], dict[str, str]]:
    """``values`` and ``sources`` with every hooked key replaced by what its hook reports."""
    shown_values, shown_sources = dict(values), dict(sources)
    for key, hook in _hooks.items():
        if key in values:
            shown_values[key], shown_sources[key] = hook(values[key], sources.get(key, "default"), app_env)
    return shown_values, shown_sources
