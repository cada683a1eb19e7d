"""The command-line layer: ``--key value``, ``--key=value``, bare bools, repeated lists, sub-commands.

Short options take their value as the next argument or after ``=`` (``-p 80``, ``-p=80``);
``-p80`` is an unknown option, never ``-p`` with a glued value. ``--`` ends the options.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from fw.configuration.choices import checked
from fw.configuration.quoting import quoted
from fw.configuration.schema import Command, Field, Value
from fw.configuration.values import BadValue, parse_bool, parse_scalar
from fw.errors import ConfigError

CONFIG_PATH = "--config-path"
GENERATE_CONFIG = "--generate-config"
HELP = "--help"


@dataclass
class ParsedArgs:
    """What the command line set: values by key with the option that set them."""

    values: dict[str, tuple[Value, str]] = field(default_factory=dict)
    config_path: tuple[str, str] | None = None
    template: str | None = None
    command: Command | None = None
    command_values: dict[str, tuple[Any, str]] = field(default_factory=dict)


def parse_argv(
    argv: Sequence[str], options: Mapping[str, Field], commands: Mapping[str, Command]
) -> ParsedArgs:
    parsed = ParsedArgs()
    table: Mapping[str, Field] = options
    command_table: dict[str, Field] = {}
    positionals: list[str] = []
    only_positionals = False
    index = 0
    while index < len(argv):
        token = argv[index]
        index += 1
        if only_positionals or not token.startswith("-") or token == "-":
            if parsed.command is None:
                if commands and token in commands:
                    parsed.command = commands[token]
                    command_table = {opt: f for f in parsed.command.fields for opt in f.opts}
                    continue
                if commands:
                    names = ", ".join(sorted(commands))
                    raise ConfigError(
                        "", f"argument {quoted(token)}", f"unknown sub-command (expected one of: {names})"
                    )
                raise ConfigError("", f"argument {quoted(token)}", "unexpected argument")
            positionals.append(token)
            continue
        if token == "--":
            only_positionals = True
            continue
        name, equals, inline = token.partition("=")
        if token == HELP and HELP not in table and HELP not in command_table:
            parsed.template = "help"
            continue
        if name in (CONFIG_PATH, GENERATE_CONFIG):
            index, text = _take_value(argv, index, name, equals, inline)
            if name == CONFIG_PATH:
                parsed.config_path = (text, f"option:{name}")
            elif text not in ("toml", "env"):
                raise ConfigError("", f"option:{name}", f"must be toml or env, got {quoted(text)}")
            else:
                parsed.template = text
            continue
        in_command = name in command_table
        spec = command_table.get(name) or table.get(name)
        if spec is None:
            raise ConfigError("", f"option:{name}", f"unknown option {name}")
        source = f"option:{name}"
        try:
            if spec.kind == "bool":
                value: Value = parse_bool(inline) if equals else True
            else:
                index, text = _take_value(argv, index, name, equals, inline, spec.key)
                empty = text == "" and spec.falsy is not None
                value = spec.falsy if empty and spec.falsy is not None else parse_scalar(spec.kind, text)
                value = checked(spec, value, source)
        except BadValue as error:
            raise ConfigError(spec.key, source, str(error)) from None
        target: dict[str, Any] = parsed.command_values if in_command else parsed.values
        if spec.kind == "list" and spec.key in target:
            previous, _ = target[spec.key]
            value = [*previous, *value]  # type: ignore[misc]
        target[spec.key] = (value, source)
    if parsed.command is not None:
        _assign_positionals(parsed, positionals)
    return parsed


def _take_value(
    argv: Sequence[str], index: int, name: str, equals: str, inline: str, key: str = ""
) -> tuple[int, str]:
    if equals:
        return index, inline
    if index >= len(argv):
        raise ConfigError(key, f"option:{name}", f"missing value for {name}")
    return index + 1, argv[index]


def _assign_positionals(parsed: ParsedArgs, tokens: list[str]) -> None:
    assert parsed.command is not None
    remaining = list(tokens)
    for positional in parsed.command.positionals:
        source = f"argument {positional.key}"
        if positional.mode == "*":
            parsed.command_values[positional.key] = (remaining, source)
            remaining = []
            continue
        if not remaining:
            if positional.mode == "required":
                raise ConfigError(
                    positional.key, f"sub-command {parsed.command.name}", "missing required argument"
                )
            continue
        text = remaining.pop(0)
        try:
            parsed.command_values[positional.key] = (parse_scalar(positional.kind, text), source)
        except BadValue as error:
            raise ConfigError(positional.key, source, str(error)) from None
    if remaining:
        raise ConfigError(
            "", f"argument {quoted(remaining[0])}", f"unexpected argument for {parsed.command.name}"
        )
