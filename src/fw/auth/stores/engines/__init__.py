"""The store engines fw ships, each registered in the one registry every tool reads.

An engine is one declaration here (:class:`fw.auth.stores.engine.StoreEngine`) beside its
implementation module (:mod:`fw.auth.stores.rdb`, ``cookie``, ``redis``, ``dynamo``,
``firestore``); :mod:`fw.auth.stores.registry` registers each, in this order (the order messages
and ``fw init`` list them in). The declarations import no driver: each opener imports its engine
(and its driver) when called, so a configuration loads the code of the engines it selects only.
"""

from fw.auth.stores.engine import StoreEngine
from fw.auth.stores.engines.cookie import COOKIE
from fw.auth.stores.engines.dynamo import DYNAMO
from fw.auth.stores.engines.firestore import FIRESTORE
from fw.auth.stores.engines.rdb import RDB
from fw.auth.stores.engines.redis import REDIS

BUILTIN: tuple[StoreEngine, ...] = (
    RDB,
    COOKIE,
    REDIS,
    DYNAMO,
    FIRESTORE,
)
