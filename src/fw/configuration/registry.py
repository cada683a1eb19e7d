"""Configuration state: registrations, the parsed values, the chosen sub-command.

Each parse makes a new :class:`State` (a :data:`Configuration`): the one in force for this process
(or for a :func:`fw.testing.configured` block) is :func:`state`, and an App keeps the one it first
started under (:mod:`fw.configuration.owner`), so a later parse never changes what a started App
reads.

Registration only records the type and its prefix. The generated loader is looked up when
configuration is first parsed or read, not while the registering module is still being imported:
a package whose settings are split over several modules registers them in any import order, and
the error of a stale or missing loader surfaces only when configuration is parsed or read, so
``import fw`` works even while a loader is stale and ``fw generate`` can always run to refresh it.
"""

from __future__ import annotations

import dataclasses
import importlib
import os
import sys
import typing
import warnings
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any, TypeVar, Unpack

import fw.configuration.doctor as _doctor
import fw.configuration.summary as _summary
from fw.codegen import naming
from fw.configuration.activity import inactive_subtrees
from fw.configuration.advisory import Advisory
from fw.configuration.argv import ParsedArgs, parse_argv
from fw.configuration.choices import choices, unknown_extensions
from fw.configuration.effective import in_effect
from fw.configuration.masking import hidden_keys, hide_names, redact, secret_texts
from fw.configuration.removed import check_removed, removed_keys
from fw.configuration.resolve import Resolved, resolve
from fw.configuration.schema import Command, Field, Loader, fingerprint, name_clashes, type_name
from fw.configuration.sources import (
    EnvLayer,
    LoadOptionChanges,
    LoadOptions,
    app_env,
    candidate_files,
    find_file,
    read_config_path,
    read_env,
    read_text,
)
from fw.configuration.templates import env_template, toml_template
from fw.configuration.tomlfile import FileLayer, parse_file
from fw.configuration.usage import usage
from fw.errors import ConfigError

T = TypeVar("T")

#: How a file layer given as text (not read from disk) is named in sources: ``file:<toml>:LINE``.
TOML_SOURCE = "<toml>"


@dataclass
class Registration:
    cls: type
    name: str
    #: The generated loader, looked up on first use (``None`` until then, or when there is none).
    loader: Loader | Command | None = None
    problem: str | None = None
    looked_up: bool = False

    def resolve(self, table: str) -> None:
        """Find the generated loader (``LOADERS``) or sub-command (``COMMANDS``) once."""
        if self.looked_up:
            return
        loader, problem = _lookup(self.cls, table)
        if isinstance(loader, Loader) and loader.prefix != self.name:
            problem = (
                f"the generated loader of {type_name(self.cls)} is for prefix {loader.prefix!r}, not "
                f"{self.name!r}: run `fw generate`"
            )
            loader = None
        if isinstance(loader, Command) and loader.name != self.name:
            problem = (
                f"the generated sub-command of {type_name(self.cls)} is {loader.name!r}: run `fw generate`"
            )
            loader = None
        self.loader, self.problem, self.looked_up = loader, problem, True


@dataclass
class State:
    configs: dict[str, Registration] = field(default_factory=dict)
    commands: dict[str, Registration] = field(default_factory=dict)
    options: LoadOptions = field(default_factory=LoadOptions)
    parsed: bool = False
    resolved: Resolved | None = None
    file: FileLayer | None = None
    instances: dict[type, Any] = field(default_factory=dict)
    selected: tuple[type, Any] | None = None
    template: str | None = None
    app_env: str = "dev"
    summary_printed: bool = False
    #: The paths the file search tried (``None``: the layers were given, or a path named).
    searched: tuple[Path, ...] | None = None
    #: Parsed from exactly the layers a test gave (:func:`parse_layers`, ``fw.testing.configured``),
    #: not from the files, the environment and the command line of the process.
    given: bool = False

    # Reading one configuration (the module-level functions read the one in force).
    def config(self, cls: type[T]) -> T:
        """The typed configuration for ``cls``: parsed values, else declared defaults, else zero."""
        if self.parsed and cls in self.instances:
            return typing.cast(T, self.instances[cls])
        for registration in self.configs.values():
            if registration.cls is cls:
                loader = _loader(registration)
                return typing.cast(T, loader.build(loader.initial_values()))
        loader_or_command, _ = _lookup(cls, "LOADERS")
        if isinstance(loader_or_command, Loader):
            return typing.cast(T, loader_or_command.build(loader_or_command.zero_values()))
        return typing.cast(T, zero_value(cls))

    def source_of(self, key: str) -> str:
        """The winning source of ``key``: ``default``, ``file:PATH:LINE``, ``env:NAME``, ``option:--x``."""
        if not self.parsed or self.resolved is None:
            return "default"
        if key not in self.resolved.sources:
            raise KeyError(key)
        return self.resolved.sources[key]

    def values(self) -> Mapping[str, Any]:
        """Every resolved key and its value (empty before parsing)."""
        return self.resolved.values if self.resolved is not None else {}

    def print_summary_once(self) -> None:
        """Write this configuration's startup summary once (a Rich tree on a terminal, else one
        JSON line)."""
        if self.summary_printed or self.template is not None or not self.parsed:
            return
        assert self.resolved is not None
        self.summary_printed = True
        _summary.write(
            _summary_items(self),
            self.app_env,
            self.file.path if self.file else None,
            advisories=_advisories(self),
        )


#: One parsed configuration: what an App runs under, and what ``fw.config`` reads.
Configuration = State

_state = State()
#: fw's own registrations (any module of the ``fw`` package), in order: :func:`reset` keeps them.
_builtin: list[tuple[type, str]] = []
_generating: list[tuple[str, type, str]] | None = None


# Registration.
def is_framework_module(name: str) -> bool:
    """Whether the module ``name`` is fw's own: fw's tables are declared across its package
    (:mod:`fw.settings`, :mod:`fw.auth.settings`, each store engine's declaration...)."""
    return name == "fw" or name.startswith("fw.")


def register_config(cls: type[T], prefix: str) -> None:
    """Declare ``cls`` as the configuration under ``prefix``; call at import time, before parsing."""
    if _generating is not None:
        _generating.append(("config", cls, prefix))
        return
    if _state.parsed:
        raise RuntimeError(
            f"register_config({cls.__qualname__}, {prefix!r}) after parse_config: register at import time"
        )
    if not isinstance(prefix, str) or not prefix:
        raise ValueError("register_config needs a non-empty prefix string literal")
    if is_framework_module(cls.__module__) and (cls, prefix) not in _builtin:
        _builtin.append((cls, prefix))
    existing = _state.configs.get(prefix)
    if existing is not None and existing.cls is not cls:
        raise RuntimeError(
            f"prefix {prefix!r} is already registered by {type_name(existing.cls)}: use one prefix per area"
        )
    for other in _state.configs.values():
        if other.cls is cls and other.name != prefix:
            raise RuntimeError(f"{type_name(cls)} is already registered under prefix {other.name!r}")
    _state.configs[prefix] = Registration(cls, prefix)


def register_subcommand(cls: type[T], name: str, description: str = "") -> None:
    """Declare a sub-command whose options and positionals fill ``cls`` from the command line."""
    if _generating is not None:
        _generating.append(("command", cls, name))
        return
    if _state.parsed:
        raise RuntimeError(f"register_subcommand({cls.__qualname__}, {name!r}) after parse_config")
    if not isinstance(name, str) or not name:
        raise ValueError("register_subcommand needs a non-empty name")
    existing = _state.commands.get(name)
    if existing is not None and existing.cls is not cls:
        raise RuntimeError(f"sub-command {name!r} is already registered by {type_name(existing.cls)}")
    _state.commands[name] = Registration(cls, name)


def subcommand(cls: type[T], name: str, description: str = "") -> None:
    """Deprecated alias of :func:`register_subcommand`."""
    warnings.warn("fw.subcommand is deprecated; use fw.register_subcommand", DeprecationWarning, stacklevel=2)
    register_subcommand(cls, name, description)


def module_name(cls: type) -> str:
    """The importable module name of ``cls`` (a ``python -m`` or script ``__main__`` resolved)."""
    return naming.module_name(cls.__module__)


def loader_modules(cls: type) -> list[str]:
    """Where the loader of ``cls`` may live: ``_fw_config`` of its package, then of each parent."""
    package = naming.package_of(cls.__module__)
    parts = package.split(".") if package else []
    return [".".join(parts[:end]) + "._fw_config" for end in range(len(parts), 0, -1)] or ["_fw_config"]


def _lookup(cls: type, table: str) -> tuple[Loader | Command | None, str | None]:
    name = f"{module_name(cls)}:{cls.__qualname__}"
    for candidate in loader_modules(cls):
        try:
            generated = importlib.import_module(candidate)
        except ModuleNotFoundError as error:
            if error.name is not None and (candidate == error.name or candidate.startswith(error.name + ".")):
                continue
            return (
                None,
                f"the generated loader module {candidate} cannot be imported ({error}): run `fw generate`",
            )
        except Exception as error:
            return (
                None,
                f"the generated loader module {candidate} cannot be imported "
                f"({type(error).__name__}: {error}): run `fw generate`",
            )
        entry = getattr(generated, table, {}).get(name)
        if entry is None:
            continue
        try:
            classes = tuple(entry.classes())
        except Exception as error:  # written by an fw whose loader shape is gone
            return None, f"the generated loader of {name} is stale ({error}): run `fw generate`"
        gone = naming.missing_among(classes)
        if gone is not None:
            return None, f"the generated loader of {name} is stale ({gone.why}): run `fw generate`"
        if fingerprint(classes) != entry.fingerprint:
            return (
                None,
                f"the generated loader of {name} is stale (the declaration, a type it uses, or fw itself "
                "changed): run `fw generate`",
            )
        return entry, None
    return (
        None,
        f"no generated configuration loader for {name}: run `fw generate` (is its directory listed in "
        "[tool.fw.generate] config?)",
    )


def _loader(registration: Registration) -> Loader:
    registration.resolve("LOADERS")
    if not isinstance(registration.loader, Loader):
        raise ConfigError(registration.name, "", registration.problem or "no generated loader")
    return registration.loader


def _command(registration: Registration) -> Command:
    registration.resolve("COMMANDS")
    if not isinstance(registration.loader, Command):
        raise ConfigError(registration.name, "", registration.problem or "no generated sub-command")
    return registration.loader


# Load options.
def set_config_load_options(**options: Unpack[LoadOptionChanges]) -> None:
    """Adjust the file search before parsing (``app_name``, ``search_paths``, ``user_config_dir``,
    ``system_config_dir``, ``dotenv_files``, ``working_dir``)."""
    if _state.parsed:
        raise RuntimeError("set_config_load_options after parse_config: adjust the search before parsing")
    _state.options = _state.options.updated(**options)


# Parsing.
def _option_table(loaders: Sequence[Loader]) -> dict[str, Field]:
    """Every command-line option of ``loaders``; a name two registered types share is refused."""
    owned = [(spec, f"{spec.key} of {loader.type_name}") for loader in loaders for spec in loader.fields]
    for name, first, second in name_clashes(owned):
        raise ConfigError("", "", f"{name} is declared by both {first} and {second}")
    return {option: spec for spec, _ in owned for option in spec.opts}


def _default_app_name() -> str:
    for registration in _state.configs.values():
        name = module_name(registration.cls)
        if not name.startswith("fw."):
            return name.split(".")[0]
    return "fw"


def parse_config(argv: Sequence[str] | None = None) -> None:
    """Load every registered configuration from defaults, file, environment and ``argv``."""
    if _generating is not None:
        return  # a module imported by ``fw generate`` is being read, not run
    _parse(list(sys.argv[1:] if argv is None else argv), dict(os.environ), None)


def parse_layers(argv: Sequence[str], environ: Mapping[str, str], toml: str) -> None:
    """Parse from exactly these layers: ``toml`` is the file (``""``: none), ``environ`` the whole
    environment; no file is searched and no dotenv file is read (:func:`fw.testing.configured`)."""
    _parse(list(argv), dict(environ), toml)


def _parse(args: list[str], environ: dict[str, str], toml: str | None) -> None:
    """The one parsing path; ``toml is None`` means a real process (dotenv files, file search).

    It puts a new :class:`State` in force (the one replaced is left as it was: an App started
    under it keeps reading it).
    """
    global _state
    loaders = [_loader(registration) for registration in _state.configs.values()]
    commands = {name: _command(registration) for name, registration in _state.commands.items()}
    unknown = unknown_extensions(
        [spec for loader in loaders for spec in loader.fields]
        + [spec for command in commands.values() for spec in command.fields]
    )
    if unknown:
        raise ConfigError(unknown[0], "extend_choices", "no registered configuration declares choices for it")
    cli = parse_argv(args, _option_table(loaders), commands)
    base = _state
    state = State(configs=dict(base.configs), commands=dict(base.commands), options=base.options)
    state.template = cli.template
    if cli.template is not None:
        resolved = resolve(loaders, None, {}, {}, {})
        state.file = None
    else:
        state.app_env = app_env(environ)
        state.searched = None
        if toml is None:
            options = state.options
            if options.app_name is None:
                options = dataclasses.replace(options, app_name=_default_app_name())
            env = read_env(options, state.app_env, environ)
            if cli.config_path is None:
                state.searched = tuple(candidate_files(options, state.app_env, env.values))
            state.file = _read_file(cli, options, state.app_env, env.values)
        else:
            env = EnvLayer(dict(environ), {name: f"env:{name}" for name in environ})
            state.file = _given_file(cli, toml, environ)
        resolved = resolve(loaders, state.file, env.values, env.sources, cli.values)
        check_removed(loaders, resolved.values, resolved.sources)
    state.resolved = resolved
    state.instances = {
        registration.cls: _loader(registration).build(resolved.values)
        for registration in state.configs.values()
    }
    state.selected = None
    if cli.command is not None:
        values = cli.command.initial_values()
        values.update({key: value for key, (value, _) in cli.command_values.items()})
        registration = state.commands[cli.command.name]
        state.selected = (registration.cls, cli.command.build(values))
    state.parsed = True
    state.given = toml is not None
    _state = state


def _read_file(
    cli: ParsedArgs, options: LoadOptions, env_name: str, environ: Mapping[str, str]
) -> FileLayer | None:
    if cli.config_path is not None:
        path, text = read_config_path(*cli.config_path)
        return parse_file(text, str(path), environ)
    found = find_file(candidate_files(options, env_name, environ))
    if found is None:
        return None
    return parse_file(read_text(found, f"file:{found}", "config file"), str(found), environ)


def _given_file(cli: ParsedArgs, toml: str, environ: Mapping[str, str]) -> FileLayer | None:
    """The file layer of :func:`parse_layers`: the given text, or an explicit ``--config-path``."""
    if cli.config_path is not None:
        if toml:
            raise ConfigError("", cli.config_path[1], "give the file as toml= or --config-path, not both")
        path, text = read_config_path(*cli.config_path)
        return parse_file(text, str(path), environ)
    return parse_file(toml, TOML_SOURCE, environ) if toml else None


#: Told when configuration is parsed implicitly or an App starts with no given layers in force
#: (see :func:`watch_implicit_parse`); called with what happened (``"parsed its configuration
#: implicitly"``, ``"started an App"``).
_implicit_parse_watcher: typing.Callable[[str], None] | None = None


def watch_implicit_parse(watcher: typing.Callable[[str], None] | None) -> typing.Callable[[str], None] | None:
    """Have ``watcher`` called each time :func:`ensure_parsed` is about to read the default files
    and the environment because nothing was parsed, and each time an App starts under a
    configuration that was not given as layers (:func:`report_unconfigured`); returns the
    watcher it replaces.

    fw's pytest plugin warns there: in a test, either is a missing ``fw.testing.configured``.
    The watcher is not configuration state, so ``configured`` blocks and :func:`restore` keep it.
    """
    global _implicit_parse_watcher
    previous, _implicit_parse_watcher = _implicit_parse_watcher, watcher
    return previous


def report_unconfigured(what: str) -> None:
    """Tell the watcher that ``what`` happened with no given layers in force (an App started)."""
    if _implicit_parse_watcher is not None:
        _implicit_parse_watcher(what)


def ensure_parsed() -> None:
    """Parse with no arguments when nothing parsed yet (the App started under a plain ASGI server)."""
    if not _state.parsed:
        report_unconfigured("parsed its configuration implicitly")
        parse_config([])


def requested_template() -> str | None:
    """What to print instead of serving: ``--generate-config toml|env`` or ``--help``."""
    if _state.template is None:
        return None
    loaders = [_loader(registration) for registration in _state.configs.values()]
    if _state.template == "help":
        commands = {name: _command(registration) for name, registration in _state.commands.items()}
        return usage(loaders, commands, removed_keys())
    if _state.template == "toml":
        return toml_template(loaders, removed_keys())
    return env_template(loaders, removed_keys())


def registered_loaders() -> list[Loader]:
    """The key tables of every registered type (for references and templates), in registration order."""
    return [_loader(registration) for registration in _state.configs.values()]


# Reading.
def config(cls: type[T], request: object = None) -> T:
    """The typed configuration for ``cls`` in force: parsed values, else declared defaults, else
    zero. ``fw.config`` (:func:`fw.configuration.owner.config`) also finds the App serving ``request``."""
    del request
    return _state.config(cls)


def choices_of(key: str) -> tuple[str, ...]:
    """The values the registered choice key ``key`` accepts now (declared, then extended);
    ``KeyError`` when no registered configuration declares ``key`` as a choice key."""
    for registration in _state.configs.values():
        for spec in _loader(registration).fields:
            if spec.key == key and spec.choices:
                return tuple(value for value in choices(spec) if value)
    raise KeyError(key)


def command(cls: type[T]) -> T | None:
    """The parsed options of the selected sub-command, or ``None`` for any other (or none)."""
    if _state.selected is not None and _state.selected[0] is cls:
        return typing.cast(T, _state.selected[1])
    return None


def current_app_env() -> str:
    """``APP_ENV`` as the parsed configuration read it (``dev`` when unset)."""
    ensure_parsed()
    return _state.app_env


def key_of_variable(name: str) -> str | None:
    """The registered key the environment variable ``name`` sets, or ``None``."""
    for loader in registered_loaders():
        for spec in loader.fields:
            if spec.env == name:
                return spec.key
    return None


def source_of(key: str) -> str:
    """The winning source of ``key``: ``default``, ``file:PATH:LINE``, ``env:NAME``, ``option:--x``."""
    return _state.source_of(key)


def print_summary_once() -> None:
    """Write the startup summary of the configuration in force once (parsing it first when
    nothing was parsed)."""
    if _state.summary_printed or _state.template is not None:
        return
    ensure_parsed()
    _state.print_summary_once()


def _parsed() -> tuple[Resolved, list[Loader]]:
    """The resolved layers and the loaders behind them, parsing first when nothing was parsed."""
    ensure_parsed()
    assert _state.resolved is not None
    return _state.resolved, [_loader(registration) for registration in _state.configs.values()]


def summary_items() -> list[_summary.Item]:
    """What the startup summary lists: shown keys, minus dependents of off keys and inactive
    subtrees, each key a pillar decides at run time at the value in effect (``server.docs``)."""
    ensure_parsed()
    return _summary_items(_state)


def _summary_items(state: State) -> list[_summary.Item]:
    assert state.resolved is not None
    resolved = state.resolved
    loaders = [_loader(registration) for registration in state.configs.values()]
    left_out = inactive_subtrees(resolved.values) | removed_keys()
    values, sources = in_effect(resolved.values, resolved.sources, state.app_env)
    return _summary.items(loaders, values, sources, left_out)


def advisories() -> list[Advisory]:
    """The configuration advisories (``fw doctor`` and the startup summary): secret values masked,
    and no key marked ``secret("hide")`` named (nor its value shown)."""
    ensure_parsed()
    return _advisories(_state)


def _advisories(state: State) -> list[Advisory]:
    assert state.resolved is not None
    resolved = state.resolved
    loaders = [_loader(registration) for registration in state.configs.values()]
    values = resolved.values
    found = _doctor.advisories(
        loaders,
        values,
        resolved.sources,
        state.file,
        state.app_env,
        searched=state.searched,
        working_dir=state.options.working_dir,
        removed=removed_keys(),
    )
    secrets = secret_texts(loaders, values)
    hidden = hidden_keys(loaders)
    return [
        Advisory(
            item.level,
            "" if item.key in hidden else item.key,
            hide_names(redact(item.msg, secrets), hidden),
        )
        for item in found
    ]


def checked() -> str:
    """What :func:`advisories` looked at, for ``fw doctor``'s closing ``checked:`` lines."""
    _, loaders = _parsed()
    return _doctor.checked(loaders, _state.file, _state.app_env)


# Side-effect-free loading, for tests of any pillar.
def load(
    cls: type[T],
    prefix: str,
    *,
    toml: str = "",
    env: Mapping[str, str] | None = None,
    argv: Sequence[str] = (),
) -> T:
    """Resolve one type from the given layers only: no files searched, no process state touched."""
    loader, problem = _lookup(cls, "LOADERS")
    if not isinstance(loader, Loader):
        raise ConfigError(prefix, "", problem or "no generated loader")
    if loader.prefix != prefix:
        raise ConfigError(prefix, "", f"{loader.type_name} is generated for prefix {loader.prefix!r}")
    environ = dict(env or {})
    cli = parse_argv(list(argv), _option_table([loader]), {})
    file = parse_file(toml, TOML_SOURCE, environ) if toml else None
    resolved = resolve([loader], file, environ, {}, cli.values)
    check_removed([loader], resolved.values, resolved.sources)
    return typing.cast(T, loader.build(resolved.values))


def forget(modules: Collection[str]) -> None:
    """Forget the registrations made by ``modules`` (dropped from ``sys.modules`` to be imported
    again) and look every other registration's loader up again on next use: ``fw generate`` ran
    in this process and may have rewritten them."""
    for table in (_state.configs, _state.commands):
        for name in [name for name, registration in table.items() if registration.cls.__module__ in modules]:
            del table[name]
        for registration in table.values():
            registration.looked_up = False


# Test support.
def reset() -> None:
    """A fresh registry holding only the framework's own registrations (for tests)."""
    global _state
    _state = State()
    for cls, prefix in _builtin:
        register_config(cls, prefix)


def state() -> State:
    return _state


def restore(saved: State) -> None:
    """Put back a state taken with :func:`state` (tests: leave the registry as it was found)."""
    global _state
    _state = saved


def unparsed_copy(current: State) -> State:
    """The same registrations and load options, nothing parsed: a scratch state for one test."""
    return State(configs=dict(current.configs), commands=dict(current.commands), options=current.options)


def begin_generation() -> list[tuple[str, type, str]]:
    """Record registrations instead of loading them (``fw generate`` imports modules)."""
    global _generating
    _generating = []
    return _generating


def end_generation() -> None:
    global _generating
    _generating = None


def zero_value(cls: type) -> Any:
    """The zero value of a type without a generated loader (never registered anywhere)."""
    if not dataclasses.is_dataclass(cls):
        return cls()
    hints = typing.get_type_hints(cls)
    kwargs: dict[str, Any] = {}
    for item in dataclasses.fields(cls):
        if not item.init:
            continue
        if item.default is not dataclasses.MISSING or item.default_factory is not dataclasses.MISSING:
            continue
        kwargs[item.name] = _zero_of(hints[item.name])
    return cls(**kwargs)


def _zero_of(hint: Any) -> Any:
    origin = typing.get_origin(hint)
    if origin is typing.Union or (origin is not None and type(None) in typing.get_args(hint)):
        return None
    if origin is not None:
        return origin() if origin in (list, dict, set, tuple) else None
    if hint is timedelta:
        return timedelta(0)
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        return zero_value(hint)
    if isinstance(hint, type):
        try:
            return hint()
        except TypeError:
            return None
    return None
