"""``--generate-config toml|env``: starting points written from the generated key tables.

TOML tables come ordered by prefix then type name, keys in declaration order, help (and a choice
key's values) as comments and defaults as values; the env template is sorted by variable name.
Write the env template to a committed example file (``.env.example``), never to a file fw reads.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Sequence
from datetime import timedelta

from fw.configuration.choices import describe
from fw.configuration.schema import Field, Loader, Value, listing_order
from fw.configuration.values import display


def _toml_value(value: Value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, timedelta):
        return json.dumps(display(value))
    if isinstance(value, list):
        return "[" + ", ".join(json.dumps(item) for item in value) + "]"
    return json.dumps(value, ensure_ascii=False)


def _toml_lines(spec: Field) -> list[str]:
    """``name = default``; a secret is never written into a file, so it comes commented out as a
    reference to the environment (uncommenting it is enough)."""
    if spec.secret in ("mask", "hide") and spec.kind == "str":
        variable = spec.env or spec.key.replace(".", "_").replace("-", "_").upper()
        return [f"# (a secret: set {variable} in the environment)", f'# {spec.name} = "${{{variable}}}"']
    return [f"{spec.name} = {_toml_value(spec.initial())}"]


def _described(spec: Field) -> str:
    """The help text, and for a choice key the values it accepts."""
    if not spec.choices:
        return spec.help
    allowed = f"one of: {describe(spec)}"
    return f"{spec.help} ({allowed})" if spec.help else allowed


def _comment(text: str, indent: str = "") -> list[str]:
    return [f"{indent}# {line}".rstrip() for line in text.splitlines()] if text else []


def toml_template(loaders: Sequence[Loader], skip: Collection[str] = ()) -> str:
    lines = ["# Configuration template written by --generate-config toml.", ""]
    for loader in listing_order(loaders):
        help_of = dict(loader.tables)
        grouped: dict[str, list[Field]] = {table: [] for table, _ in loader.tables}
        for spec in loader.fields:
            if spec.key in skip:
                continue
            grouped.setdefault(spec.table, []).append(spec)
        for table, fields in grouped.items():
            arrays = [array for array in loader.arrays if array.table == table]
            if not fields and not arrays:
                continue
            lines.extend(_comment(help_of.get(table, "")))
            lines.append(f"[{table}]")
            for spec in fields:
                lines.extend(_comment(_described(spec)))
                lines.extend(_toml_lines(spec))
            lines.append("")
            for array in arrays:
                lines.extend(_comment(array.help))
                lines.append(f"# [[{array.key}]]")
                for spec in array.fields:
                    lines.extend(_comment(_described(spec), "# "))
                    lines.append(f"# {spec.name} = {_toml_value(spec.initial())}")
                lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def env_template(loaders: Sequence[Loader], skip: Collection[str] = ()) -> str:
    entries: list[tuple[str, Field]] = []
    for loader in loaders:
        entries.extend(
            (spec.env, spec) for spec in loader.fields if spec.env is not None and spec.key not in skip
        )
    lines = ["# Environment template written by --generate-config env (commit it as .env.example)."]
    for name, spec in sorted(entries, key=lambda entry: entry[0]):
        lines.append("")
        text = _described(spec)
        lines.extend(_comment(f"{spec.key}: {text}" if text else spec.key))
        lines.append(f"{name}={display(spec.initial())}")
    return "\n".join(lines) + "\n"
