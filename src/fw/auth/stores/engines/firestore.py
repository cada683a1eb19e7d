"""``firestore``: every record in Firestore in Datastore mode at ``[middleware.firestore]``
(:mod:`fw.auth.stores.firestore`, the firestore extra).

Nothing to create before the first start; ``fw doctor`` and the startup summary name the TTL
policies to create (:mod:`fw.auth.stores.firestore_ttl`), which the Datastore API cannot read.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated

from fw.auth.stores.engine import StoreEngine, StoreScaffold, StoreSettings
from fw.configuration import register_config
from fw.markers import default, env

if TYPE_CHECKING:
    from fw.auth.stores.interfaces import AuthStore, SessionStore
    from fw.configuration.advisory import Advisory, AdvisoryContext


@dataclass
class FirestoreSettings:
    """Firestore in Datastore mode, for ``auth.backend`` or ``session.backend`` = ``firestore``."""

    #: Google Cloud project ID (empty: the project of the environment's credentials).
    project: Annotated[str, default("")]
    #: Database ID (empty: the project's (default) database); it must be in Datastore mode.
    database: Annotated[str, default("")]
    #: host:port of a local emulator (DATASTORE_EMULATOR_HOST sets it too); empty: Google Cloud.
    emulator_host: Annotated[str, default(""), env("DATASTORE_EMULATOR_HOST")]


register_config(FirestoreSettings, "middleware.firestore")


def open_firestore(settings: StoreSettings) -> AuthStore:
    from fw.auth.stores.firestore import FirestoreStore

    return FirestoreStore.open(settings.table(FirestoreSettings))


def open_firestore_sessions(settings: StoreSettings) -> SessionStore:
    from fw.auth.stores.firestore import open_firestore_sessions as sessions

    return sessions(settings.table(FirestoreSettings))


def firestore_doctor(context: AdvisoryContext) -> list[Advisory]:
    from fw.auth.stores.firestore_ttl import ttl_advisories

    return ttl_advisories(context)


FIRESTORE = StoreEngine(
    name="firestore",
    open_auth=open_firestore,
    open_sessions=open_firestore_sessions,
    table="middleware.firestore",
    settings=FirestoreSettings,
    extra="firestore",
    extras={"firestore": "google.cloud.datastore"},
    doctor=firestore_doctor,
    scaffold=StoreScaffold(
        offered=True,
        keeps_everything="Firestore",
        test_variable="TEST_FIRESTORE_EMULATOR_HOST",
        test_imports=("import uuid",),
    ),
)
