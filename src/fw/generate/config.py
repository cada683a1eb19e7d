"""The configuration half of ``fw generate``: register calls in, ``_fw_config.py`` loaders out.

Each directory in ``[tool.fw.generate] config`` is scanned with ``ast`` for
``register_config(T, "prefix")`` and ``register_subcommand(T, "name", ...)`` calls; the
modules holding them are imported (generation time only) to resolve ``T``; each directory gets
one ``_fw_config.py`` with a static key table and a constructor per type. When fw itself is the
project (its package lies under the project root), its own settings are regenerated too.
"""

from __future__ import annotations

import ast
import importlib
import sys
from collections.abc import Iterable
from datetime import timedelta
from pathlib import Path
from typing import Any

import fw
from fw.configuration import registry
from fw.configuration.declare import Node, Plan, PlannedArray, PlannedField, Planner, Site
from fw.configuration.schema import Field, fingerprint, type_name
from fw.errors import GenerationError
from fw.generate import GenerationFailed, Output
from fw.generate.project import Project

OUTPUT = "_fw_config.py"
_CALLS = {"register_config": "config", "register_subcommand": "command", "subcommand": "command"}
_FW_DIR = Path(fw.__file__).resolve().parent


def generate_config(project: Project) -> list[Output]:
    folders = list(project.config)
    developing_fw = (project.root / "src" / "fw").resolve() == _FW_DIR
    if developing_fw and _FW_DIR not in folders:
        folders.insert(0, _FW_DIR)
    return generate_folders(folders)


def main(argv: list[str] | None = None) -> int:
    """``python -m fw.generate.config``: regenerate only the configuration loaders of the project."""
    from fw.generate.project import ProjectError, load_project

    try:
        outputs = generate_config(load_project())
    except GenerationFailed as failure:
        for error in failure.errors:
            sys.stderr.write(f"{error}\n")
        return 1
    except ProjectError as error:
        sys.stderr.write(f"fw: {error}\n")
        return 1
    for output in outputs:
        if output.write_if_changed():
            print(f"wrote {output.path}")
    return 0


def generate_folders(folders: Iterable[Path]) -> list[Output]:
    """Plan every registration of every folder, check them together, emit one file per folder."""
    errors: list[GenerationError] = []
    per_folder: list[tuple[Path, list[Plan]]] = []
    before = set(sys.modules)
    folders = [folder.resolve() for folder in folders]
    try:
        for folder in folders:
            plans: list[Plan] = []
            for call in _scan(folder, errors):
                try:
                    plans.append(_plan(call))
                except GenerationError as error:
                    errors.append(error)
            per_folder.append((folder, plans))
    finally:
        _forget_imports(before, folders)
    errors.extend(_check_together([plan for _, plans in per_folder for plan in plans]))
    if errors:
        raise GenerationFailed(errors)
    return [Output(folder / OUTPUT, emit(plans)) for folder, plans in per_folder]


# Scanning.
class _Call:
    def __init__(
        self, folder: Path, kind: str, file: Path, line: int, type_expr: ast.expr, name: str, description: str
    ) -> None:
        self.folder = folder
        self.kind = kind
        self.file = file
        self.line = line
        self.type_expr = type_expr
        self.name = name
        self.description = description


def _files(folder: Path) -> list[Path]:
    if folder == _FW_DIR:
        return [folder / "settings.py"]
    return sorted(
        path
        for path in folder.rglob("*.py")
        if not path.name.startswith("_fw_") and "__pycache__" not in path.parts
    )


def _scan(folder: Path, errors: list[GenerationError]) -> list[_Call]:
    calls: list[_Call] = []
    seen: dict[tuple[str, str], str] = {}
    for file in _files(folder):
        try:
            tree = ast.parse(file.read_text(encoding="utf-8"), str(file))
        except SyntaxError as error:
            errors.append(GenerationError(str(file), error.lineno or 0, f"syntax error: {error.msg}"))
            continue
        errors.extend(_registered_after_parsing(tree, file))
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            called = (
                func.id
                if isinstance(func, ast.Name)
                else func.attr
                if isinstance(func, ast.Attribute)
                else ""
            )
            kind = _CALLS.get(called)
            if kind is None:
                continue
            what = "prefix" if kind == "config" else "sub-command name"
            args = list(node.args)
            keywords = {kw.arg: kw.value for kw in node.keywords if kw.arg}
            type_expr = args[0] if args else keywords.get("cls")
            name_expr = args[1] if len(args) > 1 else keywords.get("prefix" if kind == "config" else "name")
            description_expr = args[2] if len(args) > 2 else keywords.get("description")
            if type_expr is None or name_expr is None:
                errors.append(GenerationError(str(file), node.lineno, f"{called} needs a type and a {what}"))
                continue
            if not (
                isinstance(name_expr, ast.Constant) and isinstance(name_expr.value, str) and name_expr.value
            ):
                errors.append(
                    GenerationError(
                        str(file),
                        node.lineno,
                        f"{called}: the {what} must be a non-empty string literal "
                        "(computed values get no loader)",
                    )
                )
                continue
            if not isinstance(type_expr, (ast.Name, ast.Attribute)):
                errors.append(
                    GenerationError(str(file), node.lineno, f"{called}: the type must be a class name")
                )
                continue
            description = ""
            if isinstance(description_expr, ast.Constant) and isinstance(description_expr.value, str):
                description = description_expr.value
            here = f"{file}:{node.lineno}"
            if (kind, name_expr.value) in seen:
                errors.append(
                    GenerationError(
                        str(file),
                        node.lineno,
                        f"{what} {name_expr.value!r} is registered twice "
                        f"(first at {seen[(kind, name_expr.value)]})",
                    )
                )
                continue
            seen[(kind, name_expr.value)] = here
            calls.append(_Call(folder, kind, file, node.lineno, type_expr, name_expr.value, description))
    return sorted(calls, key=lambda call: (str(call.file), call.line))


def _called(node: ast.stmt) -> str:
    if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
        func = node.value.func
        return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
    return ""


def _registered_after_parsing(tree: ast.Module, file: Path) -> list[GenerationError]:
    """A module-level registration below a module-level ``parse_config()`` would fail at run time."""
    parsed_at: int | None = None
    found: list[GenerationError] = []
    for statement in tree.body:
        name = _called(statement)
        if name == "parse_config" and parsed_at is None:
            parsed_at = statement.lineno
        elif name in _CALLS and parsed_at is not None:
            found.append(
                GenerationError(
                    str(file),
                    statement.lineno,
                    f"{name} after parse_config (line {parsed_at}): register before parsing",
                )
            )
    return found


def module_for(file: Path) -> tuple[str, Path]:
    """The importable module name of ``file`` and the sys.path root it needs."""
    parts = [] if file.name == "__init__.py" else [file.stem]
    folder = file.parent
    while (folder / "__init__.py").exists():
        parts.insert(0, folder.name)
        folder = folder.parent
    return ".".join(parts), folder


def _import(file: Path) -> Any:
    name, root = module_for(file)
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))
    loaded = sys.modules.get(name)
    if loaded is not None and Path(getattr(loaded, "__file__", "") or "").resolve() == file.resolve():
        return loaded
    if loaded is not None:
        for cached in [mod for mod in sys.modules if mod == name or mod.startswith(name + ".")]:
            del sys.modules[cached]
    registry.begin_generation()
    try:
        return importlib.import_module(name)
    finally:
        registry.end_generation()


def _forget_imports(before: set[str], folders: list[Path]) -> None:
    """Drop the modules imported only to resolve types: they ran with registration switched off."""
    for name in set(sys.modules) - before:
        file = getattr(sys.modules[name], "__file__", None)
        if file and any(Path(file).resolve().is_relative_to(folder) for folder in folders):
            del sys.modules[name]


def _plan(call: _Call) -> Plan:
    site = Site(str(call.file), call.line)
    try:
        module = _import(call.file)
    except Exception as error:
        raise site.error(
            f"cannot import {call.file.name} to resolve the type: {type(error).__name__}: {error}"
        ) from None
    try:
        cls = eval(compile(ast.Expression(call.type_expr), str(call.file), "eval"), vars(module))
    except Exception as error:
        raise site.error(f"cannot resolve {ast.unparse(call.type_expr)}: {error}") from None
    if not isinstance(cls, type):
        raise site.error(f"{ast.unparse(call.type_expr)} is not a class")
    _check_location(cls, call, site)
    return Planner(call.kind, cls, call.name, call.description, site).plan()


def _check_location(cls: type, call: _Call, site: Site) -> None:
    """The runtime looks for the loader in the package of ``cls`` or a parent package of it."""
    folder = call.folder
    output_module = (
        f"{module_for(folder / '__init__.py')[0]}._fw_config"
        if (folder / "__init__.py").exists()
        else ("_fw_config")
    )
    type_module = registry.module_name(cls)
    if output_module not in registry.loader_modules(cls):
        raise site.error(
            f"{cls.__qualname__} is declared in {type_module}, but this directory's loader would be "
            f"{output_module}: list the directory of {type_module}'s package in [tool.fw.generate] config "
            "and register the type there"
        )


# Checks across registrations.
def _check_together(plans: list[Plan]) -> list[GenerationError]:
    errors: list[GenerationError] = []
    keys: dict[str, PlannedField] = {}
    envs: dict[str, PlannedField] = {}
    options: dict[str, PlannedField] = {}
    tables: set[str] = set()
    configs = [plan for plan in plans if plan.kind == "config"]
    for plan in configs:
        tables.update(table for table, _ in plan.tables)
        tables.update(array.key for array in plan.arrays)
        for planned in plan.fields:
            if planned.key in keys:
                errors.append(
                    planned.site.error(f"key {planned.key} is declared twice (also {_at(keys[planned.key])})")
                )
            keys[planned.key] = planned
            if planned.env is not None:
                if planned.env in envs:
                    other = envs[planned.env]
                    errors.append(
                        planned.site.error(
                            f"environment variable {planned.env} is used by {other.key} ({_at(other)}) "
                            f"and {planned.key}"
                        )
                    )
                envs[planned.env] = planned
            for option in planned.opts:
                if option in options and options[option] is not planned:
                    errors.append(
                        planned.site.error(f"option {option} is also used by {options[option].key}")
                    )
                options[option] = planned
    builtin = {} if any(plan.cls.__module__ == "fw.settings" for plan in configs) else _builtin_fields()
    builtin_envs = {spec.env: key for key, spec in builtin.items() if spec.env is not None}
    builtin_options = {option: key for key, spec in builtin.items() for option in spec.opts}
    for plan in configs:
        for planned in plan.fields:
            if planned.key in builtin:
                errors.append(planned.site.error(f"key {planned.key} is one of the framework's own keys"))
            elif planned.env in builtin_envs:
                errors.append(
                    planned.site.error(
                        f"environment variable {planned.env} is used by the framework's "
                        f"{builtin_envs[planned.env]}"
                    )
                )
            for option in planned.opts:
                if option in builtin_options:
                    errors.append(
                        planned.site.error(
                            f"option {option} is used by the framework's {builtin_options[option]}"
                        )
                    )
    for plan in configs:
        sites = [planned.dependon for planned in plan.fields] + [array.dependon for array in plan.arrays]
        for dependon in sites:
            for target, site in dependon:
                parent = keys.get(target)
                if parent is None:
                    if target in tables:
                        errors.append(site.error(f"dependon {target!r} names a table, not a key"))
                    elif target not in builtin:
                        errors.append(site.error(f"dependon names an undeclared key {target!r}"))
                    continue
                if parent.kind in ("int", "duration") and parent.falsy is None:
                    errors.append(
                        site.error(
                            f"dependon {target!r}: a {parent.kind} key named by dependon must declare falsy "
                            f"(its off value) at {_at(parent)}"
                        )
                    )
    return _unique(errors)


def _unique(errors: list[GenerationError]) -> list[GenerationError]:
    seen: set[str] = set()
    out: list[GenerationError] = []
    for error in errors:
        if str(error) not in seen:
            seen.add(str(error))
            out.append(error)
    return out


def _at(planned: PlannedField) -> str:
    return f"{planned.site.file}:{planned.site.line}"


def _builtin_fields() -> dict[str, Field]:
    """The framework's own keys: applications may name them in ``dependon`` but not reuse them."""
    try:
        generated = importlib.import_module("fw._fw_config")
    except ImportError:
        return {}
    loaders = getattr(generated, "LOADERS", {}).values()
    return {spec.key: spec for loader in loaders for spec in loader.fields}


# Emission.
HEADER = '''"""Configuration loaders: key tables and constructors for this directory's registered types.

Generated by `fw generate` from the register_config / register_subcommand calls; do not edit.
Run `fw generate` again after changing a declaration.
"""
# Code generated by `fw generate`; DO NOT EDIT.

from __future__ import annotations

import datetime
from typing import Any

from fw.configuration.schema import Command, Field, Loader, Positional, TableArray
'''


class _Emitter:
    def __init__(self, plans: list[Plan]) -> None:
        self.plans = plans
        modules = sorted({cls.__module__ for plan in plans for cls in plan.classes})
        self.alias = {module: f"_m{index}" for index, module in enumerate(modules)}
        self.functions: list[str] = []
        self.builders: dict[int, str] = {}

    def ref(self, cls: type) -> str:
        return f"{self.alias[cls.__module__]}.{cls.__qualname__}"

    def construct(self, node: Node, indent: str) -> str:
        parts = []
        for attr, member in node.members:
            if isinstance(member, PlannedField):
                parts.append(f"{indent}    {attr}=v[{member.key!r}],")
            elif isinstance(member, Node):
                inner = self.construct(member, indent + "    ")
                parts.append(f"{indent}    {attr}={inner},")
            else:
                builder = self.element_builder(member)
                parts.append(f"{indent}    {attr}=[{builder}(e) for e in v[{member.key!r}]],")
        if not parts:
            return f"{self.ref(node.cls)}()"
        return f"{self.ref(node.cls)}(\n" + "\n".join(parts) + f"\n{indent})"

    def element_builder(self, array: PlannedArray) -> str:
        name = f"_element_{len(self.functions)}"
        body = self.construct(array.nodes[0], "    ")
        self.functions.append(f"def {name}(v: Any) -> Any:\n    return {body}\n")
        self.builders[id(array)] = name
        return name


def _literal(value: object) -> str:
    if isinstance(value, timedelta):
        return f"datetime.timedelta(microseconds={value // timedelta(microseconds=1)})"
    return repr(value)


def _field(planned: PlannedField, indent: str) -> str:
    args = [f"key={planned.key!r}", f"kind={planned.kind!r}", f"table={planned.table!r}"]
    if planned.default is not None:
        args.append(f"default={_literal(planned.default)}")
    if planned.env is not None:
        args.append(f"env={planned.env!r}")
    if planned.opts:
        args.append(f"opts={planned.opts!r}")
    if planned.secret:
        args.append(f"secret={planned.secret!r}")
    dependon = tuple(dict.fromkeys(target for target, _ in planned.dependon))
    if dependon:
        args.append(f"dependon={dependon!r}")
    if planned.falsy is not None:
        args.append(f"falsy={_literal(planned.falsy)}")
    if planned.help:
        args.append(f"help={planned.help!r}")
    return f"{indent}Field(" + ", ".join(args) + "),"


def emit(plans: list[Plan]) -> str:
    emitter = _Emitter(plans)
    imports = [f"import {module} as {alias}" for module, alias in emitter.alias.items()]
    loaders: list[str] = []
    commands: list[str] = []
    for index, plan in enumerate(plans):
        name = type_name(plan.cls)
        classes = ", ".join(emitter.ref(cls) for cls in plan.classes)
        emitter.functions.append(f"def _classes_{index}() -> tuple[type, ...]:\n    return ({classes},)\n")
        body = emitter.construct(plan.root, "    ")
        emitter.functions.append(f"def _build_{index}(v: Any) -> Any:\n    return {body}\n")
        common = [
            f"        type_name={name!r},",
            f"        fingerprint={fingerprint(plan.classes)!r},",
            f"        classes=_classes_{index},",
            f"        build=_build_{index},",
        ]
        options = [planned for planned in plan.fields if planned.arg is None]
        fields = "\n".join(_field(planned, "            ") for planned in options)
        if plan.kind == "config":
            arrays = []
            for array in plan.arrays:
                builder = emitter.builders[id(array)]
                element_fields = "\n".join(
                    _field(planned, "                    ") for planned in array.fields
                )
                extra = []
                if array.secret:
                    extra.append(f"secret={array.secret!r}")
                dependon = tuple(dict.fromkeys(target for target, _ in array.dependon))
                if dependon:
                    extra.append(f"dependon={dependon!r}")
                if array.help:
                    extra.append(f"help={array.help!r}")
                arrays.append(
                    f"            TableArray(\n                key={array.key!r},\n"
                    f"                table={array.table!r},\n"
                    f"                fields=(\n{element_fields}\n                ),\n"
                    f"                build={builder},\n"
                    + "".join(f"                {item},\n" for item in extra)
                    + "            ),"
                )
            tables = "".join(f"            ({table!r}, {text!r}),\n" for table, text in plan.tables)
            loaders.append(
                f"    {name!r}: Loader(\n"
                + "\n".join(common)
                + f"\n        prefix={plan.name!r},\n        fields=(\n{fields}\n        ),\n"
                + ("        arrays=(\n" + "\n".join(arrays) + "\n        ),\n" if arrays else "")
                + f"        tables=(\n{tables}        ),\n    ),"
            )
        else:
            positionals = "".join(
                f"            Positional(key={planned.key!r}, kind={planned.kind!r}, mode={planned.arg!r}"
                + (f", help={planned.help!r}" if planned.help else "")
                + "),\n"
                for planned in plan.fields
                if planned.arg is not None
            )
            commands.append(
                f"    {name!r}: Command(\n"
                + "\n".join(common)
                + f"\n        name={plan.name!r},\n        description={plan.description!r},\n"
                + f"        fields=(\n{fields}\n        ),\n"
                + f"        positionals=(\n{positionals}        ),\n    ),"
            )
    text = HEADER
    if imports:
        text += "\n" + "\n".join(imports) + "\n"
    text += "\n\n" + "\n\n".join(emitter.functions) if emitter.functions else ""
    text += "\n\nLOADERS: dict[str, Loader] = {\n" + "\n".join(loaders) + ("\n" if loaders else "") + "}\n"
    text += "\nCOMMANDS: dict[str, Command] = {\n" + "\n".join(commands) + ("\n" if commands else "") + "}\n"
    return text


if __name__ == "__main__":
    raise SystemExit(main())
