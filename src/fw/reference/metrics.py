"""``docs/reference/metrics.md``: every Prometheus series fw exports, from the table that defines them."""

from __future__ import annotations


def metrics_page() -> str:
    """The page's Markdown (the series table lives with the metrics: :mod:`fw.operations.metrics`)."""
    from fw.operations.metrics import metrics_reference_page

    return metrics_reference_page()
