"""The session contract under any sequence of operations, checked against a model (hypothesis).

Hypothesis drives a state machine of saves, loads, updates, deletions and account-wide
deletions on each engine and compares every answer with a dictionary that knows what must be
there. The machine runs in a worker thread and hands each store call to the test's event loop,
where the engine's connections live.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from typing import Any, TypeVar

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    Bundle,
    RuleBasedStateMachine,
    consumes,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)

from .conftest import Backend, unique

T = TypeVar("T")
Run = Callable[[Coroutine[Any, Any, T]], T]

_NAMES = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=40)
_MALFORMED = st.one_of(st.text(max_size=80), st.sampled_from(["", "fw:shared-key", "A" * 43, "." * 200]))


@dataclass
class Expected:
    record: dict[str, Any] | None  # None: must not load
    account: str


def _machine(backend: Backend, run: Run[Any]) -> type[RuleBasedStateMachine]:
    store = backend.sessions
    accounts = [unique("acct") for _ in range(3)]

    class SessionContract(RuleBasedStateMachine):
        values = Bundle("values")

        def __init__(self) -> None:
            super().__init__()
            self.model: dict[str, Expected] = {}
            self.key: bytes | None = None

        @rule(target=values, account=st.sampled_from(accounts), name=_NAMES, live=st.booleans())
        def save(self, account: str, name: str, live: bool) -> str:
            record = {"account_id": account, "kind": "session", "display_name": name}
            expires = time.time() + (600 if live else -5)
            value = run(store.save(dict(record), expires))
            assert isinstance(value, str) and value
            assert value not in self.model, "save returned a value already in use"
            self.model[value] = Expected(record if live else None, account)
            return value

        @rule(value=values)
        def load(self, value: str) -> None:
            assert run(store.load(value)) == self.model[value].record

        @precondition(lambda self: any(e.record is not None for e in self.model.values()))
        @rule(target=values, value=consumes(values), name=_NAMES)
        def update(self, value: str, name: str) -> str:
            expected = self.model[value]
            if expected.record is None:
                return value  # the contract touches existing sessions only
            record = {**expected.record, "display_name": name}
            new_value = run(store.update(value, dict(record), time.time() + 600))
            del self.model[value]
            self.model[new_value] = Expected(record, expected.account)
            if new_value != value and not backend.recalls_sessions:
                self.model[value] = expected  # a sealed cookie still opens to what it sealed
            return new_value

        @rule(value=values)
        def delete(self, value: str) -> None:
            run(store.delete(value))
            if backend.recalls_sessions:
                self.model[value].record = None

        @rule(account=st.sampled_from(accounts))
        def delete_account(self, account: str) -> None:
            live = [e for e in self.model.values() if e.account == account and e.record is not None]
            gone = run(store.delete_account(account))
            if not backend.recalls_sessions:
                assert gone == 0
                return
            assert gone >= len(live)
            for expected in self.model.values():
                if expected.account == account:
                    expected.record = None

        @rule(value=_MALFORMED)
        def load_a_value_never_issued(self, value: str) -> None:
            if value not in self.model:
                assert run(store.load(value)) is None

        @invariant()
        def the_shared_key_never_changes(self) -> None:
            key = run(store.shared_key())
            assert len(key) == 32
            if self.key is not None:
                assert key == self.key
            self.key = key

    return SessionContract


async def test_any_sequence_of_session_operations_matches_the_model(backend: Backend) -> None:
    loop = asyncio.get_running_loop()

    def run(call: Coroutine[Any, Any, T]) -> T:
        return asyncio.run_coroutine_threadsafe(call, loop).result(timeout=60)

    machine = _machine(backend, run)
    bounded = settings(
        max_examples=50,
        stateful_step_count=25,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
    )
    await asyncio.wait_for(asyncio.to_thread(run_state_machine_as_test, machine, settings=bounded), 600)
