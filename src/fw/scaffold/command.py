"""The ``fw init`` command line: ``fw init [DIRECTORY] [--name NAME] [--preset web|api] [--auth MODE]
[--session STORE] [--db sqlite|postgres]``.

Parse errors are :class:`ScaffoldError` like every other refusal, so the command prints one line
instead of argparse's usage block and exit status 2.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path
from typing import NoReturn

from fw.scaffold.options import (
    AUTH_CHOICES,
    DB_CHOICES,
    DEFAULT_AUTH,
    NOT_AVAILABLE,
    PRESETS,
    SESSION_CHOICES,
    InitOptions,
    ScaffoldError,
    init_options,
)


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise ScaffoldError(f"init: {message} (fw init --help lists the options)")


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="fw init",
        description="Create a runnable fw project: package, config, a bound handler, tests, generated code.",
    )
    parser.add_argument("directory", nargs="?", default=".", help="where to create it (default: here)")
    parser.add_argument(
        "--name", help="package name and config prefix (default: the directory name, lower-cased, - as _)"
    )
    parser.add_argument(
        "--preset",
        default="web",
        help=f"{' or '.join(PRESETS)}: browser pages, or a JSON api-server (default: web)",
    )
    parser.add_argument(
        "--auth",
        metavar="MODE",
        help=f"one of {', '.join(AUTH_CHOICES)} (default: {DEFAULT_AUTH['web']} for web, "
        f"{DEFAULT_AUTH['api']} (a bearer-token API) for api"
        + (f"; {', '.join(sorted(NOT_AVAILABLE))}: not available yet" if NOT_AVAILABLE else "")
        + ")",
    )
    parser.add_argument(
        "--session",
        metavar="STORE",
        help=f"where browser sessions live: one of {', '.join(SESSION_CHOICES)} (default: rdb; "
        "dynamo and firestore keep every auth record there too)",
    )
    parser.add_argument(
        "--db",
        metavar="DATABASE",
        help=f"the SQL database: {' or '.join(DB_CHOICES)} (default: sqlite; not with dynamo or firestore)",
    )
    parser.add_argument("--force", action="store_true", help="overwrite files that already exist")
    return parser


def init_help() -> str:
    """What ``fw init --help`` prints: the usage line and every flag."""
    return _parser().format_help()


def parse_init_args(argv: Sequence[str]) -> InitOptions:
    args = _parser().parse_args(list(argv))
    return init_options(
        Path(args.directory),
        name=args.name,
        preset=args.preset,
        auth=args.auth,
        force=args.force,
        session=args.session,
        db=args.db,
    )
