"""Values only ``fw dev`` provides, for the commands that run outside it (``fw routes``,
``fw doctor``, ``fw migrate``, ``fw passkey``).

``fw dev`` sets the identity provider's address and client for the development provider it runs
(:meth:`fw.auth.Mode.dev_environment`: ``AUTH_OIDC_ISSUER`` and the like). A generated project
leaves them to the environment, or reads them in its file as ``${AUTH_OIDC_ISSUER}``; outside
``fw dev`` they are missing, and the mode's startup rules (or the undefined reference) stop the
configuration, rightly so for ``fw run``. None of these commands signs anyone in at that
provider, so each one says in one line which of those variables are missing and that ``fw dev``
sets them, reads the configuration with stand-ins of the shape ``fw dev`` injects, and carries
on with what it can still do. A missing variable that ``fw dev`` does not set stays the
configuration error it always was.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from fw.configuration.tomlfile import UndefinedVariables

if TYPE_CHECKING:
    from fw.auth.modes.base import DevEnvironment, DevIssuer

#: Where the stand-ins say the provider is; nothing ever contacts it. In ``dev`` on loopback like
#: ``fw dev``'s own (port 9, discard, where nothing answers); elsewhere, where plain http is
#: refused, an https name that never resolves (RFC 2606).
_DEV_STANDIN = "http://127.0.0.1:9"
_STANDIN = "https://fw-dev-provider.invalid"


def _app_env() -> str:
    """``APP_ENV`` as the last reading of the configuration found it (even one that failed)."""
    from fw.configuration import registry

    return registry.state().app_env


def _issuer() -> DevIssuer:
    from fw.auth.modes.base import DevIssuer

    return DevIssuer(_DEV_STANDIN if _app_env() == "dev" else _STANDIN, "fw-dev-app", "fw-dev-stand-in")


def dev_environments() -> list[DevEnvironment]:
    """What ``fw dev`` would inject for each registered mode that uses its provider, with stand-ins."""
    from fw.auth.modes.registry import registered_modes

    issuer = _issuer()
    found = (mode.dev_environment(issuer) for mode in registered_modes())
    return [environment for environment in found if environment is not None]


def standins(names: Sequence[str]) -> dict[str, str] | None:
    """Stand-ins for ``names`` as ``fw dev`` fills them, or ``None`` when ``fw dev`` sets not all
    of them (or there are none)."""
    if not names:
        return None
    using = [env for env in dev_environments() if all(name in env.values for name in names)]
    if not using:
        return None
    return {name: using[0].values[name] for name in names}


def _unset_defaults(names: Sequence[str]) -> dict[str, str]:
    """The defaults ``fw dev`` adds with ``names`` (``AUTH_OIDC_ALLOW_LOOPBACK_HTTP``) for keys no
    layer of the configuration just read has set, as ``fw dev`` sets them only where unset; none
    outside ``dev``, where the stand-ins need none."""
    from fw.configuration import source_of
    from fw.configuration.registry import key_of_variable

    found: dict[str, str] = {}
    if _app_env() != "dev":
        return found
    for environment in dev_environments():
        if names and all(name in environment.values for name in names):
            for name, value in environment.defaults.items():
                key = key_of_variable(name)
                if name not in os.environ and key is not None and source_of(key) == "default":
                    found[name] = value
    return found


def not_set(names: tuple[str, ...]) -> str:
    """``AUTH_OIDC_ISSUER is not set: fw dev sets it; elsewhere set it in the environment or .env``."""
    if len(names) == 1:
        return f"{names[0]} is not set: fw dev sets it; elsewhere set it in the environment or .env"
    listed = f"{', '.join(names[:-1])} and {names[-1]}"
    return f"{listed} are not set: fw dev sets them; elsewhere set them in the environment or .env"


@contextlib.contextmanager
def _environment(values: Mapping[str, str]) -> Iterator[None]:
    """``values`` in the process environment while the configuration is read, then taken back."""
    previous = {name: os.environ.get(name) for name in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for name, value in previous.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


@dataclass(frozen=True, slots=True)
class StandIns:
    """What :func:`parse_without_dev` filled in: the variables, and the keys that reference them
    (a startup refusal of one of those keys is the stand-in's, not the project's)."""

    names: tuple[str, ...] = ()
    keys: frozenset[str] = frozenset()

    def __bool__(self) -> bool:
        return bool(self.names)

    def line(self) -> str:
        return not_set(self.names)


def parse_without_dev(parse: Callable[[], None]) -> StandIns:
    """Run ``parse`` (a ``parse_config`` call) and, where only ``fw dev``'s variables are missing,
    run it again with stand-ins for them and say which (empty: nothing was missing).

    Missing means either undefined in a ``${NAME}`` reference of the file, or unset where the
    configured mode's startup rules require the key they set (a project whose file leaves the
    provider to the environment). Any other undefined variable raises the configuration's own
    error, which names all of them; any other refusal is left to the command to report.
    """
    names: list[str] = []
    keys: set[str] = set()
    defaults: dict[str, str] = {}  # only grows: a default added once stays (its source is then env)

    def attempt() -> None:
        with _environment({**defaults, **(standins(names) or {})}):
            parse()

    try:
        attempt()
    except UndefinedVariables as error:
        if standins(error.names) is None:
            raise
        names.extend(error.names)
        keys.update(error.keys)
        attempt()
    if names:  # the defaults fw dev adds with them (a loopback issuer allowed), where unset
        defaults.update(_unset_defaults(names))
        attempt()
    while (refused := _refused_dev_variable()) is not None and refused[0] not in names:
        names.append(refused[0])
        keys.add(refused[1])
        defaults.update(_unset_defaults(names))
        attempt()
    return StandIns(tuple(names), frozenset(keys))


def _refused_dev_variable() -> tuple[str, str] | None:
    """(variable, key) when the configured mode's startup rules refuse a key that no layer set and
    that ``fw dev`` sets through that variable; ``None`` otherwise."""
    from fw.auth.configured import configured_stores
    from fw.auth.modes.base import ModeSettings
    from fw.auth.modes.registry import find_mode
    from fw.auth.modes.rules import env_name
    from fw.auth.plugin import check
    from fw.auth.sessions.settings import SessionSettings
    from fw.auth.settings import AuthSettings
    from fw.configuration import config, current_app_env, source_of
    from fw.errors import ConfigError, StartupError

    try:
        auth = config(AuthSettings)
    except LookupError:  # the framework's settings are not registered: authentication stays off
        return None
    mode = find_mode(auth.mode) if auth.enabled else None
    wanted = mode.dev_environment(_issuer()) if mode is not None else None
    if wanted is None:
        return None
    settings = ModeSettings(
        auth=auth,
        session=config(SessionSettings),
        stores=configured_stores(),
        lookup=config,
        app_env=current_app_env(),
    )
    try:
        check(settings, source_of)
    except StartupError as refusal:
        name = env_name(refusal.key)
        if name in wanted.values and source_of(refusal.key) == "default":
            return name, refusal.key
    except ConfigError:
        pass  # an [[auth.assurance.policy]] entry: the App's own start reports it
    return None
