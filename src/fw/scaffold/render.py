"""The template files of ``fw init`` (``fw/scaffold/templates/``), rendered with Jinja2.

Two dialects, so that neither needs escaping inside the other: Python, TOML and Markdown files
(``project/``, ``package/``, ``tests/``) use Jinja's own ``{{ }}`` and ``{% %}``; the pages a
project gets (``pages/``) are themselves Jinja templates of the project, so the choices
``fw init`` makes in them are written ``[[ ]]`` and ``[% %]`` and the project's own ``{{ }}``
pass through. Files under ``static/`` are copied byte for byte. Every template is package
data: a wheel of fw carries them (``[tool.setuptools.package-data]``).
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from importlib.resources import files
from typing import Any

import jinja2

_PACKAGE = "fw.scaffold"
_FOLDER = "templates"


def _environment(
    block: tuple[str, str], variable: tuple[str, str], comment: tuple[str, str]
) -> jinja2.Environment:
    return jinja2.Environment(
        block_start_string=block[0],
        block_end_string=block[1],
        variable_start_string=variable[0],
        variable_end_string=variable[1],
        comment_start_string=comment[0],
        comment_end_string=comment[1],
        loader=jinja2.PackageLoader(_PACKAGE, _FOLDER),
        autoescape=False,  # the output is source code and markup templates, never a page itself
        undefined=jinja2.StrictUndefined,  # a missing value is a bug in fw init, not an empty string
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )


@cache
def _code() -> jinja2.Environment:
    return _environment(("{%", "%}"), ("{{", "}}"), ("{#", "#}"))


@cache
def _pages() -> jinja2.Environment:
    return _environment(("[%", "%]"), ("[[", "]]"), ("[#", "#]"))


def render(name: str, values: Mapping[str, Any]) -> str:
    """The text of template ``name`` (``project/README.md.j2``, ``pages/home.html``) for ``values``."""
    environment = _pages() if name.startswith("pages/") else _code()
    return environment.get_template(name).render(values)


def static(name: str) -> bytes:
    """The bytes of ``static/NAME``, copied into a project unchanged."""
    return (files(_PACKAGE) / _FOLDER / "static" / name).read_bytes()
