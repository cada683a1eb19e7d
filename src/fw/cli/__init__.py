"""The ``fw`` command: generate, run, dev, doctor, migrate, routes, init, completion.

Every sub-command that starts or checks the application reads ``[tool.fw]`` from the nearest
``pyproject.toml``; errors print one line to stderr and exit non-zero, never a traceback.
``fw COMMAND --help`` is answered first, from text alone (:mod:`fw.cli.usage`), so it does
nothing else wherever it is typed.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import importlib
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from fw.cli.usage import CONFIGURED, command_help, wants_help
from fw.codegen.output import fw_version
from fw.errors import ConfigError, StartupError
from fw.generate import GenerationFailed, generate, regenerate_if_stale
from fw.generate.project import Project, ProjectError, load_project

if TYPE_CHECKING:
    from fw.app import App


def _fail(message: str, status: int = 1) -> int:
    sys.stderr.write(f"fw: {message}\n")
    return status


def _import_app(project: Project) -> object:
    if not project.app or ":" not in project.app:
        raise ProjectError('[tool.fw] app must name the App object as "module:attribute"')
    module_name, _, attribute = project.app.partition(":")
    project.put_on_path()  # so a fresh checkout runs uninstalled
    module = importlib.import_module(module_name)
    try:
        return getattr(module, attribute)
    except AttributeError:
        raise ProjectError(f"[tool.fw] app: {module_name} has no attribute {attribute!r}") from None


def _the_app(project: Project) -> App:
    """The ``fw.App`` that ``[tool.fw] app`` names; anything else is a project error."""
    from fw.app import App

    app = _import_app(project)
    if not isinstance(app, App):
        raise ProjectError(f"[tool.fw] app {project.app} is not an fw.App")
    return app


def _regenerate_if_stale(project: Project) -> None:
    reason, written = regenerate_if_stale(project)
    if reason is not None:
        sys.stderr.write(f"fw: generated code checked ({reason})\n")
    for path in written:
        sys.stderr.write(f"fw: regenerated {path.relative_to(project.root)}\n")


def cmd_generate(project: Project, rest: list[str]) -> int:
    if rest:
        return _fail(f"generate takes no arguments, got {rest[0]!r} (fw generate --help)", 2)
    written = generate(project)
    for path in written:
        print(f"wrote {path.relative_to(project.root)}")
    if not written:
        print("generated code is up to date")
    return 0


def cmd_run(project: Project, rest: list[str]) -> int:
    from fw.app import run

    _regenerate_if_stale(project)
    run(_the_app(project), rest)
    return 0


def cmd_dev(project: Project, rest: list[str]) -> int:
    """Development server: regenerate, apply migrations, start the development provider if asked."""
    from fw.cli.devserver import run_dev

    _regenerate_if_stale(project)
    return run_dev(project, rest, import_app=_import_app)


def cmd_doctor(project: Project, rest: list[str]) -> int:
    """Parse configuration and run every startup check without serving, then contact what the
    App reaches only later (an identity provider: discovery and keys, see :class:`fw.extension.Probed`).

    ``--fix`` first creates the deployment resources fw can create itself (the DynamoDB table and
    its TTL setting, as ``fw migrate`` does), then checks.
    """
    from fw import configuration
    from fw.cli.devonly import parse_without_dev
    from fw.generate.checks import generated_problems

    fix = "--fix" in rest
    rest = [argument for argument in rest if argument != "--fix"]
    app = _the_app(project)
    missing = parse_without_dev(lambda: configuration.parse_config(rest))
    if fix:
        for line in asyncio.run(_migrate_cloud_stores()):
            print(f"fixed: {line}")
    problems = configuration.doctor_report()
    if missing:  # fw dev sets them; anywhere else fw run would refuse to start without them
        level = "warning" if configuration.current_app_env() == "dev" else "error"
        problems.insert(0, f"{level}: {missing.line()}")
    problems.extend(generated_problems(project))

    async def check() -> None:
        await app.startup()
        try:
            if not missing:  # with fw dev's stand-ins there is no provider to contact
                problems.extend(f"error: {refusal}" for refusal in await _probe(app))
        finally:
            await app.shutdown()

    try:
        asyncio.run(check())
    except StartupError as error:
        if error.key not in missing.keys:  # else it refused a stand-in, already reported as not set
            problems.append(f"error: {error}")
    for line in problems:
        print(line)
    standing_in = f", with stand-ins for {', '.join(missing.names)} (no provider contacted)"
    for line in _doctor_checked(project, app, configuration.doctor_checked(), standing_in if missing else ""):
        print(f"checked: {line}")
    if any(line.startswith("error") for line in problems):
        return 1
    warnings = sum(line.startswith("warning") for line in problems)
    verdict = f"doctor: no errors; {_count(warnings, 'warning')} above"
    print(verdict if warnings else "doctor: no problems found")
    return 0


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"


def _doctor_checked(project: Project, app: App, configuration: str, standing_in: str = "") -> list[str]:
    """What ``fw doctor`` looked at, so "no problems found" says what was found clean."""
    from fw.generate.checks import generated_files

    generated = _count(len(generated_files(project)), "file")
    pillars = len(app.extensions)
    startup = (
        f"the server settings, /docs and the startup rules of {_count(pillars, 'pillar')} turned on"
        if pillars
        else "the server settings and /docs (no pillar is turned on)"
    )
    return [
        configuration,
        f"generated code: {generated} written by fw generate, each current for this fw and importable",
        f"startup: {startup}, as fw run checks them before serving{standing_in}",
    ]


async def _probe(app: App) -> list[StartupError]:
    """What each started extension that can probe a service it depends on refuses."""
    from fw.extension import Probed

    refusals: list[StartupError] = []
    for extension in app.extensions:
        if isinstance(extension, Probed):
            try:
                await extension.probe()
            except StartupError as refusal:
                refusals.append(refusal)
    return refusals


def cmd_migrate(project: Project, rest: list[str]) -> int:
    """Apply pending framework and application migrations; ``fw migrate new MESSAGE`` adds a revision."""
    from fw import configuration
    from fw.cli.devonly import parse_without_dev
    from fw.rdb.migrate import application_chain, new_revision, upgrade

    application = application_chain(project.root)
    if rest[:1] == ["new"]:
        if application is None:
            return _fail('set [tool.fw] migrations = "migrations" (a directory) for application revisions')
        if len(rest) != 2 or not rest[1].strip():
            return _fail('usage: fw migrate new "what the revision does"')
        print(f"wrote {new_revision(application, rest[1])}")
        return 0
    # Only the database settings matter here: the provider variables fw dev sets may be missing.
    parse_without_dev(lambda: configuration.parse_config(rest))
    for line in asyncio.run(upgrade(application=application)):
        print(line)
    for line in asyncio.run(_migrate_cloud_stores()):
        print(line)
    return 0


async def _migrate_cloud_stores() -> list[str]:
    """What each engine ``auth.backend`` or ``session.backend`` names creates (the DynamoDB table,
    TTL enabled): the store registry's migration hooks."""
    from fw.auth.sessions.settings import SessionSettings
    from fw.auth.settings import AuthSettings
    from fw.configuration import config

    backends: dict[str, str] = {}  # key -> the backend it names
    with contextlib.suppress(LookupError):
        backends["auth.backend"] = config(AuthSettings).backend
    with contextlib.suppress(LookupError):
        backends["session.backend"] = config(SessionSettings).backend
    from fw.auth.stores.registry import find_store, migrate

    engines = [find_store(name) for name in backends.values()]
    if not any(engine is not None and engine.migrate is not None for engine in engines):
        return []
    from fw.auth.configured import configured_stores

    return await migrate(backends, configured_stores())


def cmd_token(project: Project, rest: list[str]) -> int:
    """Print an access token the project's ``fw dev`` server accepts (``jwt_only``, development only)."""
    from fw.cli.token import run_token

    return run_token(project, rest, import_app=_import_app)


def cmd_healthcheck(project: Project | None, rest: list[str]) -> int:
    """Ask the running server's live (``--ready``: ready) path; exit 0 on 200, 1 otherwise."""
    from fw.cli.healthcheck import run_healthcheck

    return run_healthcheck(project, rest, import_app=_import_app)


def cmd_init(_project: Project | None, rest: list[str]) -> int:
    """Create a new project (``fw init --help``); it works where no ``pyproject.toml`` exists yet."""
    from fw.scaffold import ScaffoldError, scaffold
    from fw.scaffold.command import parse_init_args

    try:
        options = parse_init_args(rest)
        written = scaffold(options)
    except ScaffoldError as refusal:
        return _fail(str(refusal))
    root = options.directory.resolve()
    for path in written:
        print(f"wrote {path.relative_to(root)}")
    enter = "" if root == Path.cwd().resolve() else f"cd {options.directory} && "
    # In the virtual environment fw runs from (fw's README installs both there); the project's
    # README.md gives the steps for a virtual environment of its own, its tests and signing in.
    print(f"next: {enter}pip install -e . && fw dev  (the project's README.md says more)")
    return 0


def cmd_routes(project: Project, rest: list[str]) -> int:
    """Print the route table: methods, path, protection, the request type bound, the handler."""
    from fw import configuration
    from fw.auth.settings import AuthSettings
    from fw.cli.devonly import parse_without_dev
    from fw.cli.routetable import ProtectionRules, bound_types, render, route_rows
    from fw.core.routes import Route

    app = _the_app(project)
    missing = parse_without_dev(lambda: configuration.parse_config(rest))
    if missing:  # the routes do not depend on the provider's address or client
        sys.stderr.write(f"fw: {missing.line()}\n")
    served = app.routes
    for ext in app.extensions:
        # An extension its startup rules refused (fw.auth.plugin.Refused) serves no routes; the
        # table below is then not what a started App serves, so say why first.
        refusal = getattr(ext, "error", None)
        if isinstance(refusal, StartupError):
            sys.stderr.write(
                f"fw: warning: the App would not start ({refusal}); its routes are missing below\n"
            )
    auth = configuration.config(AuthSettings)
    rules = ProtectionRules(auth.enabled, tuple(auth.protection.include), tuple(auth.protection.exclude))
    own = frozenset(r.path for ext in app.extensions for r in ext.routes() if isinstance(r, Route))
    binds, errors = bound_types(project.handlers)
    for error in errors:
        sys.stderr.write(f"fw: {error}\n")
    print(render(route_rows(served, app.entries, rules, binds, own)))
    return 0


def cmd_passkey(project: Project, rest: list[str]) -> int:
    """``fw passkey bootstrap LOGIN_ID``: a bootstrap credential for a ``passkey_only`` project."""
    from fw.cli.passkey import run_passkey

    return run_passkey(project, rest, _the_app)


def cmd_completion(_project: Project | None, rest: list[str]) -> int:
    """Print the completion script for ``fw completion bash|zsh|fish``."""
    from fw.cli.completion import SHELLS, completion_script

    if len(rest) != 1 or rest[0] not in SHELLS:
        return _fail(
            f"usage: fw completion {{{','.join(SHELLS)}}} (prints the script; docs/cli.md installs it)", 2
        )
    sys.stdout.write(completion_script(rest[0], {name: text for name, (_, text) in COMMANDS.items()}))
    return 0


COMMANDS = {
    "generate": (cmd_generate, "write binders, config loaders and the OpenAPI document"),
    "run": (cmd_run, "serve the application"),
    "dev": (cmd_dev, "serve for development (generation, migrations, development identity provider)"),
    "doctor": (cmd_doctor, "check configuration and startup preconditions (--fix: create a DynamoDB table)"),
    "migrate": (cmd_migrate, "apply pending database migrations"),
    "routes": (cmd_routes, "print the route table: methods, path, protection, bound request type"),
    "passkey": (cmd_passkey, "issue a bootstrap credential: fw passkey bootstrap LOGIN_ID (passkey_only)"),
    "init": (cmd_init, "create a new project (fw init --help)"),
    "completion": (cmd_completion, "print a shell completion script: fw completion bash|zsh|fish"),
    "token": (cmd_token, "print an access token the fw dev server accepts (a bearer-token API)"),
    "healthcheck": (cmd_healthcheck, "exit 0 when the running server answers its live (--ready: ready) path"),
}


def _asks_for_listing(arguments: Sequence[str]) -> bool:
    """``--help`` (after ``--``) or ``--generate-config``: the configuration's own listings."""
    from fw.configuration.argv import GENERATE_CONFIG

    return any(word == "--help" or word.partition("=")[0] == GENERATE_CONFIG for word in arguments)


def _print_configuration_listing(project: Project, arguments: list[str]) -> int | None:
    """``fw COMMAND -- --help`` and ``--generate-config``: the application's configuration options
    or a template, printed instead of running the command (nothing served, migrated or checked).
    ``None`` when the configuration asks for neither (the word was an option's value)."""
    from fw import configuration

    _the_app(project)
    configuration.parse_config(arguments)
    listing = configuration.requested_template()
    if listing is None:
        return None
    sys.stdout.write(listing)
    return 0


@contextlib.contextmanager
def _searching_from(root: Path) -> Iterator[None]:
    """The configuration file and ``.env`` are the project's, wherever the command was typed
    (``fw --project DIR``, or a shell in ``src/``). In-process callers (tests) get their search
    options back afterwards."""
    from fw.configuration import registry, set_config_load_options

    state = registry.state()
    if state.parsed:  # configuration already loaded in this process: leave it as it is
        yield
        return
    saved = state.options
    set_config_load_options(working_dir=root)
    try:
        yield
    finally:
        state.options = saved


def _project_if_any(directory: Path | None) -> Project | None:
    """The project of ``--project DIR`` (which must be one), else the nearest one, else ``None``."""
    try:
        return load_project(directory)
    except ProjectError:
        if directory is not None:
            raise
        return None


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="fw", description="The fw framework's command line.")
    parser.add_argument("--project", type=Path, default=None, help="project directory (default: cwd)")
    parser.add_argument("--version", action="version", version=f"fw {fw_version()}")
    commands = parser.add_subparsers(dest="command", required=True)
    for name, (_, description) in COMMANDS.items():
        commands.add_parser(name, help=description, add_help=False)
    args, rest = parser.parse_known_args(argv)
    handler = COMMANDS[args.command][0]
    if wants_help(rest):  # before anything is loaded, read or started
        sys.stdout.write(command_help(args.command))
        return 0
    from fw.pillars import install

    install()  # fw's own pillars judge the configuration the commands parse
    try:
        if args.command == "init":  # creates the project, so there is none to load yet
            return cmd_init(None, rest)
        if args.command == "completion":  # the script is the same for every project
            return cmd_completion(None, rest)
        if args.command == "healthcheck":  # a container's check: the project is optional there
            return cmd_healthcheck(_project_if_any(args.project), rest)
        project = load_project(args.project)
        if args.command in CONFIGURED and "--" in rest:  # the rest goes to the configuration as is
            rest.remove("--")
        with _searching_from(project.root):
            if args.command in CONFIGURED and _asks_for_listing(rest):
                listed = _print_configuration_listing(project, rest)
                if listed is not None:
                    return listed
            return handler(project, rest)
    except GenerationFailed as failure:
        for error in failure.errors:
            sys.stderr.write(f"{error}\n")
        return 1
    except (ProjectError, ConfigError, StartupError) as error:
        return _fail(str(error))
