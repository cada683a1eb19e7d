"""Fixtures of the newcomer tests: the built distributions (once per session) and a clean terminal."""

from __future__ import annotations

from pathlib import Path

import pytest
from built_distributions import Distributions, built

from newcomer.terminal import Terminal, clean_environment


@pytest.fixture(scope="session")
def distributions(tmp_path_factory: pytest.TempPathFactory) -> Distributions:
    return built(tmp_path_factory)


@pytest.fixture
def terminal(tmp_path: Path, distributions: Distributions) -> Terminal:
    """A new terminal in an empty folder standing for where a person keeps fw's checkout."""
    checkout = tmp_path / "fw"
    checkout.mkdir()
    return Terminal(checkout, clean_environment(distributions.folder))
