"""What an App owns beyond its routes: the configuration it runs under, and the state its
pillars keep for it (account seams, the auth it lends to ``fw.auth``'s calls).

Two Apps in one process are independent: each keeps the configuration in force when it first
started (:func:`bind`), and the module-level helpers (``fw.config``, ``fw.auth.user``,
``fw.auth.revoke_token``, ...) find the App through the request (``scope["app"]``) or, without
one, the App running in the caller's event loop (:func:`configuration_for`).

An App started again checks the configuration in force then against its own: the same values
(a new ``fw.testing.configured`` block saying the same) and it carries on under the new block;
different values and it refuses to start, naming the keys, since its pillars were composed
under the first. Never does it serve the old configuration silently.
"""

from __future__ import annotations

import asyncio
import contextvars
import weakref
from collections.abc import Callable, Mapping
from typing import Any, Generic, TypeVar

from starlette.requests import HTTPConnection

import fw.configuration.registry as registry
from fw.configuration.registry import State
from fw.errors import StartupError

T = TypeVar("T")


class Slot(Generic[T]):
    """A typed place for one pillar's state in every App's :class:`Owned` (made on first use)."""

    __slots__ = ("factory", "name")

    def __init__(self, name: str, factory: Callable[[], T]) -> None:
        self.name = name
        self.factory = factory

    def __repr__(self) -> str:
        return f"Slot({self.name!r})"


class Owned:
    """What one App owns: its configuration (``None`` until it first starts) and its pillars' state.

    The App holds it (``app.owned``); ``owner`` is the App, indexed weakly so that the module-level
    helpers, handed only the App (``scope["app"]``, ``app=``), find what it owns.
    """

    def __init__(self, owner: object) -> None:
        self.configuration: State | None = None
        self._slots: dict[Slot[Any], Any] = {}
        _every.add(self)
        _index[owner] = self

    def get(self, slot: Slot[T]) -> T:
        """This App's value of ``slot``, made by the slot's factory on first use."""
        try:
            value: T = self._slots[slot]
        except KeyError:
            value = self._slots[slot] = slot.factory()
        return value

    def peek(self, slot: Slot[T]) -> T | None:
        """This App's value of ``slot``, or ``None`` when it was never made."""
        value: T | None = self._slots.get(slot)
        return value


#: Every Owned alive, so a call without ``app=`` can reach every App (``forget_account``).
_every: weakref.WeakSet[Owned] = weakref.WeakSet()
#: The Apps started (or first built) in each event loop, by what they own.
_started_in: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, list[Owned]] = weakref.WeakKeyDictionary()
#: What :func:`running_here` answers in each event loop, worked out when an App starts there (a
#: plain dict, read on every configuration read without a request; closed loops are dropped).
_here: dict[asyncio.AbstractEventLoop, State | None] = {}
#: What each App (or an object standing in for one) owns, by the App: held by the App itself.
_index: weakref.WeakKeyDictionary[object, Owned] = weakref.WeakKeyDictionary()


def owned(app: object) -> Owned:
    """What ``app`` owns: an fw App's own :class:`Owned`; for a stand-in object (a test's bare
    extension), one made on first use and kept as long as the object lives."""
    found = _index.get(app)
    if found is None:
        found = Owned(app)
    return found


def _found(app: object) -> Owned | None:
    try:
        return _index.get(app)
    except TypeError:  # not weakly referenceable: no App
        return None


def every() -> list[Owned]:
    """What every App alive in this process owns."""
    return list(_every)


def of(app: object) -> State | None:
    """The configuration ``app`` runs under; ``None`` before it started (or for a non-App)."""
    found = _found(app) if app is not None else None
    return found.configuration if found is not None else None


# Binding an App to its configuration.
def bind(app: object) -> State:
    """The configuration ``app`` runs under, checked each time it starts.

    The first call keeps the configuration in force (parsing it when nothing was parsed, as a
    server does). A later call (the App started again) takes the configuration in force then
    when its values are the same, and refuses with :class:`fw.StartupError` naming the keys
    that differ otherwise: the App's pillars were composed under the first one.

    Under fw's pytest plugin, starting with no :func:`fw.testing.configured` block in force is
    reported (:class:`fw.testing.UnconfiguredAppWarning`).
    """
    holder = owned(app)
    current = registry.state()
    if not current.parsed:
        registry.ensure_parsed()  # the implicit-parse watcher reports it
        current = registry.state()
    elif not current.given:
        registry.report_unconfigured("started an App")
    bound = holder.configuration
    if bound is not None and bound is not current:
        differing = _differing(bound, current)
        if differing:
            raise StartupError("", None, _refusal(differing, bound, current))
    holder.configuration = current
    _note_loop(holder)
    return current


def _note_loop(holder: Owned) -> None:
    """Count ``holder``'s App among the ones started in the running event loop (if any), and
    work out again what :func:`running_here` answers there."""
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        return
    release(holder)
    for closed in [other for other in _here if other.is_closed()]:
        del _here[closed]
    started = _started_in.setdefault(loop, [])
    started.append(holder)
    _here[loop] = _shared(started)


def release(app: object) -> None:
    """``app`` stopped: ``fw.config(cls)`` without a request in its event loop no longer reads
    its configuration (for the end of the App's shutdown)."""
    holder = app if isinstance(app, Owned) else owned(app)
    for loop, started in list(_started_in.items()):
        if holder in started:
            started.remove(holder)
            if loop in _here:
                _here[loop] = _shared(started)


def _shared(started: list[Owned]) -> State | None:
    """The configuration the Apps of ``started`` share; ``None`` when none, or they differ."""
    configurations = {id(item.configuration): item.configuration for item in started}
    found = [state for state in configurations.values() if state is not None]
    return found[0] if len(found) == 1 else None


def _differing(first: State, second: State) -> list[str]:
    """The keys whose values differ between two configurations (``APP_ENV`` included).

    Only keys both declare are compared: a table registered for one parse and not the other
    (a module imported later, a test that reset the registry) holds nothing the user set twice.
    """
    keys: list[str] = []
    if first.app_env != second.app_env:
        keys.append("APP_ENV")
    one, other = first.values(), second.values()
    keys.extend(key for key in sorted(one.keys() & other.keys()) if one[key] != other[key])
    return keys


def _refusal(keys: list[str], bound: State, current: State) -> str:
    shown = ", ".join(f"{key} ({_source(bound, key)}, now {_source(current, key)})" for key in keys[:5])
    more = f" and {len(keys) - 5} more" if len(keys) > 5 else ""
    return (
        f"this App already started under another configuration; {shown}{more} differ. An App keeps "
        "the configuration it first started under (its authentication and stores were composed "
        "from it): build a new App for each configuration, from a create_app() function called "
        "inside the fw.testing.configured(...) block"
    )


def _source(state: State, key: str) -> str:
    if key == "APP_ENV":
        return f"APP_ENV={state.app_env}"
    try:
        return state.source_of(key)
    except KeyError:
        return "unset"


# Finding the configuration a module-level read means.
#: The configuration of the App serving the current request, where the App sets it (:func:`serving`).
_serving: contextvars.ContextVar[State | None] = contextvars.ContextVar("fw_serving", default=None)


def serving(app: object) -> contextvars.Token[State | None]:
    """Make ``app``'s configuration the one ``fw.config(cls)`` (no request) reads in this context
    until :func:`served` is called with the token; for the App's request path."""
    return _serving.set(of(app))


def served(token: contextvars.Token[State | None]) -> None:
    _serving.reset(token)


def config(cls: type[T], request: object = None) -> T:
    """The typed configuration for ``cls`` (``fw.config``): parsed values, else declared
    defaults, else zero.

    With ``request`` (a request, a websocket or an ASGI scope) it is the configuration of the
    App serving it; without, see :func:`configuration_for`.
    """
    return (configuration_for(request) or registry.state()).config(cls)


def in_force(request: object = None) -> State:
    """The configuration a module-level read means: see :func:`configuration_for`."""
    return configuration_for(request) or registry.state()


def configuration_for(request: object = None) -> State | None:
    """The configuration a module-level read means, ``None`` for the one in force.

    In order: the App serving ``request`` (a request, a websocket or an ASGI scope); the App
    serving the current request where it said so (:func:`serving`); the one App started in this
    event loop (a handler, or a test client used after its ``configured`` block ended, reads its
    App's configuration); else ``None``: the configuration in force.
    """
    if request is not None:
        scope = request.scope if isinstance(request, HTTPConnection) else request
        if type(scope) is dict or isinstance(scope, Mapping):
            found = of(scope.get("app"))
            if found is not None:
                return found
    found = _serving.get()
    if found is not None:
        return found
    return running_here()


def running_here() -> State | None:
    """The configuration of the Apps started in the running event loop, when they share one."""
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        return None
    return _here.get(loop)
