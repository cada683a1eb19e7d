"""The startup summary: every value with the source that won, secrets masked, dependents filtered,
and the configuration advisories at their level (an ``error`` advisory makes the record an error).

Masking is decided by the generated key table (:mod:`fw.configuration.masking`), so the summary,
``fw doctor`` and any log agree on what is shown; a key marked ``secret("hide")`` is left out.
Keys under a subtree a pillar reports inactive (:mod:`fw.configuration.activity`) are left out.
"""

from __future__ import annotations

import json
import sys
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TextIO

from fw.configuration.activity import is_inactive
from fw.configuration.advisory import Advisory
from fw.configuration.masking import shown
from fw.configuration.schema import Field, Loader, listing_order
from fw.configuration.values import is_off


@dataclass(frozen=True, slots=True)
class Item:
    key: str
    value: str
    source: str
    json_value: Any


def is_key_off(
    key: str, fields: Mapping[str, Field], values: Mapping[str, Any], seen: frozenset[str]
) -> bool:
    """Off: unknown, empty, false, the falsy value, or itself filtered by its own ``dependon``."""
    spec = fields.get(key)
    if spec is None or key not in values or key in seen:
        return True
    if is_off(values[key], spec.falsy):
        return True
    return any(is_key_off(parent, fields, values, seen | {key}) for parent in spec.dependon)


def items(
    loaders: Sequence[Loader],
    values: Mapping[str, Any],
    sources: Mapping[str, str],
    inactive: frozenset[str] = frozenset(),
) -> list[Item]:
    fields = {spec.key: spec for loader in loaders for spec in loader.fields}
    out: list[Item] = []
    for loader in listing_order(loaders):
        for spec in loader.fields:
            if spec.key not in values or is_inactive(spec.key, inactive):
                continue
            if any(is_key_off(parent, fields, values, frozenset({spec.key})) for parent in spec.dependon):
                continue
            form = shown(values[spec.key], spec.secret)
            if form is not None:
                out.append(Item(spec.key, form[0], sources.get(spec.key, "default"), form[1]))
        for array in loader.arrays:
            if is_inactive(array.key, inactive):
                continue
            if any(is_key_off(parent, fields, values, frozenset({array.key})) for parent in array.dependon):
                continue
            for index, element in enumerate(values.get(array.key, [])):
                for spec in array.fields:
                    key = f"{array.key}[{index}].{spec.key}"
                    form = shown(element[spec.key], array.secret or spec.secret)
                    if form is not None:
                        out.append(Item(key, form[0], sources.get(key, "default"), form[1]))
    return out


def record_level(advisories: Sequence[Advisory]) -> str:
    """``error`` when any advisory is an error, ``warning`` when any is a warning, else ``info``."""
    levels = {advisory.level for advisory in advisories}
    return "error" if "error" in levels else "warning" if "warning" in levels else "info"


def write_json(
    summary: Sequence[Item],
    app_env: str,
    config_file: str | None,
    out: TextIO,
    advisories: Sequence[Advisory] = (),
) -> None:
    record: dict[str, Any] = {
        "level": record_level(advisories),
        "logger": "fw.config",
        "msg": "configuration",
        "app_env": app_env,
        "config_file": config_file,
        "values": {item.key: {"value": item.json_value, "source": item.source} for item in summary},
    }
    if advisories:
        record["advisories"] = [
            {"level": advisory.level, "key": advisory.key, "msg": advisory.msg} for advisory in advisories
        ]
    out.write(json.dumps(record, separators=(",", ":")) + "\n")
    out.flush()


# The same parameters as write_json on purpose: write (below) picks one of the two writers.
def write_tree(
    summary: Sequence[Item],
    app_env: str,
    config_file: str | None,
    out: TextIO,
    advisories: Sequence[Advisory] = (),
) -> None:
    from rich.console import Console
    from rich.tree import Tree

    file = _safe(config_file or "none")
    root = Tree(f"[bold]configuration[/bold] (APP_ENV={_safe(app_env)}, file={file})")
    branches: dict[str, Tree] = {}
    for item in summary:
        table, _, name = item.key.rpartition(".")
        parent = root
        path = ""
        for part in table.split(".") if table else []:
            path = f"{path}.{part}" if path else part
            if path not in branches:
                branches[path] = parent.add(f"[bold]{_safe(part)}[/bold]")
            parent = branches[path]
        value = item.value if item.value != "" else '""'  # an empty value still reads as one
        parent.add(f"{_safe(name)} = {_safe(value)}  [dim]{_safe(item.source)}[/dim]")
    console = Console(file=out, soft_wrap=True)
    console.print(root)
    for advisory in advisories:
        style = {"error": "bold red", "warning": "yellow"}.get(advisory.level, "cyan")
        console.print(f"[{style}]{advisory.level}:[/{style}] {_safe(advisory.msg)}", highlight=False)


def _safe(text: str) -> str:
    """Rich markup escaped, and control or format characters (ANSI escapes, bidi overrides) shown
    as escapes, so a value can never restyle or reorder what the terminal displays."""
    from rich.markup import escape

    shown = "".join(
        char.encode("unicode_escape").decode() if unicodedata.category(char) in ("Cc", "Cf") else char
        for char in text
    )
    return escape(shown)


def write(
    summary: Sequence[Item],
    app_env: str,
    config_file: str | None,
    out: TextIO | None = None,
    advisories: Sequence[Advisory] = (),
) -> None:
    """A Rich tree on a terminal, one JSON log line otherwise (containers, pipes, files)."""
    stream = out or sys.stdout
    if stream.isatty():
        write_tree(summary, app_env, config_file, stream, advisories)
    else:
        write_json(summary, app_env, config_file, stream, advisories)
