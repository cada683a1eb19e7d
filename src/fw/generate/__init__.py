"""``fw generate``: the build step that turns declarations into plain code.

Each pillar contributes a generator that reads its directories and returns the files it would
write. Files are written only when every generator succeeded, so a failed run never leaves half
an output behind, and each error points at file:line.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from fw.errors import GenerationError
from fw.generate.project import Project


@dataclass(frozen=True, slots=True)
class Output:
    """One generated file: where it goes and its full text."""

    path: Path
    text: str

    def write_if_changed(self) -> bool:
        """Write the file unless it already holds ``text``: a run that changes nothing touches nothing."""
        if self.path.exists() and self.path.read_text() == self.text:
            return False
        self.path.write_text(self.text)
        return True


class GenerationFailed(Exception):
    """Every generation error of one run, reported together."""

    def __init__(self, errors: Iterable[GenerationError]) -> None:
        self.errors = list(errors)
        super().__init__("\n".join(str(error) for error in self.errors))


Generator = Callable[[Project], list[Output]]


def _generators() -> list[Generator]:
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
