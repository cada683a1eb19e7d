"""``fw dev``: apply migrations, start the development identity provider if asked, then serve.

The provider (the OpenID provider, with the X-shaped stand-in on X's paths at the same origin:
:mod:`fw.devidp.both`) gets a fresh client registration each run. What reaches the application is what
the configured mode asks for (:meth:`fw.auth.Mode.dev_environment`): for ``oidc_only``,
``AUTH_OIDC_ISSUER`` / ``AUTH_OIDC_CLIENT_ID`` / ``AUTH_OIDC_CLIENT_SECRET``, for ``oauth_only``
``AUTH_OAUTH_CLIENT_ID`` / ``AUTH_OAUTH_CLIENT_SECRET`` and the three endpoints, exactly the
variables a deployment sets for a real provider. Which mode is configured is known only once
the configuration is read, and reading it may need those very variables (``${AUTH_OIDC_ISSUER}``
in the file), so the first read sees what any mode would get; then the configured mode keeps
only its own variables, and a configuration that does not use the provider stops it.
"""

from __future__ import annotations

import asyncio
import os
import secrets
import sys
from collections.abc import Callable, Sequence

from fw.auth.modes.base import DevEnvironment, DevIssuer
from fw.generate.project import Project

DEV_CLIENT_ID = "fw-dev-app"


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
    from fw.settings import AuthSettings

    auth = configuration.config(AuthSettings)
    if not auth.enabled:
        return "auth.enabled = false", None
    mode = find_mode(auth.mode)
    return f"auth.mode = {auth.mode}", None if mode is None else mode.dev_environment(issuer)


class _DevProvider:
    """The running development provider and the variables injected for it."""

    def __init__(self, issuer: DevIssuer, stop: Callable[[], None]) -> None:
        from fw.auth.modes.registry import offered_dev_environment

        self.issuer = issuer
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
        else:
            users = ", ".join(user.sub for user in DEFAULT_USERS)
            _say(f"development identity provider at {self.issuer.issuer} (users: {users}; no password)")

    def close(self) -> None:
        self._injected.withdraw()
        if self._stop is not None:
            self._stop()
            self._stop = None


def _start_provider() -> _DevProvider:
    from fw.devidp import DevClient
    from fw.devidp.both import RunningDevProviders

    secret = secrets.token_urlsafe(24)
    clients = [DevClient(DEV_CLIENT_ID, secret), DevClient("fw-dev-device")]
    running = RunningDevProviders(clients=clients).start()
    return _DevProvider(DevIssuer(running.origin, DEV_CLIENT_ID, secret), running.stop)


def run_dev(project: Project, argv: Sequence[str], import_app: Callable[[Project], object]) -> int:
    from fw import configuration
    from fw.app import App, run
    from fw.devidp import NotLoopbackError
    from fw.errors import ConfigError, StartupError
    from fw.rdb.migrate import application_chain, upgrade

    args = list(argv)
    provider: _DevProvider | None = None
    if project.dev_idp:
        try:
            provider = _start_provider()
        except NotLoopbackError as refusal:
            _say(str(refusal))
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
                for line in asyncio.run(upgrade(application=application_chain(project.root))):
                    _say(line)
        except (ConfigError, StartupError) as error:
            _say(str(error))
            return 1
        try:
            run(app, args)
        except SystemExit as stop:
            return stop.code if isinstance(stop.code, int) else (0 if stop.code is None else 1)
        return 0
    finally:
        if provider is not None:
            provider.close()
