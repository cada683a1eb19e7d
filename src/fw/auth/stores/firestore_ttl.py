"""The deployment commands the ``firestore`` backend names, without importing its client.

Expiry is decided when a record is read; a TTL policy on ``expires_at`` only deletes what has
expired, so storage does not grow. The Datastore API cannot read TTL policies, so ``fw doctor``
and the startup summary name the commands that create them whenever ``firestore`` is configured.
A missing database, or one in Native mode, is refused at startup naming the command creating one
in Datastore mode (a database's mode cannot be changed once it holds data).
"""

from __future__ import annotations

from fw.configuration.advisory import Advisory, AdvisoryContext

#: The kinds whose entities carry ``expires_at``, each needing a TTL policy on it.
TTL_KINDS = ("FwSession", "FwCeremony", "FwRevocation", "FwBootstrap")


def ttl_commands(project: str, database: str) -> list[str]:
    """One ``gcloud`` command per kind creating its TTL policy on ``expires_at``."""
    where = (f" --project={project}" if project else "") + (f" --database={database}" if database else "")
    return [
        f"gcloud firestore fields ttls update expires_at --collection-group={kind} --enable-ttl{where}"
        for kind in TTL_KINDS
    ]


def database_command(project: str, database: str) -> str:
    """The ``gcloud`` command creating ``database`` (``(default)`` when empty) in Datastore mode."""
    where = f" --project={project}" if project else ""
    return (
        f"gcloud firestore databases create --database={database or '(default)'} "
        f"--type=datastore-mode --location=LOCATION{where}"
    )


def ttl_advisories(context: AdvisoryContext) -> list[Advisory]:
    """A warning listing the TTL policies to create when ``auth.backend`` or sessions use firestore."""
    values = context.values
    keys = [
        key
        for key, switch in (("auth.backend", "auth.enabled"), ("session.backend", "session.enabled"))
        if values.get(switch) and values.get(key) == "firestore"
    ]
    if not keys:
        return []
    project = str(values.get("middleware.firestore.project", ""))
    commands = ttl_commands(project, str(values.get("middleware.firestore.database", "")))
    message = (
        f"{keys[0]} = firestore: expired records are deleted only by TTL policies on expires_at, "
        "which fw cannot read; make sure they exist: " + "; ".join(commands)
    )
    return [Advisory("warning", keys[0], message)]
