"""A short run of the sustained-load operations-outage scenario (benchmarks/operations_outage.py).

One ``jwt_only`` App under ``fw run``'s uvicorn, metrics, tracing (to a loopback OTLP receiver)
and the access log on, under load from a Python driver that counts every status; its private
PostgreSQL is killed for 5 s of a 20 s run. The full-length run (90 s, 10 s down) is
``benchmarks/sustained_load.py --operations-outage``; its figures are in docs/performance.md.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from local_servers import NotInstalled

BENCHMARK = Path(__file__).resolve().parents[2] / "benchmarks" / "operations_outage.py"


def _scenario() -> ModuleType:
    spec = importlib.util.spec_from_file_location("operations_outage", BENCHMARK)
    assert spec is not None and spec.loader is not None
    module = sys.modules.get("operations_outage")
    if module is None:
        module = importlib.util.module_from_spec(spec)
        sys.modules["operations_outage"] = module
        spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def outcome() -> Any:
    pytest.importorskip("prometheus_client")
    pytest.importorskip("opentelemetry.sdk")
    try:
        return _scenario().run(20.0, 5.0, kill_at=6.0, warmup=3.0, workers=6)
    except NotInstalled as missing:  # PostgreSQL's initdb
        pytest.skip(str(missing))


@pytest.mark.timeout(120)
def test_readiness_goes_503_naming_postgresql_within_2_s_of_the_kill_and_back_to_200_under_load(
    outcome: Any,
) -> None:
    failures = [f for f in outcome.failures if "/readyz" in f or "PostgreSQL was not" in f]
    assert failures == [], outcome.report()
    assert outcome.ready_flip is not None and outcome.ready_flip <= 2.0
    assert outcome.ready_back is not None
    assert outcome.readyz[-1].status == 200


@pytest.mark.timeout(120)
def test_liveness_stays_200_while_postgresql_is_down_under_load(outcome: Any) -> None:
    assert outcome.healthz, outcome.report()
    assert {poll.status for poll in outcome.healthz} == {200}, outcome.report()


@pytest.mark.timeout(120)
def test_the_503s_in_the_metrics_and_the_access_log_equal_what_the_driver_saw(outcome: Any) -> None:
    assert outcome.driver_503 > 0, outcome.report()
    assert outcome.metrics_503 == outcome.driver_503, outcome.report()
    assert outcome.access_log_503 == outcome.driver_503, outcome.report()
    routes = ("/api/me", "/open")
    driver = {key: n for key, n in outcome.requests.items() if key[0] in routes}
    scraped = {key: n for key, n in outcome.metrics.items() if key[0] in routes}
    assert scraped == driver, outcome.report()


@pytest.mark.timeout(120)
def test_requests_answer_503_only_during_the_outage_and_are_served_again_after_it(outcome: Any) -> None:
    driver_failures = [f for f in outcome.failures if f.startswith(("unexpected answer", "transport error"))]
    assert driver_failures == [], outcome.report()
    assert outcome.served_after_restart > 0, outcome.report()
    assert not any(status == 500 for _, status in outcome.requests), outcome.report()


@pytest.mark.timeout(120)
def test_the_loopback_otlp_receiver_gets_the_spans_of_the_503_answers(outcome: Any) -> None:
    assert outcome.spans_503 > 0, outcome.report()


@pytest.mark.timeout(120)
def test_resident_memory_stays_flat_through_the_outage(outcome: Any) -> None:
    first, last = outcome.memory_medians
    assert first > 0, outcome.report()
    assert abs(last - first) <= 0.10 * first, outcome.report()


@pytest.mark.timeout(120)
def test_every_check_of_the_scenario_holds(outcome: Any) -> None:
    assert outcome.failures == [], outcome.report()
