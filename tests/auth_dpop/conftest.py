"""The bearer fixtures (a local issuer, migrated stores) serve the DPoP tests too."""

from auth_jwt.conftest import issuer, pg_store, rdb_store, sqlite_store, store

__all__ = ["issuer", "pg_store", "rdb_store", "sqlite_store", "store"]
