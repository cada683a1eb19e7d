"""Finding ``register_config(T, "prefix")`` and ``register_subcommand(T, "name", ...)`` calls.

Each file is read with ``ast``; the prefix (or sub-command name) must be a string literal at the
call, since a computed one cannot be known without running the program. The module holding a
call is then imported, with registration switched off, to resolve ``T``.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import fw.configuration.registry as registry
from fw.codegen.errors import Where
from fw.codegen.imports import import_file, unimportable
from fw.errors import GenerationError

Kind = Literal["config", "command"]
CALLS: dict[str, Kind] = {
    "register_config": "config",
    "register_subcommand": "command",
    "subcommand": "command",
}


@dataclass(frozen=True, slots=True)
class Call:
    """One registration written in a scanned directory."""

    folder: Path
    kind: Kind
    file: Path
    line: int
    type_expr: ast.expr
    name: str
    description: str

    @property
    def where(self) -> Where:
        return Where(str(self.file), self.line, ast.unparse(self.type_expr))


def scan(folder: Path, files: list[Path], errors: list[GenerationError]) -> list[Call]:
    """Every registration in ``files``, in file and line order; bad calls go to ``errors``."""
    calls: list[Call] = []
    seen: dict[tuple[str, str], str] = {}
    for file in files:
        try:
            tree = ast.parse(file.read_text(encoding="utf-8"), str(file))
        except SyntaxError as error:
            errors.append(GenerationError(str(file), error.lineno or 0, f"syntax error: {error.msg}"))
            continue
        errors.extend(_registered_after_parsing(tree, file))
        refused = False
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                call = _call(folder, file, node, errors)
                if call is None or refused:
                    continue
                refusal = unimportable(file, folder)
                if refusal is not None:
                    errors.append(refusal)
                    refused = True
                    continue
                key = (call.kind, call.name)
                if key in seen:
                    what = "prefix" if call.kind == "config" else "sub-command name"
                    errors.append(
                        call.where.error(f"{what} {call.name!r} is registered twice (first at {seen[key]})")
                    )
                    continue
                seen[key] = f"{file}:{node.lineno}"
                calls.append(call)
    return sorted(calls, key=lambda call: (str(call.file), call.line))


def _called(func: ast.expr) -> str:
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""


def _call(folder: Path, file: Path, node: ast.Call, errors: list[GenerationError]) -> Call | None:
    called = _called(node.func)
    kind = CALLS.get(called)
    if kind is None:
        return None
    what = "prefix" if kind == "config" else "sub-command name"
    args = list(node.args)
    keywords = {kw.arg: kw.value for kw in node.keywords if kw.arg}
    type_expr = args[0] if args else keywords.get("cls")
    name_expr = args[1] if len(args) > 1 else keywords.get("prefix" if kind == "config" else "name")
    description_expr = args[2] if len(args) > 2 else keywords.get("description")
    where = Where(str(file), node.lineno, ast.unparse(type_expr) if type_expr is not None else called)
    if type_expr is None or name_expr is None:
        errors.append(where.error(f"{called} needs a type and a {what}"))
        return None
    if not (isinstance(name_expr, ast.Constant) and isinstance(name_expr.value, str) and name_expr.value):
        errors.append(
            where.error(
                f"the {what} of {called} must be a non-empty string literal (computed values get no loader)"
            )
        )
        return None
    if not isinstance(type_expr, (ast.Name, ast.Attribute)):
        errors.append(where.error(f"the type of {called} must be a class name"))
        return None
    description = ""
    if isinstance(description_expr, ast.Constant) and isinstance(description_expr.value, str):
        description = description_expr.value
    return Call(folder, kind, file, node.lineno, type_expr, name_expr.value, description)


def _statement_call(node: ast.stmt) -> ast.Call | None:
    if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
        return node.value
    return None


def _registered_after_parsing(tree: ast.Module, file: Path) -> list[GenerationError]:
    """A module-level registration below a module-level ``parse_config()`` would fail at run time."""
    parsed_at: int | None = None
    found: list[GenerationError] = []
    for statement in tree.body:
        call = _statement_call(statement)
        name = _called(call.func) if call is not None else ""
        if name == "parse_config" and parsed_at is None:
            parsed_at = statement.lineno
        elif call is not None and name in CALLS and parsed_at is not None:
            subject = ast.unparse(call.args[0]) if call.args else name
            found.append(
                Where(str(file), statement.lineno, subject).error(
                    f"{name} after parse_config (line {parsed_at}): register before parsing"
                )
            )
    return found


def import_for_reading(file: Path) -> object:
    """The module of ``file``, imported with registration switched off (it is read, not run)."""
    registry.begin_generation()
    try:
        return import_file(file)
    finally:
        registry.end_generation()
