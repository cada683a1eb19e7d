"""The committed OpenAPI document: where ``fw generate`` writes it, and its text.

The pieces (per handler an operation, per dataclass a schema) come from
:mod:`fw.binding.codegen.openapi`; the document assembles them with the App's route table, which
is why this step imports the application (``[tool.fw] app``).
"""

from __future__ import annotations

import importlib
import importlib.util
import json
from pathlib import Path
from typing import Any

from fw.codegen.errors import GenerationFailed
from fw.codegen.output import Output
from fw.errors import GenerationError
from fw.generate.project import Project


def document_path(project: Project) -> Path | None:
    """Where ``fw generate`` writes the OpenAPI document, or ``None`` when it writes none.

    ``[tool.fw.generate] openapi = "path/openapi.json"`` (relative to ``pyproject.toml``) or
    ``false``; by default ``openapi.json`` next to the module of ``[tool.fw] app``.
    """
    if not project.app or not project.handlers:
        return None
    setting = project.openapi
    if setting is False:
        return None
    if isinstance(setting, str) and setting:
        return (project.root / setting).resolve()
    if setting is not None:
        raise _failed(project, f"[tool.fw.generate] openapi must be a path or false, got {setting!r}")
    project.put_on_path()
    try:
        module = importlib.util.find_spec(project.app.partition(":")[0])
    except ImportError:
        module = None
    if module is None or module.origin is None:
        raise _failed(project, f"[tool.fw] app {project.app!r}: module not found")
    return Path(module.origin).parent / "openapi.json"


def document_output(project: Project, operations: dict[str, Any], schemas: dict[str, Any]) -> Output | None:
    """The OpenAPI document of ``[tool.fw] app`` as a file, assembled from this run's pieces.

    The App serves the same document at ``/openapi.json``; committing the file lets a review
    see every API change as a diff.
    """
    from fw.app import App
    from fw.binding.openapi_route import build_document

    path = document_path(project)
    if path is None:
        return None
    assert project.app is not None
    module_name, _, attribute = project.app.partition(":")
    try:
        app = getattr(importlib.import_module(module_name), attribute or "app")
    except Exception as failure:
        raise _failed(project, f"[tool.fw] app {project.app!r}: cannot import it: {failure}") from None
    if not isinstance(app, App):
        raise _failed(project, f"[tool.fw] app {project.app!r} is not an fw.App")
    document = build_document(app, pieces=(operations, schemas))
    return Output(path, json.dumps(document, indent=2, ensure_ascii=False) + "\n")


def _failed(project: Project, message: str) -> Exception:
    return GenerationFailed([GenerationError(str(project.root / "pyproject.toml"), 0, message)])
