"""``--help``: every option with its help text, choices, default and environment variable.

The help text is the field's doc comment (or ``fw.help``), so the same sentence reaches the
templates, this listing and the generated loader. Printing it exits 0, like the templates.
"""

from __future__ import annotations

import sys
from collections.abc import Collection, Mapping, Sequence
from pathlib import Path

from fw.configuration.choices import describe
from fw.configuration.masking import mask_dsn
from fw.configuration.schema import Command, Field, Loader, listing_order
from fw.configuration.values import display


def _program() -> str:
    main = sys.modules.get("__main__")
    spec = getattr(main, "__spec__", None)
    if spec is not None and spec.name:
        return f"python -m {spec.name.removesuffix('.__main__')}"
    return Path(sys.argv[0]).name if sys.argv and sys.argv[0] else "app"


_PLACEHOLDER = {"bool": "", "str": " TEXT", "int": " INT", "duration": " DURATION", "list": " TEXT"}


def _option(spec: Field) -> str:
    return ", ".join(spec.opts) + _PLACEHOLDER[spec.kind]


def _details(spec: Field) -> str:
    notes = [f"one of: {describe(spec)}"] if spec.choices else []
    default = display(spec.initial())
    if spec.secret == "dsn":
        default = mask_dsn(default)
    if spec.secret not in ("mask", "hide") and default not in ("", "false"):
        notes.append(f"default {default}")
    if spec.kind == "list":
        notes.append("repeatable")
    if spec.env is not None:
        notes.append(f"env {spec.env}")
    text = spec.help or spec.key
    return f"{text} ({'; '.join(notes)})" if notes else text


def _rows(fields: Sequence[Field]) -> list[str]:
    rows = [(_option(spec), _details(spec)) for spec in fields if spec.opts]
    width = max((len(left) for left, _ in rows), default=0)
    return [f"  {left.ljust(width)}  {right}" for left, right in rows]


def usage(loaders: Sequence[Loader], commands: Mapping[str, Command], skip: Collection[str] = ()) -> str:
    """The listing printed for ``--help``: options by prefix, then sub-commands."""
    lines = [f"usage: {_program()} [options]" + (" <sub-command> [arguments]" if commands else ""), ""]
    lines += [
        "  --config-path FILE              read this file instead of searching for config.{APP_ENV}.toml",
        "  --generate-config toml|env      print a configuration template and exit",
        "  --help                          print this help and exit",
    ]
    for loader in listing_order(loaders):
        fields = [spec for spec in loader.fields if spec.key not in skip]
        lines += ["", f"[{loader.prefix}]", *_rows(fields)]
    for name, command in sorted(commands.items()):
        positionals = " ".join(
            {"required": f"<{p.key}>", "optional": f"[{p.key}]", "*": f"[{p.key}...]"}[p.mode]
            for p in command.positionals
        )
        lines += [
            "",
            f"{name} {positionals}".rstrip() + (f": {command.description}" if command.description else ""),
        ]
        lines += _rows(command.fields)
    return "\n".join(lines) + "\n"
