"""``fw dev``: apply migrations, start the development identity provider if asked, then serve.

The provider (the OpenID provider, with the X-shaped stand-in on X's paths at the same origin:
:mod:`fw.devidp.both`) keeps its port and signing key in the project's ``.fw/`` (so its issuer URL,
and the accounts linked to it, stay the same from run to run) and gets a fresh client
registration each run. For ``jwt_only`` it is the development token issuer whose key
``fw token`` signs with. What reaches the application is what
the configured mode asks for (:meth:`fw.auth.Mode.dev_environment`): for ``oidc_only``,
``AUTH_OIDC_ISSUER`` / ``AUTH_OIDC_CLIENT_ID`` / ``AUTH_OIDC_CLIENT_SECRET``, for ``oauth_only``
``AUTH_OAUTH_CLIENT_ID`` / ``AUTH_OAUTH_CLIENT_SECRET`` and the three endpoints, exactly the
variables a deployment sets for a real provider. Which mode is configured is known only once
the configuration is read, and reading it may need those very variables (``${AUTH_OIDC_ISSUER}``
in the file), so the first read sees what any mode would get; then the configured mode keeps
only its own variables, and a configuration that does not use the provider stops it.

Unless ``--no-reload`` is given, the app itself serves from a child process that is replaced on
every change (:mod:`fw.cli.reload`); the provider stays in this process, so it outlives reloads,
and the child applies the migrations.
"""

from __future__ import annotations

import asyncio
import os
import secrets
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from fw.auth.modes.base import DevEnvironment, DevIssuer
from fw.generate.project import Project

if TYPE_CHECKING:
    from fw.cli.reload import Reloader
    from fw.devidp.stable import DevIssuerState

DEV_CLIENT_ID = "fw-dev-app"
#: fw dev's own flag: serve in this process and do not reload on change.
NO_RELOAD = "--no-reload"


def _say(message: str) -> None:
    sys.stderr.write(f"fw dev: {message}\n")


class _Injected:
    """Environment variables set for this run, and what they were before, to take them back."""

    def __init__(self) -> None:
        self._previous: dict[str, str | None] = {}

    def apply(self, environment: DevEnvironment) -> None:
        for name, value in environment.values.items():
            self._previous.setdefault(name, os.environ.get(name))
            os.environ[name] = value
        for name, value in environment.defaults.items():
            if name not in os.environ:
                self._previous.setdefault(name, None)
                os.environ[name] = value

    def withdraw(self) -> None:
        for name, value in self._previous.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        self._previous.clear()


def configured_dev_environment(issuer: DevIssuer) -> tuple[str, DevEnvironment | None]:
    """(the configured choice in words, what its mode injects) from the parsed configuration."""
    from fw import configuration
    from fw.auth.modes.registry import find_mode
    from fw.auth.settings import AuthSettings

    auth = configuration.config(AuthSettings)
    if not auth.enabled:
        return "auth.enabled = false", None
    mode = find_mode(auth.mode)
    return f"auth.mode = {auth.mode}", None if mode is None else mode.dev_environment(issuer)


class _DevProvider:
    """The running development provider and the variables injected for it."""

    def __init__(self, issuer: DevIssuer, stop: Callable[[], None], *, stable: bool = True) -> None:
        from fw.auth.modes.registry import offered_dev_environment

        self.issuer = issuer
        #: Serving at the project's recorded issuer URL (not a one-run port): fw token signs for it.
        self.stable = stable
        self._stop: Callable[[], None] | None = stop
        self._injected = _Injected()
        self._offered = offered_dev_environment(issuer)
        self._injected.apply(self._offered)

    def settle(self, parse: Callable[[], None]) -> None:
        """Keep the configured mode's variables only (parsing again if that changed anything)."""
        from fw.devidp import DEFAULT_USERS

        what, wanted = configured_dev_environment(self.issuer)
        if wanted != self._offered:
            self._injected.withdraw()
            if wanted is not None:
                self._injected.apply(wanted)
            parse()
        if wanted is None:
            self.close()
            _say(f"{what} does not sign in at the development identity provider; it is not served")
        elif _bearer_only():
            first = DEFAULT_USERS[0].sub
            hint = f"fw token --sub {first} prints an access token this server accepts"
            _say(f"development token issuer at {self.issuer.issuer}" + (f" ({hint})" if self.stable else ""))
        else:
            users = ", ".join(user.sub for user in DEFAULT_USERS)
            _say(f"development identity provider at {self.issuer.issuer} (users: {users}; no password)")

    def close(self) -> None:
        self._injected.withdraw()
        if self._stop is not None:
            self._stop()
            self._stop = None


def _bearer_only() -> bool:
    """The configured mode verifies bearer tokens and signs nobody in at the provider (jwt_only)."""
    from fw import configuration
    from fw.auth.modes.registry import find_mode
    from fw.auth.settings import AuthSettings

    mode = find_mode(configuration.config(AuthSettings).mode)
    return mode is not None and not mode.browser


def _stable_state(root: Path) -> DevIssuerState:
    """The project's recorded port and key (:mod:`fw.devidp.stable`); a damaged record is replaced."""
    from fw.devidp.stable import DevStateError, create_state, load_or_create_state

    try:
        return load_or_create_state(root)
    except DevStateError as damaged:
        state = create_state(root)
        _say(f"{damaged.reason}; it now records a new development issuer at {state.issuer}")
        return state


def _start_provider(root: Path) -> _DevProvider:
    """Start the provider on the project's recorded port with its recorded key, so its issuer URL
    (and with it every development account and token) is the same on every run; a port taken
    by something else gets a one-run port and a one-line warning."""
    from fw.devidp import DevClient
    from fw.devidp.both import RunningDevProviders
    from fw.devidp.stable import RECORD

    state = _stable_state(root)
    secret = secrets.token_urlsafe(24)
    clients = [DevClient(DEV_CLIENT_ID, secret), DevClient("fw-dev-device")]
    stable = True
    try:
        running = RunningDevProviders(clients=clients, port=state.port, key=state.key)
    except OSError as taken:
        stable = False
        running = RunningDevProviders(clients=clients, key=state.key)
        _say(
            f"port {state.port} of the development identity provider ({RECORD}) is taken "
            f"({taken.strerror or taken}), so it runs at {running.origin} for this run only: "
            f"accounts and fw token's tokens for {state.issuer} do not carry over to it"
        )
    running.start()
    return _DevProvider(DevIssuer(running.origin, DEV_CLIENT_ID, secret), running.stop, stable=stable)


def run_dev(project: Project, argv: Sequence[str], import_app: Callable[[Project], object]) -> int:
    from fw import configuration
    from fw.app import App, run
    from fw.devidp import NotLoopbackError
    from fw.errors import ConfigError, StartupError

    args = [argument for argument in argv if argument != NO_RELOAD]
    reloader = _reloader(project, args) if NO_RELOAD not in argv else None
    provider: _DevProvider | None = None
    if project.dev_idp:
        try:
            provider = _start_provider(project.root)
        except NotLoopbackError as refusal:
            _say(str(refusal))
            if reloader is not None:
                reloader.close()
            return 1
    try:
        app = import_app(project)
        if not isinstance(app, App):
            _say(f"[tool.fw] app {project.app} is not an fw.App")
            return 1
        try:
            configuration.parse_config(args)
            if configuration.requested_template() is None:
                if provider is not None:
                    provider.settle(lambda: configuration.parse_config(args))
                if reloader is None:  # else the app process applies them (fw.cli.appchild)
                    _migrate(project)
        except (ConfigError, StartupError) as error:
            _say(str(error))
            return 1
        if reloader is not None:  # the app serves in its own process, restarted on change
            return reloader.serve()
        try:
            run(app, args)
        except SystemExit as stop:
            return stop.code if isinstance(stop.code, int) else (0 if stop.code is None else 1)
        return 0
    except KeyboardInterrupt:  # Ctrl-C while starting: everything started is stopped below
        return 130
    finally:
        if reloader is not None:
            reloader.close()
        if provider is not None:
            provider.close()


def _migrate(project: Project) -> None:
    from fw.rdb.migrate import application_chain, upgrade

    for line in asyncio.run(upgrade(application=application_chain(project.root))):
        _say(line)


def _reloader(project: Project, args: Sequence[str]) -> Reloader | None:
    """Start the first app process now, so that its imports overlap the provider's start; it
    applies the migrations and serves once told to (:mod:`fw.cli.reload`)."""
    from fw.cli.reload import Reloader, reload_supported

    if not reload_supported():
        _say("reloading needs a POSIX system; serving without it (as with --no-reload)")
        return None
    return Reloader(project.root, args)
