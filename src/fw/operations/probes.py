"""The readiness probes of the running App: every started extension's, each client asked once.

An extension that opened something readiness must ask (a store, a provider's keys) offers its
probes as :class:`fw.extension.Ready`; fw's authentication modes do (:mod:`fw.auth.probes`:
their stores, the issuer's keys, the provider's discovery). Nothing here reads an extension's
attributes or imports a driver.

A check is named by what it asks, never by where that lives: no DSN, host, URL or secret is in
a name or an outcome, and what a failure said is not kept (its type name goes to the log).
"""

from __future__ import annotations

from fw.extension import NOT_LOADED, NOT_STARTED, NotReady, Probe, Ready

__all__ = ["NOT_LOADED", "NOT_STARTED", "OK", "TIMEOUT", "UNAVAILABLE", "NotReady", "Probe", "app_probes"]

#: Outcomes a check reports (``ok`` is the only passing one; :data:`NOT_LOADED` and
#: :data:`NOT_STARTED` are raised by a probe as :class:`NotReady`).
OK = "ok"
UNAVAILABLE = "unavailable"
TIMEOUT = "timeout"


def app_probes(app: object) -> list[Probe]:
    """Every check the started extensions of ``app`` offer, each client asked once.

    Two probes asking one client (the sessions kept in the auth store's database) are asked
    once; two clients of one kind (auth and sessions apart) are both asked, the second named
    ``redis_2``.
    """
    probes: dict[str, Probe] = {}
    seen: set[int] = set()  # the clients already probed
    for extension in getattr(app, "extensions", ()) or ():
        if not isinstance(extension, Ready):
            continue
        for probe in extension.readiness_probes():
            if probe.asks is not None:
                if id(probe.asks) in seen:
                    continue
                seen.add(id(probe.asks))
            name, number = probe.name, 2
            while name in probes:  # two clients of one kind (auth and sessions apart): both asked
                name, number = f"{probe.name}_{number}", number + 1
            probes[name] = Probe(name, probe.check, probe.asks)
    return list(probes.values())
