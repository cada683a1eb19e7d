"""Finding ``fw.parse(T, ...)`` calls: the first step of ``fw generate`` for binders.

Each handlers file is read with ``ast``; only files with a call are imported, to resolve the
type written at the call. A type that cannot be known there (a parameter of a generic wrapper)
is skipped, so ``fw.parse`` reports it at run time; anything written at the call that is not a
concrete dataclass is a generation error.
"""

from __future__ import annotations

import ast
import dataclasses
import typing
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fw.codegen.imports import import_file, source_files, unimportable
from fw.codegen.naming import module_for
from fw.errors import GenerationError


@dataclass(frozen=True, slots=True)
class CallSite:
    """One ``fw.parse(T, ...)`` call: where it is, the handler around it and the type it binds."""

    file: Path
    line: int
    module: str
    handler: str | None
    cls: type


def scan_directory(folder: Path, errors: list[GenerationError]) -> list[CallSite]:
    sites: list[CallSite] = []
    for file in source_files(folder):
        sites.extend(scan_file(file, errors, folder))
    return sites


class _CallFinder(ast.NodeVisitor):
    def __init__(self) -> None:
        self.fw_names: set[str] = set()
        self.parse_names: set[str] = set()
        self.scope: list[str] = []
        self.calls: list[tuple[ast.Call, str | None]] = []

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            if alias.name == "fw":
                self.fw_names.add(alias.asname or "fw")

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if node.module in ("fw", "fw.binding", "fw.binding.registry"):
            for alias in node.names:
                if alias.name == "parse":
                    self.parse_names.add(alias.asname or "parse")

    def _nested(self, node: ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef, separator: str) -> None:
        self.scope.append(node.name + separator)
        self.generic_visit(node)
        self.scope.pop()

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self._nested(node, ".")

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        self._nested(node, ".<locals>.")

    def visit_AsyncFunctionDef(self, node: ast.AsyncFunctionDef) -> None:
        self._nested(node, ".<locals>.")

    def visit_Call(self, node: ast.Call) -> None:
        func = node.func
        is_parse = (
            isinstance(func, ast.Attribute)
            and func.attr == "parse"
            and isinstance(func.value, ast.Name)
            and func.value.id in self.fw_names
        ) or (isinstance(func, ast.Name) and func.id in self.parse_names)
        if is_parse:
            handler = None
            if self.scope and self.scope[-1].endswith(".<locals>."):
                handler = "".join(self.scope)[: -len(".<locals>.")]
            self.calls.append((node, handler))
        self.generic_visit(node)


def scan_file(file: Path, errors: list[GenerationError], folder: Path | None = None) -> list[CallSite]:
    source = file.read_text(encoding="utf-8")
    try:
        tree = ast.parse(source, filename=str(file))
    except SyntaxError as bad:
        errors.append(GenerationError(str(file), bad.lineno or 0, f"syntax error: {bad.msg}"))
        return []
    finder = _CallFinder()
    finder.visit(tree)
    if not finder.calls:
        return []
    refusal = unimportable(file, folder) if folder is not None else None
    if refusal is not None:
        errors.append(refusal)
        return []
    module_name, _ = module_for(file)
    try:
        module = import_file(file)
    except Exception as failure:
        errors.append(GenerationError(str(file), 1, f"cannot import {module_name}: {failure}"))
        return []
    sites: list[CallSite] = []
    for call, handler in finder.calls:
        argument = call.args[0] if call.args else None
        if argument is None:
            errors.append(
                GenerationError(str(file), call.lineno, "fw.parse needs the dataclass as first argument")
            )
            continue
        resolved = _resolve(module, argument)
        if resolved is _UNRESOLVED:
            # A local name (a parameter of a generic wrapper): no binder; fw.parse says so at run time.
            continue
        text = ast.unparse(argument)
        if isinstance(resolved, typing.TypeVar) or not isinstance(resolved, type):
            errors.append(
                GenerationError(
                    str(file),
                    call.lineno,
                    f"fw.parse({text}, ...): the type must be a concrete dataclass written at the call, "
                    f"not {'a type variable' if isinstance(resolved, typing.TypeVar) else repr(resolved)}",
                )
            )
            continue
        if not dataclasses.is_dataclass(resolved):
            errors.append(
                GenerationError(str(file), call.lineno, f"fw.parse({text}, ...): {text} is not a @dataclass")
            )
            continue
        if "<locals>" in resolved.__qualname__:
            errors.append(
                GenerationError(
                    str(file),
                    call.lineno,
                    f"fw.parse({text}, ...): declare {text} at module level to bind it",
                )
            )
            continue
        sites.append(CallSite(file, call.lineno, module_name, handler, resolved))
    return sites


_UNRESOLVED: Any = object()


def _resolve(module: Any, node: ast.expr) -> Any:
    if isinstance(node, ast.Name):
        return getattr(module, node.id, _UNRESOLVED)
    if isinstance(node, ast.Attribute):
        owner = _resolve(module, node.value)
        return _UNRESOLVED if owner is _UNRESOLVED else getattr(owner, node.attr, _UNRESOLVED)
    if isinstance(node, ast.Subscript):
        return f"the generic form {ast.unparse(node)}"
    return f"the expression {ast.unparse(node)}"
