"""``fw init``: a new, runnable fw project in one command.

A project gets a package under ``src/`` with its App (``main.py``), one registered config
dataclass (``settings.py``), a handler with a bound request (``handlers/``), ``config.dev.toml``
and ``config.prod.toml``, a README, tests using :mod:`fw.testing`, and the files fw generates
from those; web projects get Jinja2 pages extending one layout and ``static/`` files. The text
of every file comes from template files (:mod:`fw.scaffold.render`). Presets: ``web`` (browser
pages, sign-in with OpenID Connect by default) and ``api`` (JSON; a bearer-token API, jwt_only,
by default; with browser login, protected paths answer 401 instead of redirecting).
``--session`` and ``--db`` choose the stores (:mod:`fw.scaffold.storage`). Existing files are never
overwritten without ``--force``: the first conflict is named and nothing is written.
"""

from __future__ import annotations

import secrets
from pathlib import Path

import fw.scaffold.finish as finish
from fw.scaffold.options import AUTH_CHOICES, PRESETS, InitOptions, ScaffoldError, init_options
from fw.scaffold.project import generated_files, source_files

__all__ = ["AUTH_CHOICES", "PRESETS", "InitOptions", "ScaffoldError", "init_options", "scaffold"]


def _first_conflict(root: Path, paths: list[str]) -> Path | None:
    for relative in paths:
        if (root / relative).exists():
            return root / relative
    return None


def scaffold(options: InitOptions) -> list[Path]:
    """Write the project; return every file written, hand-written ones first."""
    root = options.directory.resolve()
    sources = source_files(options)
    planned = [*sources, *generated_files(options)]
    conflict = _first_conflict(root, planned)
    if conflict is not None and not options.force:
        raise ScaffoldError(f"{conflict} already exists; nothing was written (--force overwrites)")
    written: list[Path] = []
    for relative, text in sources.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(text, encoding="utf-8")
        written.append(path)
    finish.generate(root)
    example = root / ".env.example"
    configs = {file: sources[file] for file in ("config.dev.toml", "config.prod.toml")}
    texts = {file: text for file, text in configs.items() if isinstance(text, str)}
    example.write_text(finish.env_example(root, options.name, texts), encoding="utf-8")
    if options.session == "cookie":
        key = secrets.token_urlsafe(32)
        note = "# The key sealing session cookies (fw init drew it; never commit this file)."
        (root / ".env").write_text(f"{note}\nSESSION_KEYRING_SECRET={key}\n", encoding="utf-8")
    written.extend(root / relative for relative in generated_files(options))
    return written
