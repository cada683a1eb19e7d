"""fw.auth.stores.gathered.GatheredReads: reads made while the store is busy go as one call."""

from __future__ import annotations

import asyncio
import time

import pytest

from fw.auth.stores.errors import StoreUnavailable
from fw.auth.stores.gathered import MOST_PER_BATCH, GatheredReads
from fw.watchdog import Watchdog

DEADLINE = 0.2


class FakeStore:
    """Values by key; every call recorded; ``hold`` keeps calls waiting until it is set."""

    def __init__(self, values: dict[str, str] | None = None) -> None:
        self.values = values if values is not None else {}
        self.calls: list[list[str]] = []
        self.hold = asyncio.Event()
        self.hold.set()
        self.error: BaseException | None = None
        self.short = False

    async def fetch_one(self, key: str) -> str | None:
        self.calls.append([key])
        await self.hold.wait()
        if self.error is not None:
            raise self.error
        return self.values.get(key)

    async def fetch(self, keys: list[str]) -> list[str | None]:
        self.calls.append(list(keys))
        await self.hold.wait()
        if self.error is not None:
            raise self.error
        found = [self.values.get(key) for key in keys]
        return found[:-1] if self.short else found


def gathered(store: FakeStore, seconds: float = 5.0) -> GatheredReads[str | None]:
    return GatheredReads(
        store.fetch_one,
        store.fetch,
        failures=(OSError,),
        failure=lambda error: StoreUnavailable(f"store: {error}"),
        bound=Watchdog(seconds),
    )


async def busy(store: FakeStore, reads: GatheredReads[str | None]) -> asyncio.Task[str | None]:
    """A read the store holds, in flight: what makes the next reads gather."""
    store.hold.clear()
    first = asyncio.create_task(reads.read("first"))
    await asyncio.sleep(0)
    assert store.calls == [["first"]]
    return first


async def released(
    store: FakeStore,
    reads: GatheredReads[str | None],
    keys: list[str],
    *,
    error: BaseException | None = None,
    short: bool = False,
) -> tuple[list[object], asyncio.Task[str | None]]:
    """Reads of ``keys`` gathered behind a lone read the store holds, then the store let go
    (failing with ``error``, or answering one value short): their answers, and the lone read."""
    first = await busy(store, reads)
    later = [asyncio.create_task(reads.read(key)) for key in keys]
    await asyncio.sleep(0)
    store.error, store.short = error, short
    store.hold.set()
    return list(await asyncio.gather(*later, return_exceptions=True)), first


class TestWhenTheStoreIsIdle:
    async def test_a_lone_read_goes_at_once_by_itself(self) -> None:
        store = FakeStore({"a": "1"})
        reads = gathered(store)
        assert await reads.read("a") == "1"
        assert await reads.read("missing") is None
        assert store.calls == [["a"], ["missing"]]

    async def test_a_lone_read_that_fails_raises_the_failure_in_the_stores_words(self) -> None:
        store = FakeStore()
        store.error = ConnectionRefusedError("refused")
        with pytest.raises(StoreUnavailable, match="store: refused"):
            await gathered(store).read("a")


class TestWhileTheStoreIsBusy:
    async def test_reads_of_one_turn_go_as_one_call_each_getting_its_own_value(self) -> None:
        store = FakeStore({f"k{n}": f"v{n}" for n in range(10)} | {"first": "f"})
        reads = gathered(store)
        first = await busy(store, reads)
        later = [asyncio.create_task(reads.read(key)) for key in ("k3", "nope", "k1", "k3", "k9")]
        await asyncio.sleep(0)  # every read of the turn has joined
        store.hold.set()
        assert await asyncio.gather(*later) == ["v3", None, "v1", "v3", "v9"]
        assert await first == "f"
        assert store.calls == [["first"], ["k3", "nope", "k1", "k3", "k9"]]

    async def test_reads_of_later_turns_go_in_later_calls(self) -> None:
        store = FakeStore({"a": "1", "b": "2", "first": "f"})
        reads = gathered(store)
        first = await busy(store, reads)
        one = asyncio.create_task(reads.read("a"))
        await asyncio.sleep(0)
        await asyncio.sleep(0)
        two = asyncio.create_task(reads.read("b"))
        await asyncio.sleep(0)
        store.hold.set()
        assert list(await asyncio.gather(one, two, first)) == ["1", "2", "f"]
        assert store.calls == [["first"], ["a"], ["b"]]

    async def test_a_turn_of_more_reads_than_a_batch_carries_goes_in_several_calls(self) -> None:
        count = MOST_PER_BATCH * 2 + 5
        store = FakeStore({f"k{n}": str(n) for n in range(count)} | {"first": "f"})
        reads = gathered(store)
        first = await busy(store, reads)
        later = [asyncio.create_task(reads.read(f"k{n}")) for n in range(count)]
        await asyncio.sleep(0)
        store.hold.set()
        assert await asyncio.gather(*later) == [str(n) for n in range(count)]
        await first
        assert [len(keys) for keys in store.calls] == [1, MOST_PER_BATCH, MOST_PER_BATCH, 5]

    async def test_a_failed_call_fails_every_reader_each_with_its_own_exception(self) -> None:
        store = FakeStore()
        reset = ConnectionResetError("reset")
        raised, first = await released(store, gathered(store), ["k0", "k1", "k2"], error=reset)
        with pytest.raises(StoreUnavailable) as lone:
            await first
        raised.append(lone.value)
        assert all(isinstance(error, StoreUnavailable) and str(error) == "store: reset" for error in raised)
        assert len({id(error) for error in raised}) == 4  # no traceback grows on a shared instance

    async def test_a_bug_in_the_call_reaches_each_reader_as_a_runtime_error_caused_by_it(self) -> None:
        store = FakeStore()
        raised, first = await released(store, gathered(store), ["k0", "k1"], error=KeyError("bug"))
        for error in raised:
            assert isinstance(error, RuntimeError)
            assert isinstance(error.__cause__, KeyError)
        with pytest.raises(KeyError):  # a lone read raises it as it is
            await first

    async def test_a_call_answering_fewer_values_than_keys_fails_every_reader(self) -> None:
        store = FakeStore({"a": "1", "b": "2"})
        raised, first = await released(store, gathered(store), ["a", "b"], short=True)
        assert all(isinstance(error, RuntimeError) for error in raised)
        assert "1 values came back for 2 keys" in str(raised[-1])
        assert await first is None  # a lone read is the store's own answer

    async def test_a_reader_that_stops_waiting_takes_nothing_from_the_others(self) -> None:
        store = FakeStore({"a": "1", "b": "2", "first": "f"})
        reads = gathered(store)
        first = await busy(store, reads)
        leaving = asyncio.create_task(reads.read("a"))
        staying = asyncio.create_task(reads.read("b"))
        await asyncio.sleep(0)
        leaving.cancel()
        store.hold.set()
        assert await staying == "2"
        assert await first == "f"
        assert leaving.cancelled()

    async def test_a_store_that_never_answers_fails_every_reader_by_the_deadline(self) -> None:
        store = FakeStore()
        reads = gathered(store, seconds=DEADLINE)
        first = await busy(store, reads)
        later = [asyncio.create_task(reads.read(f"k{n}")) for n in range(3)]
        started = time.monotonic()
        raised = await asyncio.gather(*later, first, return_exceptions=True)
        waited = time.monotonic() - started
        assert all(isinstance(error, StoreUnavailable) for error in raised)
        assert waited < DEADLINE * 1.25 + 0.5

    async def test_reads_go_at_once_again_when_the_store_is_no_longer_busy(self) -> None:
        store = FakeStore({"a": "1", "first": "f"})
        reads = gathered(store)
        first = await busy(store, reads)
        joined = asyncio.create_task(reads.read("a"))
        await asyncio.sleep(0)
        store.hold.set()
        await asyncio.gather(first, joined)
        store.calls.clear()
        assert await reads.read("a") == "1"
        assert store.calls == [["a"]]


def test_one_gathering_serves_event_loops_one_after_another() -> None:
    store = FakeStore({"a": "1", "first": "f"})
    reads = gathered(store)

    async def some_reads() -> list[str | None]:
        store.hold = asyncio.Event()  # an event of this loop
        store.calls.clear()
        first = await busy(store, reads)
        joined = asyncio.create_task(reads.read("a"))
        await asyncio.sleep(0)
        store.hold.set()
        return list(await asyncio.gather(first, joined))

    assert asyncio.run(some_reads()) == ["f", "1"]
    assert asyncio.run(some_reads()) == ["f", "1"]
