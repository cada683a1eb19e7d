"""What an App owns (fw.configuration.owner): the configuration it started under, found by the
module-level ``fw.config`` through a request, an ASGI scope, the App serving the current
context, or the one App started in the running event loop."""

from __future__ import annotations

import asyncio

import pytest

import fw
import fw.testing
from fw.configuration import bind, of, owner
from fw.settings import ServerSettings


def started(port: int) -> fw.App:
    """An App bound to a block whose ``server.port`` is ``port`` (the block has ended)."""
    app = fw.App()
    with fw.testing.configured(toml=f"[server]\nport = {port}\n"):
        bind(app)
    return app


def test_an_app_has_no_configuration_until_it_starts() -> None:
    app = fw.App()
    assert of(app) is None
    with fw.testing.configured(toml="[server]\nport = 9001\n"):
        assert bind(app).config(ServerSettings).port == 9001
    kept = of(app)
    assert kept is not None and kept.config(ServerSettings).port == 9001


def test_config_with_an_asgi_scope_reads_the_app_in_it() -> None:
    first, second = started(9101), started(9102)
    assert fw.config(ServerSettings, {"type": "http", "app": first}).port == 9101
    assert fw.config(ServerSettings, {"type": "http", "app": second}).port == 9102


def test_config_with_a_request_of_an_app_not_started_reads_the_configuration_in_force() -> None:
    with fw.testing.configured(toml="[server]\nport = 9201\n"):
        assert fw.config(ServerSettings, {"type": "http", "app": fw.App()}).port == 9201


def test_the_app_serving_the_current_context_is_read_without_a_request() -> None:
    app = started(9301)
    with fw.testing.configured(toml="[server]\nport = 9302\n"):
        token = owner.serving(app)
        try:
            assert fw.config(ServerSettings).port == 9301
        finally:
            owner.served(token)
        assert fw.config(ServerSettings).port == 9302


def test_in_an_event_loop_the_one_app_started_there_is_read_until_it_is_released() -> None:
    app = fw.App()

    async def scenario() -> list[int]:
        with fw.testing.configured(toml="[server]\nport = 9401\n"):
            bind(app)
        with fw.testing.configured(toml="[server]\nport = 9402\n"):
            seen = [fw.config(ServerSettings).port]
            owner.release(app)
            seen.append(fw.config(ServerSettings).port)
        return seen

    assert asyncio.run(scenario()) == [9401, 9402]


def test_two_apps_in_one_loop_with_different_configurations_leave_the_configuration_in_force() -> None:
    async def scenario() -> int:
        with fw.testing.configured(toml="[server]\nport = 9501\n"):
            bind(fw.App())
        with fw.testing.configured(toml="[server]\nport = 9502\n"):
            bind(fw.App())
        with fw.testing.configured(toml="[server]\nport = 9503\n"):
            return fw.config(ServerSettings).port

    assert asyncio.run(scenario()) == 9503


def test_an_app_bound_again_under_equal_values_takes_the_new_block() -> None:
    app = started(9601)
    with fw.testing.configured(env={"SERVER_PORT": "9601"}):
        configuration = bind(app)
        assert configuration.source_of("server.port") == "env:SERVER_PORT"
    assert of(app) is configuration


def test_an_app_bound_again_under_other_values_refuses_and_keeps_its_own() -> None:
    app = started(9701)
    with (
        fw.testing.configured(toml="[server]\nport = 9702\n"),
        pytest.raises(fw.StartupError, match=r"server\.port \(file:<toml>:2, now file:<toml>:2\)"),
    ):
        bind(app)
    kept = of(app)
    assert kept is not None and kept.config(ServerSettings).port == 9701


def test_seams_of_a_stand_in_object_are_kept_beside_it() -> None:
    class StandIn:
        pass

    stand_in = StandIn()
    slot = owner.Slot("numbers", list[int])
    owner.owned(stand_in).get(slot).append(1)
    assert owner.owned(stand_in).get(slot) == [1]
    assert owner.owned(StandIn()).peek(slot) is None
