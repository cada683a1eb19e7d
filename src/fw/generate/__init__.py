"""``fw generate``: the build step that turns declarations into plain code.

This package only orchestrates. Each pillar's generator lives with the pillar
(:mod:`fw.binding.codegen`, :mod:`fw.configuration.codegen`) on the shared kit
(:mod:`fw.codegen`); the modules here run them over the project's directories and return the
files they would write. Files are written only when every generator succeeded, so a failed run
never leaves half an output behind, and every error points at file:line.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

from fw.codegen.errors import GenerationFailed
from fw.codegen.imports import recording_reads, source_files
from fw.codegen.output import Output, is_generated
from fw.errors import GenerationError
from fw.generate.freshness import loaded_project_files, project_files, stale_reason, write_record
from fw.generate.project import Project

Generator = Callable[[Project], list[Output]]


def _generators() -> list[Generator]:
    """Imported when a run starts, so ``python -m fw.generate.config`` finds its module unloaded."""
    from fw.generate.binders import generate_binders
    from fw.generate.config import generate_config

    return [generate_config, generate_binders]


def generate(project: Project) -> list[Path]:
    """Run every generator; write the outputs that changed; return the paths written.

    Generated modules a run no longer produces inside the handlers folders are removed, and the
    run is recorded in ``.fw/`` (:mod:`fw.generate.freshness`) whether or not a file changed.
    """
    outputs: list[Output] = []
    errors: list[GenerationError] = []
    with recording_reads() as read:
        for generator in _generators():
            try:
                outputs.extend(generator(project))
            except GenerationFailed as failure:
                errors.extend(failure.errors)
    if errors:
        raise GenerationFailed(errors)
    written = [output.path for output in outputs if output.write_if_changed()]
    produced = {output.path for output in outputs}
    for leftover in _leftover_binders(project, produced):
        leftover.unlink()
        written.append(leftover)
    write_record(project, read | set(loaded_project_files(project)), produced)
    return written


def _leftover_binders(project: Project, produced: set[Path]) -> list[Path]:
    """``_fw_binders.py`` files in the handlers folders that this run did not produce (a package
    whose last bound type moved away): generated earlier, so removing them loses nothing."""
    return [
        path
        for folder in project.handlers
        if folder.is_dir()
        for path in source_files(folder, "_fw_binders.py")
        if path not in produced and is_generated(path)
    ]


def is_stale(project: Project) -> bool:
    """True when something generated code depends on changed since ``fw generate`` last ran."""
    return stale_reason(project) is not None


def regenerate_if_stale(project: Project) -> tuple[str | None, list[Path]]:
    """Regenerate when stale, so that this same process then serves the new code.

    Returns why it regenerated (``None``: it did not) and the paths written. A project whose
    generated folders are not here (an installed deployment) is left to the runtime's own check.
    Modules imported while generating are dropped again, and what they registered, so the
    application imported next reads the new generated modules, not the old ones.
    """
    if not any(folder.is_dir() for folder in project.source_dirs):
        return None, []
    reason = stale_reason(project)
    if reason is None:
        return None, []
    before = set(sys.modules)
    written = generate(project)
    forget_project_modules(project, before)
    return reason, written


def forget_project_modules(project: Project, before: set[str]) -> None:
    """Drop the project's modules (generated ones included) imported since ``before``."""
    from fw.binding import registry as binders
    from fw.configuration import registry as configuration

    dropped: list[str] = []
    for name in set(sys.modules) - before:
        file = getattr(sys.modules[name], "__file__", None)
        if file and (project_files(project, [Path(file)]) or Path(file).name.startswith("_fw_")):
            del sys.modules[name]
            dropped.append(name)
    binders.forget(dropped)
    configuration.forget(dropped)


__all__ = ["GenerationFailed", "Output", "generate", "is_stale", "regenerate_if_stale"]
