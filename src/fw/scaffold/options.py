"""What ``fw init`` was asked for, checked before a single file is written.

Every refusal is one line (a :class:`ScaffoldError`) that says what to do instead, so a typo
never leaves a half-made project behind.
"""

from __future__ import annotations

import keyword
import re
import sys
from dataclasses import dataclass
from pathlib import Path

from fw.auth.modes.registry import find_mode, registered_modes
from fw.auth.stores.registry import registered_stores

PRESETS = ("web", "api")
#: Modes whose projects sign in with passkeys: a login page and ``public/passkey.js``.
PASSKEY_MODES = ("oidc_passkey", "passkey_only")
#: ``--db``: the SQL database of ``[middleware.rdb]`` (auth records, and rdb sessions).
DB_CHOICES = ("sqlite", "postgres")
#: What ``--session`` defaults to: sessions (and auth records) in the SQL database.
DEFAULT_SESSION = "rdb"


def session_choices() -> tuple[str, ...]:
    """The ``--session`` choices (``session.backend``): every engine the store registry offers."""
    return tuple(engine.name for engine in registered_stores() if engine.scaffold.offered)


def cloud_stores() -> dict[str, str]:
    """Session stores that keep every auth record too (name -> product), so no SQL database is used."""
    return {
        engine.name: engine.scaffold.keeps_everything
        for engine in registered_stores()
        if engine.scaffold.offered and engine.scaffold.keeps_everything
    }


#: The choices as this installation registers them (for ``fw init --help``).
SESSION_CHOICES = session_choices()
CLOUD_STORES = cloud_stores()


def auth_choices() -> tuple[str, ...]:
    """The ``--auth`` choices: ``none`` and every mode the registry says ``fw init`` offers."""
    return ("none", *(mode.name for mode in registered_modes() if mode.scaffold.offered))


def not_available() -> frozenset[str]:
    """Offered modes fw does not implement yet: a project using them would only refuse to start."""
    return frozenset(
        mode.name for mode in registered_modes() if mode.scaffold.offered and not mode.scaffold.available
    )


def default_auth(preset: str) -> str:
    """What ``preset`` signs people in with unless ``--auth`` says otherwise."""
    defaults = (mode.name for mode in registered_modes() if preset in mode.scaffold.default_for)
    return next(defaults, "none")


#: The choices as this installation registers them (for ``fw init --help``).
AUTH_CHOICES = auth_choices()
NOT_AVAILABLE = not_available()
DEFAULT_AUTH = {preset: default_auth(preset) for preset in PRESETS}

_NAME = re.compile(r"[a-z_][a-z0-9_]*")
#: Names that would shadow fw itself, a test directory, or collide with fw's own config prefixes.
_RESERVED = frozenset(("fw", "test", "tests", "server", "session", "middleware", "auth"))


class ScaffoldError(Exception):
    """A refusal of ``fw init``: one line, printed as ``fw: <message>``."""


@dataclass(frozen=True, slots=True)
class InitOptions:
    """A checked ``fw init`` request."""

    directory: Path
    name: str
    preset: str
    auth: str
    force: bool = False
    #: ``session.backend`` (``""``: the project keeps no browser sessions).
    session: str = ""
    #: The SQL database, ``sqlite`` or ``postgres`` (``""``: the project uses none).
    db: str = ""

    @property
    def browser_login(self) -> bool:
        """Signs people in on browser pages (and so keeps sessions)."""
        return self.auth not in ("none", "jwt_only")

    @property
    def auth_backend(self) -> str:
        """``auth.backend``: the cloud store when sessions live there, else the SQL database."""
        return self.session if self.session in cloud_stores() else DEFAULT_SESSION


def derive_name(directory: Path) -> str:
    """The package name a directory suggests: lower-cased, ``-`` and spaces become ``_``."""
    return directory.resolve().name.lower().replace("-", "_").replace(" ", "_")


def check_name(name: str, *, derived_from: Path | None = None) -> str:
    """``name`` if it can be the project's package and config prefix; else a ScaffoldError."""
    hint = ""
    if derived_from is not None:
        hint = f" (derived from the directory name {derived_from.resolve().name!r}; pass --name)"
    if not _NAME.fullmatch(name) or keyword.iskeyword(name):
        raise ScaffoldError(
            f"project name {name!r} is not a lower-case Python identifier (a-z, 0-9, _; "
            f"not starting with a digit){hint}"
        )
    if name in _RESERVED or name in sys.stdlib_module_names:
        raise ScaffoldError(
            f"project name {name!r} would shadow a module or setting of the same name; choose another{hint}"
        )
    return name


def check_auth(auth: str) -> str:
    """``auth`` if fw can scaffold it; refusals say why and what to use instead."""
    mode = find_mode(auth)
    if mode is not None and mode.scaffold.refusal:
        raise ScaffoldError(f"--auth {auth} is not offered: {mode.scaffold.refusal}")
    if auth in not_available():
        ready = [choice for choice in auth_choices()[1:] if choice not in not_available()]
        raise ScaffoldError(f"--auth {auth} is not available yet in fw; use {', '.join(ready)} or none")
    if auth not in auth_choices():
        raise ScaffoldError(f"--auth {auth!r} is not a choice: use one of {', '.join(auth_choices())}")
    return auth


def check_preset(preset: str) -> str:
    if preset not in PRESETS:
        raise ScaffoldError(f"--preset {preset!r} is not a choice: use web or api")
    return preset


def _choice(option: str, value: str, choices: tuple[str, ...]) -> str:
    if value not in choices:
        raise ScaffoldError(f"{option} {value!r} is not a choice: use one of {', '.join(choices)}")
    return value


def check_storage(auth: str, session: str | None, db: str | None) -> tuple[str, str]:
    """``(session.backend, database)`` for ``auth``; refusals name the option that does not fit.

    Only browser sign-in keeps sessions and records. A session store in DynamoDB or Firestore
    keeps the auth records too (``auth.backend``), so such a project has no SQL database.
    """
    if session is not None:
        _choice("--session", session, session_choices())
    if db is not None:
        _choice("--db", db, DB_CHOICES)
    if auth in ("none", "jwt_only"):
        what = "has no sign-in (--auth none)" if auth == "none" else "is a bearer-token API (jwt_only)"
        for option, value in (("--session", session), ("--db", db)):
            if value is not None:
                raise ScaffoldError(
                    f"{option} {value}: this project {what} and keeps no sessions or records; "
                    "drop the option or choose a sign-in mode with --auth"
                )
        return "", ""
    chosen_session = session or DEFAULT_SESSION
    cloud = cloud_stores()
    if chosen_session in cloud:
        if db is not None:
            others = [choice for choice in session_choices() if choice not in cloud]
            listed = ", ".join(others[:-1]) + f" or {others[-1]}" if len(others) > 1 else "".join(others)
            raise ScaffoldError(
                f"--db {db}: with --session {chosen_session} every record is kept in "
                f"{cloud[chosen_session]} (auth.backend too) and no SQL database is used; drop --db "
                f"or choose --session {listed}"
            )
        return chosen_session, ""
    return chosen_session, db or "sqlite"


def init_options(
    directory: Path,
    *,
    name: str | None,
    preset: str,
    auth: str | None,
    force: bool = False,
    session: str | None = None,
    db: str | None = None,
) -> InitOptions:
    """Check every choice; the name defaults to the directory's, the auth mode to the preset's.

    ``jwt_only`` is never an ``--auth`` choice: it is what the api preset makes by default.
    """
    check_preset(preset)
    chosen_auth = check_auth(auth) if auth is not None else default_auth(preset)
    if chosen_auth in PASSKEY_MODES and preset != "web":
        raise ScaffoldError(
            f"--auth {chosen_auth} signs people in on browser pages (passkeys); use --preset web"
        )
    chosen_session, chosen_db = check_storage(chosen_auth, session, db)
    if directory.exists() and not directory.is_dir():
        raise ScaffoldError(f"{directory} exists and is not a directory")
    checked = (
        check_name(name) if name is not None else check_name(derive_name(directory), derived_from=directory)
    )
    return InitOptions(directory, checked, preset, chosen_auth, force, chosen_session, chosen_db)
