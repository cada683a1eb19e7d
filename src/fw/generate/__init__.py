"""``fw generate``: the build step that turns declarations into plain code.

This package only orchestrates. Each pillar's generator lives with the pillar
(:mod:`fw.binding.codegen`, :mod:`fw.configuration.codegen`) on the shared kit
(:mod:`fw.codegen`); the modules here run them over the project's directories and return the
files they would write. Files are written only when every generator succeeded, so a failed run
never leaves half an output behind, and every error points at file:line.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

from fw.codegen.errors import GenerationFailed
from fw.codegen.output import Output
from fw.errors import GenerationError
from fw.generate.project import Project

Generator = Callable[[Project], list[Output]]


def _generators() -> list[Generator]:
    """Imported when a run starts, so ``python -m fw.generate.config`` finds its module unloaded."""
    from fw.generate.binders import generate_binders
    from fw.generate.config import generate_config

    return [generate_config, generate_binders]


def generate(project: Project) -> list[Path]:
    """Run every generator; write the outputs that changed; return the paths written."""
    outputs: list[Output] = []
    errors: list[GenerationError] = []
    for generator in _generators():
        try:
            outputs.extend(generator(project))
        except GenerationFailed as failure:
            errors.extend(failure.errors)
    if errors:
        raise GenerationFailed(errors)
    return [output.path for output in outputs if output.write_if_changed()]


def is_stale(project: Project, outputs: Iterable[str] = ("_fw_config.py", "_fw_binders.py")) -> bool:
    """True when a source file in a generated directory is newer than that directory's outputs."""
    names = set(outputs)
    for folder in project.source_dirs:
        generated = [folder / name for name in names if (folder / name).exists()]
        newest_output = min((p.stat().st_mtime for p in generated), default=0.0)
        for source in folder.rglob("*.py"):
            if source.name not in names and source.stat().st_mtime > newest_output:
                return True
    return False


__all__ = ["GenerationFailed", "Output", "generate", "is_stale"]
