"""Advisories about the configuration file itself: keys no registration declares, and no file.

The spec ignores unknown keys, so a misspelt ``prot = 8000`` in ``[server]`` loads and does
nothing; and ``APP_ENV=prod`` without ``config.prod.toml`` starts on defaults. Neither may stop a
start (an environment-only deployment is legitimate), so both are warnings in ``fw doctor`` and
the startup summary, naming the line and the nearest declared key, or the files searched.
"""

from __future__ import annotations

import difflib
from collections.abc import Collection, Iterator, Sequence
from pathlib import Path

from fw.configuration.advisory import Advisory
from fw.configuration.schema import Loader
from fw.configuration.tomlfile import FileLayer

#: How alike a misspelt name must be to a declared one to be offered (``difflib`` ratio).
_LEAF_CUTOFF = 0.6
_KEY_CUTOFF = 0.8


def unknown_keys(loaders: Sequence[Loader], file: FileLayer, skip: Collection[str] = ()) -> list[Advisory]:
    """One warning per file key no loader declares (``skip``: removed keys, never suggested)."""
    leaves = [spec.key for loader in loaders for spec in loader.fields if spec.key not in skip]
    known = set(leaves) | set(skip)
    arrays = {array.key: [spec.key for spec in array.fields] for loader in loaders for array in loader.arrays}
    found: list[tuple[int, Advisory]] = []
    for key, entry in file.values.items():
        if key not in known:
            found.append((entry.line, _unknown(key, nearest(key, leaves), file.path, entry.line)))
    for key, elements in file.arrays.items():
        line = file.array_lines.get(key, 0)
        if key not in arrays:
            near = nearest(key, list(arrays))
            found.append((line, _unknown(key, near and f"[[{near}]]", file.path, line, "table array")))
            continue
        for index, element in enumerate(elements):
            for name, entry in element.items():
                if name not in arrays[key]:
                    near = nearest(name, arrays[key])
                    full = f"{key}[{index}]."
                    advisory = _unknown(full + name, near and full + near, file.path, entry.line)
                    found.append((entry.line, advisory))
    return [advisory for _, advisory in sorted(found, key=lambda pair: pair[0])]


def _unknown(key: str, near: str | None, path: str, line: int, what: str = "key") -> Advisory:
    where = f"{path}:{line}" if line else path
    hint = f"did you mean {near}?" if near else "no registered configuration declares it, so it is ignored"
    written = f"[[{key}]]" if what == "table array" else key
    return Advisory("warning", key, f"unknown {what} {written} ({where}); {hint}")


def nearest(key: str, declared: Sequence[str]) -> str | None:
    """The declared key ``key`` most likely misspells: a close name in the same table first
    (``server.prot`` -> ``server.port``), else a close full key (``sever.port`` -> ``server.port``)."""
    table, _, name = key.rpartition(".")
    siblings = {leaf.rpartition(".")[2]: leaf for leaf in declared if leaf.rpartition(".")[0] == table}
    close = difflib.get_close_matches(name, list(siblings), n=1, cutoff=_LEAF_CUTOFF)
    if close:
        return siblings[close[0]]
    close = difflib.get_close_matches(key, list(declared), n=1, cutoff=_KEY_CUTOFF)
    return close[0] if close else None


def no_file(app_env: str, searched: Sequence[Path] | None, working_dir: Path) -> list[Advisory]:
    """A warning when ``APP_ENV`` is not ``dev`` and no configuration file was found.

    ``searched`` is the search the process made (``None``: the layers were given, as in
    :func:`fw.testing.configured`, and no file was given either).
    """
    if app_env == "dev":
        return []
    if searched is None:
        where = "no configuration file was given"
    else:
        where = f"no configuration file was found (searched {', '.join(_shown(searched, working_dir))})"
    return [
        Advisory(
            "warning",
            "APP_ENV",
            f"APP_ENV={app_env} but {where}: every key is at its default unless the environment "
            "or an option sets it",
        )
    ]


def _shown(paths: Sequence[Path], working_dir: Path) -> Iterator[str]:
    """Each searched path, relative to the working directory when it lies under it."""
    for path in paths:
        try:
            yield str(path.relative_to(working_dir))
        except ValueError:
            yield str(path)
