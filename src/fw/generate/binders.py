"""``fw generate`` for request binding: find ``fw.parse(T, ...)`` calls, write ``_fw_binders.py``.

Each directory in ``[tool.fw.generate].handlers`` gets one generated module holding a
straight-line binder per parsed dataclass (its regexes precompiled, its defaults and enum values
as literals) and the OpenAPI pieces of the handlers that call ``fw.parse``; with ``[tool.fw] app``
set, the assembled OpenAPI document is written too (see :func:`fw.generate.openapi.document_path`).
Request time then only dispatches: no annotation is inspected while serving. The steps live in
:mod:`fw.binding.codegen` (scan the calls, plan the types, emit the code and the OpenAPI pieces);
this module only runs them over the handlers directories.
"""

from __future__ import annotations

from typing import Any

from fw.binding.codegen.emit import emit_module
from fw.binding.codegen.openapi import operation_pieces
from fw.binding.codegen.plan import Planner, StructPlan
from fw.binding.codegen.scan import scan_directory
from fw.codegen.errors import GenerationFailed
from fw.codegen.output import Output
from fw.errors import GenerationError
from fw.generate.openapi import document_output
from fw.generate.project import Project

OUTPUT_NAME = "_fw_binders.py"


def generate_binders(project: Project) -> list[Output]:
    """One ``_fw_binders.py`` per handlers directory (always written, even with no call in it)."""
    errors: list[GenerationError] = []
    outputs: list[Output] = []
    operations: dict[str, Any] = {}
    schemas: dict[str, Any] = {}
    for folder in project.handlers:
        if not folder.is_dir():
            errors.append(GenerationError(str(folder), 0, "handlers directory does not exist"))
            continue
        sites = scan_directory(folder, errors)
        planner = Planner(project.cbor)
        tops: dict[type, StructPlan] = {}
        for site in sites:
            if site.cls not in tops:
                tops[site.cls] = planner.plan(site.cls, top=True)
        errors.extend(planner.errors)
        if not planner.errors:
            pieces = operation_pieces(sites, tops, planner.plans, project.cbor)
            outputs.append(Output(folder / OUTPUT_NAME, emit_module(tops, pieces, project.cbor)))
            operations.update(pieces[0])
            schemas.update(pieces[1])
    if errors:
        raise GenerationFailed(errors)
    document = document_output(project, operations, schemas)
    if document is not None:
        outputs.append(document)
    return outputs
