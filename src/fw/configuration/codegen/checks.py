"""Refusals that only show across registrations: names used twice, and ``dependon`` targets.

Keys, environment variables and options share one namespace over every registered type (the
framework's own included), so each is checked once all registrations of a run are planned. An
error names every field concerned, at the line of the later one.
"""

from __future__ import annotations

import importlib

import fw.configuration.registry as registry
from fw.codegen.errors import unique
from fw.configuration.codegen.plan import Plan, PlannedField
from fw.configuration.schema import Field, name_clashes
from fw.errors import GenerationError


def check_together(plans: list[Plan]) -> list[GenerationError]:
    configs = [plan for plan in plans if plan.kind == "config"]
    keys = {planned.spec.key: planned for plan in configs for planned in plan.fields}
    errors = _names_used_twice(configs)
    errors += _framework_names(configs)
    errors += _dependon_targets(configs, keys)
    return unique(errors)


def _names_used_twice(configs: list[Plan]) -> list[GenerationError]:
    owned = [(planned.spec, planned) for plan in configs for planned in plan.fields]
    errors: list[GenerationError] = []
    for name, first, second in name_clashes(owned):
        reason = "is declared twice" if name.startswith("key ") else "is used by both"
        where = second.where.about(first.where, second.where)
        errors.append(where.error(f"{name} {reason} (first at {first.where.at})"))
    return errors


def _framework_names(configs: list[Plan]) -> list[GenerationError]:
    """An application may name the framework's keys in ``dependon`` but never reuse their names."""
    builtin = _builtin_fields(configs)
    builtin_envs = {spec.env: key for key, spec in builtin.items() if spec.env is not None}
    builtin_options = {option: key for key, spec in builtin.items() for option in spec.opts}
    errors: list[GenerationError] = []
    for plan in configs:
        for planned in plan.fields:
            spec = planned.spec
            if spec.key in builtin:
                errors.append(planned.where.error(f"key {spec.key} is one of the framework's own keys"))
            elif spec.env in builtin_envs:
                errors.append(
                    planned.where.error(
                        f"environment variable {spec.env} is used by the framework's {builtin_envs[spec.env]}"
                    )
                )
            for option in spec.opts:
                if option in builtin_options:
                    errors.append(
                        planned.where.error(
                            f"option {option} is used by the framework's {builtin_options[option]}"
                        )
                    )
    return errors


def _dependon_targets(configs: list[Plan], keys: dict[str, PlannedField]) -> list[GenerationError]:
    tables = {table for plan in configs for table, _ in plan.tables}
    tables.update(array.key for plan in configs for array in plan.arrays)
    builtin = _builtin_fields(configs)
    errors: list[GenerationError] = []
    for plan in configs:
        sites = [planned.dependon for planned in plan.fields] + [array.dependon for array in plan.arrays]
        for dependon in sites:
            for target, where in dependon:
                parent = keys.get(target)
                if parent is None:
                    if target in tables:
                        errors.append(where.error(f"dependon {target!r} names a table, not a key"))
                    elif target not in builtin:
                        errors.append(where.error(f"dependon names an undeclared key {target!r}"))
                    continue
                if parent.spec.kind in ("int", "duration") and parent.spec.falsy is None:
                    errors.append(
                        where.about(where, parent.where).error(
                            f"dependon {target!r}: a {parent.spec.kind} key named by dependon must declare "
                            f"falsy (its off value) at {parent.where.at}"
                        )
                    )
    return errors


def _builtin_fields(configs: list[Plan]) -> dict[str, Field]:
    """The framework's own keys, unless this run is generating them."""
    if any(registry.is_framework_module(plan.cls.__module__) for plan in configs):
        return {}
    try:
        generated = importlib.import_module("fw._fw_config")
    except ImportError:
        return {}
    loaders = getattr(generated, "LOADERS", {}).values()
    return {spec.key: spec for loader in loaders for spec in loader.fields}
