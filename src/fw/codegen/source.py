"""Reading a dataclass's declaration: its file and line, and each field's line and doc comment.

A field's doc comment is, in this order of precedence:

1. ``#:`` comment lines right above the field;
2. a comment at the end of the field's line (``city: str  # City of residence.``);
3. a string literal right after the field.

Tool directives (``# noqa: E501``, ``# type: ignore``, ``# fmt: skip``...) are never doc
comments. The class docstring is the class's doc comment. Source files are parsed with ``ast``
and ``tokenize`` and never executed here.
"""

from __future__ import annotations

import ast
import inspect
import io
import itertools
import re
import tokenize
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

_DIRECTIVE = re.compile(r"^(?:[A-Za-z_-]+:\S|(?:noqa|type:|pragma:|fmt:|pylint:|mypy:|isort:))")


def is_directive(text: str) -> bool:
    """A tool directive (``noqa:E501``, ``type: ignore``, ``fmt: skip``), not prose."""
    return bool(_DIRECTIVE.match(text.strip()))


@dataclass(frozen=True, slots=True)
class ClassSource:
    """Where a class is declared, its docstring, and per field its line and raw doc comment."""

    file: str
    line: int
    doc: str = ""
    lines: dict[str, int] = field(default_factory=dict)
    docs: dict[str, str] = field(default_factory=dict)

    def line_of(self, name: str) -> int:
        """The line of field ``name`` (the class line when the field is not written in the class)."""
        return self.lines.get(name, self.line)


@dataclass(frozen=True, slots=True)
class _File:
    tree: ast.Module
    lines: tuple[str, ...]
    #: Comments that end a line of code, by line number: the text after ``#`` (or ``#:``).
    trailing: dict[int, str]


def _read(file: str) -> _File:
    path = Path(file)
    stat = path.stat()
    return _parsed(file, stat.st_mtime_ns, stat.st_size)


@lru_cache(maxsize=64)
def _parsed(file: str, _mtime: int, _size: int) -> _File:
    """One parse per version of a file (the key changes when the file is rewritten)."""
    text = Path(file).read_text(encoding="utf-8")
    # Python ends lines at LF, CRLF or CR only (``splitlines`` would also split on U+2028 ...).
    return _File(ast.parse(text, file), tuple(re.split(r"\r\n|\r|\n", text)), _trailing_comments(text))


def _trailing_comments(text: str) -> dict[int, str]:
    found: dict[int, str] = {}
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError):
        return found
    for previous, token in itertools.pairwise(tokens):
        if (
            token.type == tokenize.COMMENT
            and previous.type not in (tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT)
            and previous.end[0] == token.start[0]
        ):
            comment = token.string[2:] if token.string.startswith("#:") else token.string[1:]
            if comment.strip() and not is_directive(comment):
                found[token.start[0]] = comment.strip()
    return found


def _class_node(tree: ast.Module, qualname: str) -> ast.ClassDef | None:
    node: ast.AST = tree
    for part in qualname.split("."):
        found = next(
            (
                child
                for child in ast.iter_child_nodes(node)
                if isinstance(child, ast.ClassDef) and child.name == part
            ),
            None,
        )
        if found is None:
            return None
        node = found
    return node if isinstance(node, ast.ClassDef) else None


def class_source(cls: type) -> ClassSource:
    """The declaration of ``cls`` as written; an unknown file or class gives line 0 and no docs."""
    try:
        file = inspect.getsourcefile(cls) or "<unknown>"
        parsed = _read(file)
    except (OSError, TypeError, SyntaxError, UnicodeDecodeError):
        return ClassSource(getattr(cls, "__module__", "<unknown>"), 0)
    node = _class_node(parsed.tree, cls.__qualname__)
    if node is None:
        return ClassSource(file, 0)
    out = ClassSource(file, node.lineno, ast.get_docstring(node) or "")
    for index, statement in enumerate(node.body):
        if isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name):
            name = statement.target.id
            out.lines[name] = statement.lineno
            following = node.body[index + 1] if index + 1 < len(node.body) else None
            doc = _field_doc(parsed, statement, following)
            if doc:
                out.docs[name] = doc
    return out


def _field_doc(parsed: _File, statement: ast.AnnAssign, following: ast.stmt | None) -> str:
    comments: list[str] = []
    row = statement.lineno - 2
    while row >= 0 and parsed.lines[row].strip().startswith("#:"):
        comments.insert(0, parsed.lines[row].strip()[2:].strip())
        row -= 1
    if comments:
        return "\n".join(comments).strip()
    trailing = parsed.trailing.get(statement.end_lineno or statement.lineno)
    if trailing:
        return trailing
    if (
        isinstance(following, ast.Expr)
        and isinstance(following.value, ast.Constant)
        and isinstance(following.value.value, str)
    ):
        return inspect.cleandoc(following.value.value)
    return ""
