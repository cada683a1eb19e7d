"""Writing ``_fw_config.py``: one static key table and one constructor per registered type.

The module holds plain data (:class:`fw.configuration.schema.Loader` and ``Command`` entries)
and straight-line constructors, so loading configuration never reads an annotation. It imports
none of the modules it describes: each entry finds its classes by module and qualified name when
it is used (:func:`fw.codegen.naming.declared`), so the loader of one settings module never
imports a sibling that is still being imported, nor runs a ``python -m`` main module again.
"""

from __future__ import annotations

import dataclasses
from datetime import timedelta

from fw.codegen.naming import module_name
from fw.codegen.output import header
from fw.configuration.codegen.plan import Node, Plan, PlannedArray, PlannedField
from fw.configuration.schema import Field, fingerprint, type_name

HEADER = (
    header("the register_config / register_subcommand calls in this directory", "a registered declaration")
    + '''"""Configuration loaders: key tables and constructors for this directory's registered types."""

from __future__ import annotations

import datetime
from typing import Any

from fw.codegen.naming import declared
from fw.configuration.schema import Command, Field, Loader, Positional, TableArray
'''
)


class _Emitter:
    def __init__(self, plans: list[Plan]) -> None:
        self.plans = plans
        self.functions: list[str] = []
        self.builders: dict[int, str] = {}

    def ref(self, cls: type) -> str:
        return f"declared({module_name(cls.__module__)!r}, {cls.__qualname__!r})"

    def construct(self, node: Node, indent: str) -> str:
        parts = []
        for attr, member in node.members:
            if isinstance(member, PlannedField):
                parts.append(f"{indent}    {attr}=v[{member.spec.key!r}],")
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


def _field(spec: Field, indent: str) -> str:
    """``Field(key=..., kind=..., table=..., <every other attribute not at its default>)``."""
    args = [
        f"{item.name}={_literal(getattr(spec, item.name))}"
        for item in dataclasses.fields(Field)
        if item.name in ("key", "kind", "table") or getattr(spec, item.name) != item.default
    ]
    return f"{indent}Field(" + ", ".join(args) + "),"


def _array(emitter: _Emitter, array: PlannedArray) -> str:
    element_fields = "\n".join(_field(planned.spec, "                    ") for planned in array.fields)
    dependon = tuple(dict.fromkeys(target for target, _ in array.dependon))
    extra = [
        f"{name}={value!r}"
        for name, value in (("secret", array.secret), ("dependon", dependon), ("help", array.help))
        if value
    ]
    return (
        f"            TableArray(\n                key={array.key!r},\n"
        f"                table={array.table!r},\n"
        f"                fields=(\n{element_fields}\n                ),\n"
        f"                build={emitter.builders[id(array)]},\n"
        + "".join(f"                {item},\n" for item in extra)
        + "            ),"
    )


def _entry(emitter: _Emitter, plan: Plan, index: int) -> str:
    name = type_name(plan.cls)
    classes = ", ".join(emitter.ref(cls) for cls in plan.classes)
    emitter.functions.append(f"def _classes_{index}() -> tuple[type, ...]:\n    return ({classes},)\n")
    body = emitter.construct(plan.root, "    ")
    emitter.functions.append(f"def _build_{index}(v: Any) -> Any:\n    return {body}\n")
    common = (
        f"        type_name={name!r},\n"
        f"        fingerprint={fingerprint(plan.classes)!r},\n"
        f"        classes=_classes_{index},\n"
        f"        build=_build_{index},\n"
    )
    options = "\n".join(
        _field(planned.spec, "            ") for planned in plan.fields if planned.arg is None
    )
    if plan.kind == "config":
        arrays = [_array(emitter, array) for array in plan.arrays]
        tables = "".join(f"            ({table!r}, {text!r}),\n" for table, text in plan.tables)
        return (
            f"    {name!r}: Loader(\n{common}"
            f"        prefix={plan.name!r},\n        fields=(\n{options}\n        ),\n"
            + ("        arrays=(\n" + "\n".join(arrays) + "\n        ),\n" if arrays else "")
            + f"        tables=(\n{tables}        ),\n    ),"
        )
    positionals = "".join(
        f"            Positional(key={planned.spec.key!r}, kind={planned.spec.kind!r}, mode={planned.arg!r}"
        + (f", help={planned.spec.help!r}" if planned.spec.help else "")
        + "),\n"
        for planned in plan.fields
        if planned.arg is not None
    )
    return (
        f"    {name!r}: Command(\n{common}"
        f"        name={plan.name!r},\n        description={plan.description!r},\n"
        f"        fields=(\n{options}\n        ),\n"
        f"        positionals=(\n{positionals}        ),\n    ),"
    )


def emit(plans: list[Plan]) -> str:
    """The text of one ``_fw_config.py`` holding ``plans``."""
    emitter = _Emitter(plans)
    loaders: list[str] = []
    commands: list[str] = []
    for index, plan in enumerate(plans):
        (loaders if plan.kind == "config" else commands).append(_entry(emitter, plan, index))
    text = HEADER
    text += "\n\n" + "\n\n".join(emitter.functions) if emitter.functions else ""
    text += "\n\nLOADERS: dict[str, Loader] = {\n" + "\n".join(loaders) + ("\n" if loaders else "") + "}\n"
    text += "\nCOMMANDS: dict[str, Command] = {\n" + "\n".join(commands) + ("\n" if commands else "") + "}\n"
    return text
