"""The committed reference pages are exactly what fw generates from itself now."""

from __future__ import annotations

import pytest

from documentation.samples import DOCS
from fw.reference import PAGES, pages


@pytest.mark.parametrize("name", sorted(PAGES))
def test_a_committed_reference_page_equals_the_generated_one(name: str) -> None:
    committed = (DOCS / "reference" / name).read_text(encoding="utf-8")
    assert committed == pages()[name], f"regenerate: python -m fw.reference docs/reference ({name})"


def test_the_key_reference_lists_every_key_fw_registers_with_its_environment_name() -> None:
    from fw.configuration.registry import registered_loaders

    text = pages()["configuration-keys.md"]
    for loader in registered_loaders():
        if not loader.type_name.startswith("fw."):
            continue
        for spec in loader.fields:
            assert f"`{spec.name}`" in text and (spec.env is None or f"`{spec.env}`" in text), spec.key


def test_the_rule_reference_lists_every_rule_the_generator_accepts() -> None:
    from fw.binding.codegen.plan import _RULES

    text = pages()["binding-rules.md"]
    for rule in _RULES:
        assert f"| `{rule}" in text, rule
