"""fw.watchdog.Watchdog: a deadline per store command, one timer for all of them."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import time
import weakref

import pytest

from fw.watchdog import Watchdog

DEADLINE = 0.2


async def bounded(watchdog: Watchdog, seconds: float) -> str:
    with watchdog:
        await asyncio.sleep(seconds)
    return "done"


class TestDeadlines:
    async def test_a_command_within_its_deadline_returns_its_answer(self) -> None:
        assert await bounded(Watchdog(DEADLINE), 0.01) == "done"

    async def test_a_command_past_its_deadline_raises_timeout_within_a_quarter_more(self) -> None:
        started = time.monotonic()
        with pytest.raises(TimeoutError):
            await bounded(Watchdog(DEADLINE), 10)
        waited = time.monotonic() - started
        assert DEADLINE <= waited < DEADLINE * 1.25 + 0.2

    async def test_a_task_whose_command_ended_is_never_cancelled_later(self) -> None:
        watchdog = Watchdog(DEADLINE)
        await bounded(watchdog, 0.01)
        await asyncio.sleep(DEADLINE * 2)  # the timer's tick passes with nothing in flight
        assert await bounded(watchdog, 0.01) == "done"

    async def test_only_the_overdue_command_of_many_in_flight_times_out(self) -> None:
        watchdog = Watchdog(DEADLINE)
        quick = [asyncio.create_task(bounded(watchdog, 0.05 * n)) for n in range(3)]
        slow = asyncio.create_task(bounded(watchdog, 10))
        assert await asyncio.gather(*quick) == ["done"] * 3
        with pytest.raises(TimeoutError):
            await slow

    async def test_commands_one_after_another_each_get_the_whole_deadline(self) -> None:
        watchdog = Watchdog(DEADLINE)
        for _ in range(4):  # together longer than one deadline
            assert await bounded(watchdog, DEADLINE * 0.6) == "done"

    async def test_a_task_goes_on_after_its_command_timed_out(self) -> None:
        watchdog = Watchdog(DEADLINE)
        with pytest.raises(TimeoutError):
            await bounded(watchdog, 10)
        await asyncio.sleep(0.01)  # the watchdog's cancellation was taken back
        assert await bounded(watchdog, 0.01) == "done"


class TestCancellation:
    async def test_a_cancellation_from_elsewhere_stays_a_cancellation(self) -> None:
        task = asyncio.create_task(bounded(Watchdog(DEADLINE), 10))
        await asyncio.sleep(0.01)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert task.cancelled()

    async def test_a_task_cancelled_before_its_command_is_not_turned_into_a_timeout(self) -> None:
        watchdog = Watchdog(DEADLINE)

        async def command() -> None:
            with contextlib.suppress(asyncio.CancelledError):  # the task handles the first one
                await asyncio.sleep(10)
            with watchdog:
                await asyncio.sleep(10)

        task = asyncio.create_task(command())
        await asyncio.sleep(0.01)
        task.cancel()
        with pytest.raises(TimeoutError):  # its own deadline still holds after the handled one
            await task


class TestMisuse:
    def test_a_deadline_of_zero_is_refused(self) -> None:
        with pytest.raises(ValueError, match="above zero"):
            Watchdog(0)

    def test_a_block_outside_a_running_task_is_refused(self) -> None:
        with pytest.raises(RuntimeError, match="running asyncio task"), Watchdog(DEADLINE):
            pass

    async def test_a_second_block_in_the_same_task_is_refused(self) -> None:
        watchdog = Watchdog(DEADLINE)
        with watchdog, pytest.raises(RuntimeError, match="one block at a time"), watchdog:
            pass


class TestSharedDeadlines:
    async def test_blocks_until_one_deadline_share_it(self) -> None:
        watchdog = Watchdog(DEADLINE)
        deadline = asyncio.get_running_loop().time() + DEADLINE
        with watchdog.until(deadline):
            await asyncio.sleep(DEADLINE / 2)
        with pytest.raises(TimeoutError), watchdog.until(deadline):  # half the deadline is left
            await asyncio.sleep(DEADLINE)

    async def test_a_block_until_a_deadline_already_past_times_out_at_the_next_tick(self) -> None:
        watchdog = Watchdog(DEADLINE)
        started = time.monotonic()
        with pytest.raises(TimeoutError), watchdog.until(asyncio.get_running_loop().time() - 1):
            await asyncio.sleep(10)
        assert time.monotonic() - started < DEADLINE / 4 + 0.2


def test_one_watchdog_serves_event_loops_one_after_another() -> None:
    watchdog = Watchdog(DEADLINE)
    for _ in range(2):
        assert asyncio.run(bounded(watchdog, 0.01)) == "done"
        with pytest.raises(TimeoutError):
            asyncio.run(bounded(watchdog, 10))


def test_a_loop_closed_before_its_timer_ran_is_not_kept_alive() -> None:
    watchdog = Watchdog(60)
    first = asyncio.new_event_loop()
    first.run_until_complete(bounded(watchdog, 0))  # its timer would run 15 s later
    first.close()
    closed = weakref.ref(first)
    del first
    assert asyncio.run(bounded(watchdog, 0)) == "done"
    gc.collect()
    assert closed() is None
