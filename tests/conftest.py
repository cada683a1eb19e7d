"""Shared fixtures: real PostgreSQL and Redis when CI points at them, a visible skip otherwise."""

from __future__ import annotations

import os

import pytest


@pytest.fixture
def postgres_dsn() -> str:
    dsn = os.environ.get("FW_TEST_POSTGRES_DSN")
    if not dsn:
        pytest.skip("FW_TEST_POSTGRES_DSN is not set (bash .ci/run sets it to the local PostgreSQL)")
    return dsn


@pytest.fixture
def redis_url() -> str:
    url = os.environ.get("FW_TEST_REDIS_URL")
    if not url:
        pytest.skip("FW_TEST_REDIS_URL is not set (bash .ci/run sets it to the local Redis)")
    return url
