"""The store registry: one line registers an engine, and every tool that knows engines asks it."""

from __future__ import annotations

import dataclasses

import pytest

from fw.auth.stores.engine import StoreScaffold, StoreSettings
from fw.auth.stores.registry import (
    auth_backends,
    doctor_advisories,
    find_store,
    migrate,
    register_store,
    registered_stores,
    session_backends,
)
from fw.auth.stores.select import middleware_settings
from fw.configuration.advisory import Advisory, AdvisoryContext
from fw.configuration.stores import unused_store_tables
from fw.extras import extras
from fw.scaffold.options import ScaffoldError, check_storage, cloud_stores, session_choices
from fw.scaffold.storage import service_variables

from .memory.store import MEMORY, memory_registered


def test_fws_own_engines_lead_every_list_in_the_order_messages_name_them() -> None:
    assert [engine.name for engine in registered_stores()][:5] == [
        "rdb",
        "cookie",
        "redis",
        "dynamo",
        "firestore",
    ]
    assert auth_backends()[:3] == ("rdb", "dynamo", "firestore")
    assert session_backends()[:5] == ("rdb", "cookie", "redis", "dynamo", "firestore")


def test_another_engine_under_a_taken_name_is_refused_and_the_same_one_again_is_harmless() -> None:
    with memory_registered():
        assert register_store(MEMORY) is MEMORY
        with pytest.raises(RuntimeError, match="'memory' is already registered"):
            register_store(dataclasses.replace(MEMORY))


def test_an_engine_that_opens_neither_records_nor_sessions_is_refused() -> None:
    with memory_registered(), pytest.raises(ValueError, match="opens neither"):
        register_store(dataclasses.replace(MEMORY, name="nothing", open_auth=None, open_sessions=None))


def test_a_registered_engine_joins_the_backend_lists_and_summary_and_leaves_with_its_registration() -> None:
    with memory_registered():
        assert find_store("memory") is MEMORY
        assert "memory" in auth_backends() and "memory" in session_backends()
        values = {"auth.enabled": True, "auth.backend": "rdb", "session.enabled": False}
        assert "memory" in unused_store_tables(values)
        assert "memory" not in unused_store_tables({**values, "auth.backend": "memory"})
    assert find_store("memory") is None
    assert "memory" not in session_backends()
    assert "memory" not in unused_store_tables({})


def test_the_doctor_hook_of_each_named_engine_speaks_and_no_other_engine_is_asked() -> None:
    heard: list[str] = []

    def doctor(context: AdvisoryContext) -> list[Advisory]:
        heard.append(str(context.values.get("session.backend")))
        return [Advisory("warning", "memory.space", "a process-local store forgets everything on restart")]

    with memory_registered():
        register_store(dataclasses.replace(MEMORY, name="forgetful", doctor=doctor))
        named = AdvisoryContext({"auth.backend": "rdb", "session.backend": "forgetful"}, {}, "prod")
        [advice] = doctor_advisories(named)
        assert advice.key == "memory.space" and heard == ["forgetful"]
        assert doctor_advisories(AdvisoryContext({"session.backend": "memory"}, {}, "prod")) == []


async def test_fw_migrate_runs_each_named_engines_hook_once_with_the_settings_handed_over() -> None:
    calls: list[StoreSettings] = []

    async def create(settings: StoreSettings) -> list[str]:
        calls.append(settings)
        return ["created the memory space"]

    where = middleware_settings()
    with memory_registered():
        register_store(dataclasses.replace(MEMORY, name="migrating", migrate=create))
        lines = await migrate({"auth.backend": "migrating", "session.backend": "migrating"}, where)
    assert lines == ["created the memory space"] and calls == [where]


def test_an_engines_extra_and_scaffold_choices_come_from_its_declaration() -> None:
    offered = dataclasses.replace(
        MEMORY,
        name="vault",
        extra="vault",
        extras={"vault": "vault_driver"},
        scaffold=StoreScaffold(offered=True, keeps_everything="Vault", test_variable="TEST_VAULT_URL"),
    )
    with memory_registered():
        register_store(offered)
        assert extras()["vault"] == "vault_driver"  # named in the refusal when its driver is missing
        assert session_choices()[-1] == "vault" and cloud_stores()["vault"] == "Vault"
        assert service_variables()["vault"] == "TEST_VAULT_URL"
        assert check_storage("oidc_only", "vault", None) == ("vault", "")
        with pytest.raises(ScaffoldError, match="every record is kept in Vault"):
            check_storage("oidc_only", "vault", "sqlite")
    assert "vault" not in extras()
