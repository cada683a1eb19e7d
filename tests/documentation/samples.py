"""Reading the Python samples out of the documentation and running them as fw projects.

Each page's ``python`` blocks form one module, in page order (a later block may use what an
earlier one defined), inside a package of its own. It is run the way a project runs: first the
generators (``fw generate``) over the page's definitions, so ``fw.parse`` and ``fw.config``
find their binders and loaders, then the whole module. A block that cannot run on its own (an
excerpt of a larger program) is preceded by ``<!-- not-run: why -->``.
"""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
DOCS = REPO / "docs"
NOT_RUN = re.compile(r"^<!-- not-run: (?P<why>.*\S.*) -->$")
TIMEOUT = 240


@dataclass(frozen=True, slots=True)
class Sample:
    page: Path
    line: int
    code: str
    #: Why it is not run ("" for a sample that runs).
    not_run: str


def samples(page: Path) -> list[Sample]:
    """Every ``python`` fenced block of ``page``, with its not-run mark."""
    found: list[Sample] = []
    lines = page.read_text(encoding="utf-8").splitlines()
    previous = ""
    index = 0
    while index < len(lines):
        line = lines[index]
        if line.strip() == "```python":
            start = index + 1
            end = start
            while end < len(lines) and lines[end].strip() != "```":
                end += 1
            mark = NOT_RUN.match(previous.strip())
            code = "\n".join(lines[start:end]) + "\n"
            found.append(Sample(page, start + 1, code, mark["why"] if mark else ""))
            index = end + 1
            previous = ""
            continue
        if line.strip():
            previous = line
        index += 1
    return found


def pages() -> list[Path]:
    return [*sorted(DOCS.rglob("*.md")), REPO / "README.md"]


def _is_definition(node: ast.stmt) -> bool:
    """Imports, classes, functions, constants, the App and registrations: what may run early."""
    if isinstance(node, (ast.Import, ast.ImportFrom, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
        return True
    if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
        value = node.value
        return isinstance(value, ast.Constant) or (
            isinstance(value, ast.Call) and ast.unparse(value.func) in ("fw.App", "App")
        )
    if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
        return ast.unparse(node.value.func).rpartition(".")[2] in ("register_config", "register_subcommand")
    return False


def split(source: str) -> tuple[str, str]:
    """(definitions, the statements that use them), each in page order.

    The generators import the definitions; the rest runs in a second module that star-imports
    them. Two modules and not one: a test client serves from another thread, and a request
    that imports the generated binder (which imports the definitions) would otherwise wait
    for a module still being imported by the thread that sent it.
    """
    definitions: list[str] = []
    uses: list[str] = []
    for node in ast.parse(source).body:
        segment = ast.get_source_segment(source, node) or ""
        decorators = "".join(f"@{ast.unparse(item)}\n" for item in getattr(node, "decorator_list", []))
        (definitions if _is_definition(node) else uses).append(decorators + segment)
    return "\n\n".join(definitions) + "\n", "\n\n".join(uses) + "\n"


def package_name(page: Path) -> str:
    relative = page.relative_to(REPO).with_suffix("")
    return "docsample_" + re.sub(r"[^a-z0-9]+", "_", str(relative).lower()).strip("_")


def run_page(page: Path, base: Path) -> subprocess.CompletedProcess[str]:
    """Generate for, then run, the runnable samples of ``page`` in a project under ``base``."""
    runnable = [sample for sample in samples(page) if not sample.not_run]
    source = "\n\n".join(sample.code for sample in runnable)
    name = package_name(page)
    package = base / "src" / name
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (base / "pyproject.toml").write_text(
        f'[tool.fw.generate]\nhandlers = ["src/{name}"]\nconfig = ["src/{name}"]\n', encoding="utf-8"
    )
    env = dict(os.environ, PYTHONPATH=str(base / "src"))
    definitions, uses = split(source)
    (package / "sample.py").write_text(definitions, encoding="utf-8")
    generated = subprocess.run(
        [sys.executable, "-m", "fw.cli", "--project", str(base), "generate"],
        cwd=base, env=env, capture_output=True, text=True, timeout=TIMEOUT, check=False,
    )
    if generated.returncode != 0:
        return generated
    (package / "run.py").write_text(f"from {name}.sample import *  # noqa: F403\n\n{uses}", encoding="utf-8")
    return subprocess.run(
        [sys.executable, "-c", f"import {name}.run"],
        cwd=base, env=env, capture_output=True, text=True, timeout=TIMEOUT, check=False,
    )
