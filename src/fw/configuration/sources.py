"""Where configuration comes from besides the command line: APP_ENV, the file search, dotenv files.

The search is fixed by the spec (first readable file wins, nothing is merged) and adjustable
only before parsing through :func:`fw.set_config_load_options`.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TypedDict

from fw.configuration.quoting import quoted
from fw.errors import ConfigError

_APP_ENV = re.compile(r"[a-z0-9_-]+")
_DOTENV_LINE = re.compile(r"(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)")


@dataclass(frozen=True, slots=True)
class LoadOptions:
    """How the file and dotenv layers are found; see :func:`fw.set_config_load_options`.

    ``search_paths`` replaces the whole file search (``{env}`` stands for APP_ENV); ``None``
    keeps the spec's order. ``user_config_dir`` / ``system_config_dir`` default to
    ``$XDG_CONFIG_HOME/<app_name>`` (or ``~/.config/<app_name>``) and ``/etc/<app_name>``.
    """

    app_name: str | None = None
    search_paths: tuple[str, ...] | None = None
    user_config_dir: Path | None = None
    system_config_dir: Path | None = None
    dotenv_files: tuple[str, ...] = (".env", ".env.local", ".env.{env}", ".env.{env}.local")
    working_dir: Path | None = None

    def updated(self, **changes: object) -> LoadOptions:
        """A copy with ``changes``; an unknown name is a ``TypeError`` even for untyped callers."""
        known = {name for name in self.__dataclass_fields__}
        unknown = sorted(set(changes) - known)
        if unknown:
            raise TypeError(f"set_config_load_options: unknown option(s) {', '.join(unknown)}")
        cleaned: dict[str, object] = {}
        for name, value in changes.items():
            if name in ("search_paths", "dotenv_files") and value is not None:
                cleaned[name] = tuple(str(item) for item in value)  # type: ignore[attr-defined]
            elif name in ("user_config_dir", "system_config_dir", "working_dir") and value is not None:
                cleaned[name] = Path(str(value))
            else:
                cleaned[name] = value
        return replace(self, **cleaned)  # type: ignore[arg-type]


class LoadOptionChanges(TypedDict, total=False):
    """What :func:`fw.set_config_load_options` accepts, so a type checker catches a misspelling."""

    app_name: str | None
    search_paths: Sequence[str | os.PathLike[str]] | None
    user_config_dir: str | os.PathLike[str] | None
    system_config_dir: str | os.PathLike[str] | None
    dotenv_files: Sequence[str | os.PathLike[str]]
    working_dir: str | os.PathLike[str] | None


def app_env(environ: Mapping[str, str]) -> str:
    """APP_ENV from the process environment: unset or empty is ``dev``; a bad token fails."""
    value = environ.get("APP_ENV", "")
    if value == "":
        return "dev"
    if not _APP_ENV.fullmatch(value):
        raise ConfigError(
            "APP_ENV",
            "env:APP_ENV",
            f"invalid environment {quoted(value)}: use lower-case letters, digits, - and _",
        )
    return value


def candidate_files(options: LoadOptions, env_name: str, environ: Mapping[str, str]) -> list[Path]:
    """The spec's search order; a plain ``config.toml`` in the project tree is never among them."""
    cwd = options.working_dir or Path.cwd()
    if options.search_paths is not None:
        return [cwd / template.replace("{env}", env_name) for template in options.search_paths]
    app = options.app_name or "fw"
    if options.user_config_dir is not None:
        user = options.user_config_dir
    else:
        base = environ.get("XDG_CONFIG_HOME") or str(Path(environ.get("HOME", "~")).expanduser() / ".config")
        user = Path(base) / app
    system = options.system_config_dir or Path("/etc") / app
    return [
        cwd / f"config.{env_name}.toml",
        cwd / "config" / f"config.{env_name}.toml",
        user / "config.toml",
        system / "config.toml",
    ]


def find_file(candidates: list[Path]) -> Path | None:
    """First readable candidate wins; nothing is merged."""
    for candidate in candidates:
        if _is_file(candidate) and os.access(candidate, os.R_OK):
            return candidate
    return None


def _is_file(path: Path) -> bool:
    """``Path.is_file`` that treats an impossible name (too long, say) as absent, not a crash."""
    try:
        return path.is_file()
    except (OSError, ValueError):
        return False


def read_config_path(value: str, source: str) -> tuple[Path, str]:
    """``--config-path``: no fallback, so a missing, unreadable or directory path fails."""
    target = Path(value)
    if target.is_dir():
        raise ConfigError("", source, f"config path {value} is a directory, not a file")
    if not _is_file(target):
        raise ConfigError("", source, f"config file {value} does not exist")
    return target, read_text(target, source, "config file")


def read_text(path: Path, source: str, what: str) -> str:
    """A configuration file's text; unreadable or non-UTF-8 content is a ConfigError."""
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as error:
        raise ConfigError(
            "",
            source,
            f"{what} {path} is not UTF-8 text (byte {error.object[error.start]:#04x} "
            f"at offset {error.start})",
        ) from None
    except OSError as error:
        raise ConfigError("", source, f"{what} {path} cannot be read: {error.strerror or error}") from None


@dataclass
class EnvLayer:
    """Environment values by name, each with its source (process env over the dotenv files)."""

    values: dict[str, str] = field(default_factory=dict)
    sources: dict[str, str] = field(default_factory=dict)


def read_env(options: LoadOptions, env_name: str, environ: Mapping[str, str]) -> EnvLayer:
    """Dotenv files in order (later files override earlier), then the process environment."""
    layer = EnvLayer()
    cwd = options.working_dir or Path.cwd()
    for template in options.dotenv_files:
        name = template.replace("{env}", env_name)
        file = cwd / name
        if not _is_file(file):
            continue
        text = read_text(file, name, "dotenv file")
        for var, value, line in parse_dotenv(text, name):
            layer.values[var] = value
            layer.sources[var] = f"env:{var} ({name}:{line})"
    for var, value in environ.items():
        layer.values[var] = value
        layer.sources[var] = f"env:{var}"
    return layer


def parse_dotenv(text: str, name: str) -> list[tuple[str, str, int]]:
    """``KEY=value`` lines (optional ``export``, quotes, ``#`` comments); nothing is expanded."""
    found: list[tuple[str, str, int]] = []
    for lineno, raw in enumerate(text.split("\n"), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        match = _DOTENV_LINE.fullmatch(line)
        if match is None:
            raise ConfigError("", f"{name}:{lineno}", "invalid dotenv line: expected NAME=value")
        var, value = match.group(1), match.group(2).strip()
        if value[:1] in ('"', "'"):
            quote = value[0]
            end = value.find(quote, 1)
            if end < 0:
                raise ConfigError(var, f"{name}:{lineno}", "unterminated quoted value")
            body = value[1:end]
            if quote == '"':
                body = body.replace("\\n", "\n").replace('\\"', '"').replace("\\\\", "\\")
            value = body
        else:
            comment = value.find(" #")
            if comment >= 0:
                value = value[:comment].rstrip()
        found.append((var, value, lineno))
    return found
