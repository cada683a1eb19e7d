"""The shape of the package: no import cycles, and each layer imports only what is below it.

The graph is read from the source with ``ast``, so it also sees imports hidden inside functions
and under ``TYPE_CHECKING``: a cycle there is still a cycle in the design, only postponed.
``from fw import x`` counts as importing the package ``fw`` itself (its ``__init__`` runs).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest

import fw

SOURCE = Path(fw.__file__).parent
GENERATED = {"_fw_binders.py", "_fw_config.py"}


def _module_name(path: Path) -> str:
    parts = path.relative_to(SOURCE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@cache
def _modules() -> dict[str, Path]:
    return {
        _module_name(path): path
        for path in SOURCE.rglob("*.py")
        if path.name not in GENERATED and "migrations" not in path.parts
    }


def _imported(module: str, path: Path) -> Iterator[str]:
    """Every fw module this one names in an import statement, anywhere in the file."""
    modules = _modules()
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join([*anchor, base] if base else anchor)
            targets = [base, *(f"{base}.{alias.name}" for alias in node.names)]
        else:
            continue
        for target in targets:
            if target in modules and target != module:
                yield target


@cache
def _graph() -> dict[str, frozenset[str]]:
    return {name: frozenset(_imported(name, path)) for name, path in _modules().items()}


def _cycles(graph: dict[str, frozenset[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, edges = work[-1]
            for target in edges:
                if target not in index:
                    index[target] = low[target] = len(index)
                    stack.append(target)
                    on_stack.add(target)
                    work.append((target, iter(sorted(graph[target]))))
                    break
                if target in on_stack:
                    low[node] = min(low[node], index[target])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
    return found


def _members(package: str) -> list[str]:
    """``package`` and every module beneath it; a name this file checks that fw no longer has
    fails the check (a renamed layer must be renamed here too, not silently left unchecked)."""
    assert package in _modules(), f"{package} is not a module of fw any more: update this test"
    return [name for name in _modules() if name == package or name.startswith(f"{package}.")]


def _reachable(start: str) -> set[str]:
    graph = _graph()
    seen: set[str] = set()
    todo = [start]
    while todo:
        for target in graph[todo.pop()]:
            if target not in seen:
                seen.add(target)
                todo.append(target)
    return seen


def test_the_cycle_finder_finds_a_cycle() -> None:
    graph = {"a": frozenset({"b"}), "b": frozenset({"c"}), "c": frozenset({"a"}), "d": frozenset({"a"})}
    assert _cycles(graph) == [["a", "b", "c"]]


def test_fw_has_no_import_cycles() -> None:
    assert _cycles(_graph()) == []


def test_a_layer_that_is_gone_fails_the_check_instead_of_passing_it() -> None:
    with pytest.raises(AssertionError, match=r"fw\.no_such_layer is not a module of fw"):
        _members("fw.no_such_layer")


@pytest.mark.parametrize("layer", ["fw.configuration", "fw.codegen", "fw.problems", "fw.markers"])
def test_the_lowest_layers_know_nothing_about_auth_or_the_app(layer: str) -> None:
    members = _members(layer)
    reached = set().union(*(_reachable(name) for name in members))
    assert sorted(n for n in reached if n.startswith(("fw.auth", "fw.app", "fw.settings"))) == []


@pytest.mark.parametrize(
    "protocol",
    ["fw.auth.tokens", "fw.auth.jwt", "fw.auth.oidc", "fw.auth.oauth", "fw.auth.dpop", "fw.auth.webauthn"],
)
def test_protocol_code_knows_nothing_about_the_app_or_configuration(protocol: str) -> None:
    members = _members(protocol)
    reached = set().union(*(_reachable(name) for name in members))
    forbidden = ("fw.app", "fw.configuration", "fw.settings", "fw.auth.modes", "fw.auth.plugin")
    assert sorted(n for n in reached if n.startswith(forbidden)) == []


def test_stores_receive_their_settings_and_read_no_configuration() -> None:
    """Where a store lives is resolved once by the auth factory (fw.auth.configured) and handed
    over; a store module reading the configuration itself would bypass that seam."""
    stores = [name for name in _modules() if name.startswith("fw.auth.stores.")]
    # firestore_ttl only contributes an advisory to fw doctor: it is handed the values to judge.
    # An engine's declaration registers its settings table (fw.register_config) and reads none:
    # its opener is handed the resolved table (StoreSettings.table).
    readers = {
        name: sorted(n for n in _graph()[name] if n in ("fw.configuration", "fw.configuration.registry"))
        for name in stores
        if name != "fw.auth.stores.firestore_ttl" and not name.startswith("fw.auth.stores.engines.")
    }
    assert "fw.auth.stores.select" in readers
    assert "fw.auth.stores.firestore_ttl" in stores, "the exemption above names a module fw no longer has"
    assert {name: found for name, found in readers.items() if found} == {}


def test_fw_settings_names_no_store_and_no_mode() -> None:
    """A store is one package declaring its own table and a mode is one package registering
    itself: ``fw/settings.py`` keeps only the tables that belong to neither, so no engine or mode
    name (nor an engine's settings class) appears in it, in code, strings or comments."""
    from fw.auth.modes import registry as modes
    from fw.auth.stores import registry as stores

    engines = stores.registered_stores()
    names = [engine.name for engine in engines] + [mode.name for mode in modes.registered_modes()]
    assert {"rdb", "cookie", "redis", "dynamo", "firestore", "oidc_only", "jwt_only"} <= set(names)
    classes = [engine.settings.__qualname__ for engine in engines if engine.settings is not None]
    assert "RdbSettings" in classes
    text = (SOURCE / "settings.py").read_text()
    found = [word for word in names + classes if re.search(rf"(?<![a-z0-9]){word}(?![a-z0-9])", text, re.I)]
    assert found == []
