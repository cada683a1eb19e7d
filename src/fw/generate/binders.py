"""``fw generate`` for request binding: find ``fw.parse(T, ...)`` calls, write ``_fw_binders.py``.

The runtime looks for a type's binder in the ``_fw_binders`` module of the package that declares
the type, and for a handler's OpenAPI operation in that of the handler's package, so the
generated modules go exactly there: one per package that declares a bound type or holds a
handler calling ``fw.parse`` (sub-packages such as ``api/v1`` and ``api/v2``, a package's
``__init__``, a ``models.py`` outside the handlers folders), plus one at the root of each handlers
folder. Each holds a straight-line binder per type (its regexes precompiled, its defaults and enum
values as literals) and the OpenAPI pieces of its handlers; with ``[tool.fw] app`` set, the
assembled OpenAPI document is written too (see :func:`fw.generate.openapi.document_path`).
Request time then only dispatches: no annotation is inspected while serving. The steps live in
:mod:`fw.binding.codegen` (scan the calls, plan the types, emit the code and the OpenAPI pieces);
this module runs them over the handlers directories and sorts the results by package.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fw.binding.codegen.emit import emit_module, plans_under
from fw.binding.codegen.openapi import operation_pieces, schema_key
from fw.binding.codegen.plan import Planner, StructPlan
from fw.binding.codegen.scan import CallSite, scan_directory
from fw.codegen.errors import GenerationFailed
from fw.codegen.output import Output
from fw.errors import GenerationError
from fw.generate.openapi import document_output
from fw.generate.project import Project

OUTPUT_NAME = "_fw_binders.py"


@dataclass
class _Package:
    """What one generated module holds: the binders of its package's types, the operations of its
    package's handlers and the schemas those operations name."""

    tops: dict[type, StructPlan] = field(default_factory=dict)
    operations: dict[str, Any] = field(default_factory=dict)
    schemas: dict[str, Any] = field(default_factory=dict)


def generate_binders(project: Project) -> list[Output]:
    """One ``_fw_binders.py`` per package with a bound type or a parsing handler, and per handlers
    directory (always written, even with no call in it)."""
    errors: list[GenerationError] = []
    sites: list[CallSite] = []
    for folder in project.handlers:
        if not folder.is_dir():
            errors.append(GenerationError(str(folder), 0, "handlers directory does not exist"))
            continue
        sites.extend(scan_directory(folder, errors))
    planner = Planner(project.cbor)
    tops: dict[type, StructPlan] = {}
    for site in sites:
        if site.cls not in tops:
            tops[site.cls] = planner.plan(site.cls, top=True)
    errors.extend(planner.errors)
    packages: dict[Path, _Package] = {folder: _Package() for folder in project.handlers if folder.is_dir()}
    operations: dict[str, Any] = {}
    schemas: dict[str, Any] = {}
    if not planner.errors:
        operations, schemas = operation_pieces(sites, tops, planner.plans, project.cbor)
        _sort_into_packages(project, sites, tops, operations, schemas, packages, errors)
    if errors:
        raise GenerationFailed(errors)
    outputs = [
        Output(
            folder / OUTPUT_NAME,
            emit_module(package.tops, (package.operations, package.schemas), project.cbor),
        )
        for folder, package in sorted(packages.items())
    ]
    document = document_output(project, operations, schemas)
    if document is not None:
        outputs.append(document)
    return outputs


def _sort_into_packages(
    project: Project,
    sites: list[CallSite],
    tops: dict[type, StructPlan],
    operations: dict[str, Any],
    schemas: dict[str, Any],
    packages: dict[Path, _Package],
    errors: list[GenerationError],
) -> None:
    """Each type's binder into its declaring package; each operation, with the schemas it names,
    into its handler's package."""
    for cls, plan in tops.items():
        folder = _package_folder(cls.__module__)
        site = next(site for site in sites if site.cls is cls)
        if folder is None or not folder.is_relative_to(project.root):
            errors.append(
                GenerationError(
                    str(site.file),
                    site.line,
                    f"fw.parse({cls.__qualname__}, ...): {cls.__qualname__} is declared in {cls.__module__}, "
                    f"outside this project ({project.root}): binders are written next to the declaration, "
                    "so declare the request type in the project",
                )
            )
            continue
        packages.setdefault(folder, _Package()).tops[cls] = plan
    for site in sites:
        if site.handler is None:
            continue
        key = f"{site.module}:{site.handler}"
        package = packages.setdefault(site.file.parent, _Package())
        package.operations[key] = operations[key]
        top = tops[site.cls]
        for plan in [top, *plans_under(top).values()]:
            package.schemas[schema_key(plan)] = schemas[schema_key(plan)]


def _package_folder(module: str) -> Path | None:
    """The folder of the package holding ``module`` (the folder of its file)."""
    loaded = sys.modules.get(module)
    file = getattr(loaded, "__file__", None)
    return Path(file).resolve().parent if file else None
