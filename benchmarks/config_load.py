"""Configuration load: fw against pydantic-settings, 200 keys from defaults, a TOML file, env and argv.

Run with ``.venv/bin/python benchmarks/config_load.py``. Both sides load an equivalent model
(10 tables of 20 keys: str, int, bool, duration, list) where a quarter of the keys come from each
layer. Only the notation differs where the two libraries differ: fw reads Go durations (``90s``)
and comma lists from the environment, pydantic-settings reads ISO 8601 durations and JSON lists.
Prints a markdown table: median time per full load and the ratio.
"""

from __future__ import annotations

import importlib
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

SECTIONS, FIELDS = 10, 20
KINDS = ["str", "int", "bool", "duration", "list"]
ROUNDS = 200


def kind_of(index: int) -> str:
    return KINDS[index % len(KINDS)]


def layer_of(section: int, index: int) -> int:
    return (section * FIELDS + index) % 4  # 0 default, 1 file, 2 env, 3 argv


def fw_source() -> str:
    annotation = {
        "str": 'Annotated[str, fw.default("d")]',
        "int": 'Annotated[int, fw.default("1")]',
        "bool": 'Annotated[bool, fw.default("false")]',
        "duration": 'Annotated[timedelta, fw.default("1s")]',
        "list": 'Annotated[list[str], fw.default("a")]',
    }
    lines = [
        "from __future__ import annotations",
        "from dataclasses import dataclass",
        "from datetime import timedelta",
        "from typing import Annotated",
        "import fw",
    ]
    for section in range(SECTIONS):
        lines += ["", "", "@dataclass", f"class S{section}:"]
        lines += [f"    f{index}: {annotation[kind_of(index)]}" for index in range(FIELDS)]
    lines += ["", "", "@dataclass", "class Bench:"]
    lines += [f"    s{section}: S{section}" for section in range(SECTIONS)]
    lines += ["", "", 'fw.register_config(Bench, "bench")', ""]
    return "\n".join(lines)


def layer_values(go: bool) -> tuple[str, dict[str, str], list[str]]:
    """The TOML text, environment and argv (fw notation when ``go``, else pydantic's)."""
    toml = ["[bench]"]
    env: dict[str, str] = {}
    argv: list[str] = []
    for section in range(SECTIONS):
        toml.append(f"[bench.s{section}]")
        for index in range(FIELDS):
            kind, layer = kind_of(index), layer_of(section, index)
            if layer == 1:
                value = {
                    "str": '"file"',
                    "int": "2",
                    "bool": "true",
                    "duration": '"90s"' if go else '"PT90S"',
                    "list": '["x", "y"]',
                }[kind]
                toml.append(f"f{index} = {value}")
            elif layer == 2:
                env[f"BENCH_S{section}_F{index}"] = {
                    "str": "env",
                    "int": "3",
                    "bool": "true",
                    "duration": "2m" if go else "PT2M",
                    "list": "p,q" if go else '["p","q"]',
                }[kind]
            elif layer == 3:
                option = f"--bench-s{section}-f{index}" if go else f"--s{section}.f{index}"
                cli = {"str": "cli", "int": "4", "bool": "true", "list": "z"}
                text = ("3h" if go else "PT3H") if kind == "duration" else cli[kind]
                if kind == "bool" and go:
                    argv.append(option)
                else:
                    argv += [option, text]
    return "\n".join(toml) + "\n", env, argv


def bench(load: Callable[[], Any]) -> float:
    load()
    samples = []
    for _ in range(ROUNDS):
        start = time.perf_counter()
        load()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def run_fw(work: Path) -> tuple[float, Any]:
    import fw
    from fw.configuration import registry
    from fw.generate.config import generate_folders

    package = work / "fwbench"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "settings.py").write_text(fw_source())
    for output in generate_folders([package]):
        output.path.write_text(output.text)
    sys.path.insert(0, str(work))
    module = importlib.import_module("fwbench.settings")
    toml, env, argv = layer_values(go=True)
    (work / "config.dev.toml").write_text(toml)
    os.environ.update(env)
    fw.set_config_load_options(working_dir=work, search_paths=["config.{env}.toml"], dotenv_files=[])

    def load() -> Any:
        fw.parse_config(argv)
        return fw.config(module.Bench)

    seconds = bench(load)
    value = load()
    for name in env:
        del os.environ[name]
    registry.reset()
    return seconds, value


def run_pydantic(work: Path) -> tuple[float, Any]:
    from pydantic import BaseModel, create_model
    from pydantic_settings import (
        BaseSettings,
        CliSettingsSource,
        PydanticBaseSettingsSource,
        SettingsConfigDict,
        TomlConfigSettingsSource,
    )

    defaults: dict[str, tuple[Any, Any]] = {
        "str": (str, "d"),
        "int": (int, 1),
        "bool": (bool, False),
        "duration": (timedelta, timedelta(seconds=1)),
        "list": (list[str], ["a"]),
    }
    sections: dict[str, Any] = {}
    for section in range(SECTIONS):
        fields: dict[str, Any] = {f"f{index}": defaults[kind_of(index)] for index in range(FIELDS)}
        model = create_model(f"P{section}", __base__=BaseModel, **fields)
        sections[f"s{section}"] = (model, model())
    toml, env, argv = layer_values(go=False)
    path = work / "pydantic.toml"
    path.write_text(toml)

    class Base(BaseSettings):
        model_config = SettingsConfigDict(env_prefix="BENCH_", env_nested_delimiter="_")

        @classmethod
        def settings_customise_sources(
            cls,
            settings_cls: type[BaseSettings],
            init_settings: PydanticBaseSettingsSource,
            env_settings: PydanticBaseSettingsSource,
            dotenv_settings: PydanticBaseSettingsSource,
            file_secret_settings: PydanticBaseSettingsSource,
        ) -> tuple[PydanticBaseSettingsSource, ...]:
            return (
                CliSettingsSource(settings_cls, cli_parse_args=argv),
                env_settings,
                TomlConfigSettingsSource(settings_cls, toml_file=path, toml_table_header=("bench",)),
            )

    settings_cls = create_model("PBench", __base__=Base, **sections)
    os.environ.update(env)
    seconds = bench(settings_cls)
    value = settings_cls()
    for name in env:
        del os.environ[name]
    return seconds, value


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        fw_seconds, fw_value = run_fw(work)
        pd_seconds, pd_value = run_pydantic(work)
    for section in range(SECTIONS):
        ours, theirs = getattr(fw_value, f"s{section}"), getattr(pd_value, f"s{section}")
        for index in range(FIELDS):
            left, right = getattr(ours, f"f{index}"), getattr(theirs, f"f{index}")
            assert left == right, (section, index, left, right)
    keys = SECTIONS * FIELDS
    print(
        f"Configuration load: {keys} keys from defaults, a TOML file, env and argv; median of {ROUNDS} loads."
    )
    print()
    print("| loader | median per load | relative |")
    print("|---|---|---|")
    print(f"| fw (generated loader) | {fw_seconds * 1000:.2f} ms | 1.00x |")
    print(f"| pydantic-settings {version()} | {pd_seconds * 1000:.2f} ms | {pd_seconds / fw_seconds:.2f}x |")
    figures = {"fw_ms": round(fw_seconds * 1000, 3), "pydantic_settings_ms": round(pd_seconds * 1000, 3)}
    print(json.dumps(figures))


def version() -> str:
    import pydantic_settings

    return str(pydantic_settings.__version__)


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
    main()
