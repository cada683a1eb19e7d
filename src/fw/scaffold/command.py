"""The ``fw init`` command line: ``fw init [DIRECTORY] [--name NAME] [--preset web|api] [--auth MODE]``.

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
    DEFAULT_AUTH,
    NOT_AVAILABLE,
    PRESETS,
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
        f"{DEFAULT_AUTH['api']} for api; {', '.join(sorted(NOT_AVAILABLE))}: not available yet; "
        "bearer-token APIs are configured by hand)",
    )
    parser.add_argument("--force", action="store_true", help="overwrite files that already exist")
    return parser


def parse_init_args(argv: Sequence[str]) -> InitOptions:
    args = _parser().parse_args(list(argv))
    return init_options(
        Path(args.directory), name=args.name, preset=args.preset, auth=args.auth, force=args.force
    )
