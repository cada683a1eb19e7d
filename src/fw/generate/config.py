"""The configuration half of ``fw generate``: each config directory gets one ``_fw_config.py``.

The steps live in :mod:`fw.configuration.codegen` (scan the register calls, plan each type,
check them together, emit the module); this module runs them over the directories of
``[tool.fw.generate] config``. When fw itself is the project (its package lies under the project
root), its own settings are regenerated too.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from pathlib import Path

from fw.codegen.errors import GenerationFailed
from fw.codegen.imports import forget_imports, source_files
from fw.codegen.output import Output
from fw.configuration.codegen.checks import check_together
from fw.configuration.codegen.emit import emit
from fw.configuration.codegen.plan import Plan, plan_call
from fw.configuration.codegen.scan import scan
from fw.errors import GenerationError
from fw.generate.project import Project

OUTPUT = "_fw_config.py"
#: fw's own package: its settings ship with a pre-generated loader.
_FW_DIR = Path(__file__).resolve().parents[1]


def generate_config(project: Project) -> list[Output]:
    folders = list(project.config)
    developing_fw = (project.root / "src" / "fw").resolve() == _FW_DIR
    if developing_fw and _FW_DIR not in folders:
        folders.insert(0, _FW_DIR)
    return generate_folders(folders)


def generate_folders(folders: Iterable[Path]) -> list[Output]:
    """Plan every registration of every folder, check them together, emit one file per folder."""
    errors: list[GenerationError] = []
    per_folder: list[tuple[Path, list[Plan]]] = []
    before = set(sys.modules)
    resolved = [folder.resolve() for folder in folders]
    try:
        for folder in resolved:
            plans: list[Plan] = []
            for call in scan(folder, _files(folder), errors):
                try:
                    plans.append(plan_call(call))
                except GenerationError as error:
                    errors.append(error)
            per_folder.append((folder, plans))
        errors.extend(check_together([plan for _, plans in per_folder for plan in plans]))
        if errors:
            raise GenerationFailed(errors)
        # Emitted while the modules read are still imported: the fingerprints resolve their annotations.
        return [Output(folder / OUTPUT, emit(plans)) for folder, plans in per_folder]
    finally:
        forget_imports(before, resolved)


#: The modules of fw declaring its own tables, in the order ``import fw`` registers them.
FW_SETTINGS_MODULES = (
    "settings.py",
    "auth/sessions/settings.py",
    "auth/stores/engines/rdb.py",
    "auth/stores/engines/dynamo.py",
    "auth/stores/engines/firestore.py",
    "auth/settings.py",
)


def _files(folder: Path) -> list[Path]:
    if folder == _FW_DIR:
        return [folder / name for name in FW_SETTINGS_MODULES]
    return source_files(folder)


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


if __name__ == "__main__":
    raise SystemExit(main())
