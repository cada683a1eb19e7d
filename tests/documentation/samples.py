"""Reading the Python samples out of the documentation and running them as fw projects.

Each page's ``python`` blocks form one module, in page order (a later block may use what an
earlier one defined), inside a package of its own. It is run the way a project runs: first the
generators (``fw generate``) over the page's definitions, so ``fw.parse`` and ``fw.config``
find their binders and loaders, then the rest of the page in order, in that module. A block
that cannot run on its own (an excerpt of a larger program) is preceded by
``<!-- not-run: why -->``.
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


def definitions(source: str) -> str:
    """The part of a page's module the generators import: its definitions, in page order.

    The generators import what they read, and statements that use what is generated (a request
    through a test client, ``fw.config``) cannot run before it exists.
    """
    kept: list[str] = []
    for node in ast.parse(source).body:
        if _is_definition(node):
            decorators = "".join(f"@{ast.unparse(item)}\n" for item in getattr(node, "decorator_list", []))
            kept.append(decorators + (ast.get_source_segment(source, node) or ""))
    return "\n\n".join(kept) + "\n"


#: Runs the rest of the page, in order, inside the module the generators read (whose import ran
#: the definitions once: a registration or a class is never made twice). Not as an import of its
#: own: a test client serves from another thread, and a request importing the generated binder
#: (which imports the module) would wait for an import still running in the thread that sent it.
_RUN = """\
import ast, importlib, pathlib, sys
module = importlib.import_module(sys.argv[1])
page = pathlib.Path(module.__file__).with_name("page.py")
tree = ast.parse(page.read_text(encoding="utf-8"))
tree.body = [node for node in tree.body if node.lineno in set(map(int, sys.argv[2:]))]
sys.argv = [str(page)]  # as a script run without arguments sees it (fw.parse_config reads it)
exec(compile(tree, str(page), "exec"), module.__dict__)
"""


def uses(source: str) -> list[int]:
    """First lines of the statements that are not definitions (what runs after generation)."""
    return [node.lineno for node in ast.parse(source).body if not _is_definition(node)]


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
    (package / "sample.py").write_text(definitions(source), encoding="utf-8")
    generated = _python(["-m", "fw.cli", "--project", str(base), "generate"], base, env)
    if generated.returncode != 0:
        return generated
    (package / "page.py").write_text(source, encoding="utf-8")
    return _python(["-c", _RUN, f"{name}.sample", *map(str, uses(source))], base, env)


# subprocess.run spelled out: its keyword arguments are all it shares with other tests' runs.
def _python(arguments: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """This interpreter run with ``arguments`` in ``cwd``, its output captured, bounded in time."""
    return subprocess.run(
        [sys.executable, *arguments],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )
