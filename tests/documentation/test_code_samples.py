"""Every Python sample in the documentation runs: a page's samples, generated for and imported
as one module (``tests/documentation/samples.py``). The few excerpts that cannot run alone say why."""

from __future__ import annotations

from pathlib import Path

import pytest

from documentation.samples import REPO, pages, run_page, samples

RUNNABLE = [page for page in pages() if any(not sample.not_run for sample in samples(page))]


def test_the_documentation_has_samples_and_most_of_them_run() -> None:
    every = [sample for page in pages() for sample in samples(page)]
    excerpts = [sample for sample in every if sample.not_run]
    assert len(every) >= 30
    assert len(excerpts) * 2 < len(every), [f"{s.page.name}:{s.line}" for s in excerpts]


@pytest.mark.parametrize("page", RUNNABLE, ids=lambda page: str(page.relative_to(REPO)))
def test_the_samples_of_a_page_run(page: Path, tmp_path: Path) -> None:
    result = run_page(page, tmp_path)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-5000:]
