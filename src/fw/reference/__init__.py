"""The documentation's reference pages, generated from fw itself so they cannot drift.

``python -m fw.reference docs/reference`` writes them; ``tests/documentation`` checks that the committed
pages equal what this package generates now. The configuration key reference comes from the
key tables fw registers (:mod:`fw.reference.config_keys`), the binding rule reference from the
binder's rule table (:mod:`fw.reference.binding_rules`), the metrics reference from the series
fw exports (:mod:`fw.operations.metrics`).
"""

from __future__ import annotations

from fw.reference.binding_rules import binding_rules_page
from fw.reference.config_keys import config_keys_page
from fw.reference.metrics import metrics_page

#: File name under ``docs/reference/`` -> the function writing its text.
PAGES = {
    "configuration-keys.md": config_keys_page,
    "binding-rules.md": binding_rules_page,
    "metrics.md": metrics_page,
}


def pages() -> dict[str, str]:
    """Every generated reference page: file name -> Markdown text."""
    return {name: write() for name, write in PAGES.items()}


__all__ = ["PAGES", "pages"]
