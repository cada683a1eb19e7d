"""The startup summary lists [middleware.dynamo] and [middleware.firestore] only while a store
setting uses them; [middleware.rdb] always (applications and fw migrate read it)."""

from __future__ import annotations

from fw.configuration import registry
from fw.configuration.stores import unused_store_tables
from fw.testing import configured


def store_tables(*argv: str) -> set[str]:
    with configured(argv=argv):
        keys = {item.key for item in registry.summary_items()}
    return {".".join(key.split(".")[:2]) for key in keys if key.startswith("middleware.")}


def test_a_project_on_rdb_lists_neither_cloud_store_table() -> None:
    assert store_tables("--session-enabled", "--session-backend=rdb") == {"middleware.rdb"}


def test_a_project_without_sessions_or_auth_lists_only_the_rdb_table() -> None:
    assert store_tables() == {"middleware.rdb"}


def test_dynamo_sessions_list_the_dynamo_table_only() -> None:
    assert store_tables("--session-enabled", "--session-backend=dynamo") == {
        "middleware.rdb",
        "middleware.dynamo",
    }


def test_a_firestore_auth_store_lists_the_firestore_table() -> None:
    found = store_tables("--auth-enabled", "--auth-mode=jwt_only", "--auth-backend=firestore")
    assert found == {"middleware.rdb", "middleware.firestore"}


def test_a_backend_named_while_its_pillar_is_off_uses_no_store() -> None:
    values = {
        "auth.enabled": False,
        "auth.backend": "dynamo",
        "session.enabled": False,
        "session.backend": "firestore",
    }
    assert unused_store_tables(values) == ["middleware.dynamo", "middleware.firestore"]
