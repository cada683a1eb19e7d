"""The store engines fw ships, each registered in the one registry every tool reads.

An engine is one declaration here (:class:`fw.auth.stores.engine.StoreEngine`) beside its
implementation module (:mod:`fw.auth.stores.rdb`, ``cookie``, ``redis``, ``dynamo``,
``firestore``); :mod:`fw.auth.stores.registry` registers each, in this order (the order messages
and ``fw init`` list them in). A declaration also declares and registers its engine's settings
table (``[middleware.rdb]``...), so the facade's import loads it (:mod:`fw.pillars`). The
declarations import no driver: each opener imports its engine (and its driver) when called, so
a configuration loads the code of the engines it selects only.
"""

from fw.auth.stores.engine import StoreEngine

# In BUILTIN's order: a declaration registers its settings table as it loads, and the templates,
# --help and the startup summary list the tables under [middleware] in registration order.
# isort: off
from fw.auth.stores.engines.rdb import RDB
from fw.auth.stores.engines.cookie import COOKIE
from fw.auth.stores.engines.redis import REDIS
from fw.auth.stores.engines.dynamo import DYNAMO
from fw.auth.stores.engines.firestore import FIRESTORE

# isort: on

BUILTIN: tuple[StoreEngine, ...] = (
    RDB,
    COOKIE,
    REDIS,
    DYNAMO,
    FIRESTORE,
)
