"""``fw.testing.configured``: exactly the layers a test gives, and the previous state afterwards."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from pillars import pillars

import fw
from fw.auth.settings import AuthSettings
from fw.configuration import registry
from fw.errors import ConfigError, StartupError
from fw.settings import ServerSettings
from fw.testing import configured

from .conftest import PREAMBLE, Declare

SOURCE = (
    PREAMBLE
    + """
@dataclass
class Shop:
    name: Annotated[str, fw.default("declared")]
    port: Annotated[int, fw.default("1"), fw.opt("port,p")]
    tags: list[str]
    secret_word: str


fw.register_config(Shop, "shop")
"""
)


@pytest.fixture
def shop(declare: Declare) -> Any:
    return declare(SOURCE).Shop


def test_the_given_layers_stack_in_the_usual_order_with_their_sources(shop: Any) -> None:
    toml = '[shop]\nname = "file"\nport = 2\ntags = ["a"]\n'
    with configured(toml=toml, env={"SHOP_NAME": "env"}, argv=["-p", "3"]):
        cfg = fw.config(shop)
        assert (cfg.name, cfg.port, cfg.tags) == ("env", 3, ["a"])
        assert registry.source_of("shop.name") == "env:SHOP_NAME"
        assert registry.source_of("shop.port") == "option:-p"
        assert registry.source_of("shop.tags") == "file:<toml>:4"
        assert registry.source_of("shop.secret_word") == "default"


def test_no_file_dotenv_or_process_variable_leaks_in(
    shop: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    fw.set_config_load_options(working_dir=tmp_path)
    (tmp_path / "config.dev.toml").write_text('[shop]\nname = "searched"\n')
    (tmp_path / ".env").write_text("SHOP_PORT=9\n")
    monkeypatch.setenv("SHOP_TAGS", "from,shell")
    monkeypatch.setenv("APP_ENV", "NOT VALID")
    with configured():
        cfg = fw.config(shop)
        assert (cfg.name, cfg.port, cfg.tags) == ("declared", 1, [])


def test_references_and_app_env_read_only_the_given_environment(
    shop: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SHELL_ONLY", "leak")
    with configured(toml='[shop]\nsecret_word = "${WORD}"\n', env={"WORD": "given", "APP_ENV": "stg"}):
        assert fw.config(shop).secret_word == "given"
        assert registry.state().app_env == "stg"
    with (
        pytest.raises(ConfigError, match="undefined variable SHELL_ONLY"),
        configured(toml='[shop]\nsecret_word = "${SHELL_ONLY}"\n'),
    ):
        pytest.fail("the block must not run")


def test_the_previous_configuration_comes_back_afterwards(shop: Any) -> None:
    fw.parse_config(["--shop-name", "outer"])
    outer = registry.state()
    with configured(argv=["--shop-name", "inner"]):
        assert fw.config(shop).name == "inner"
        with configured(argv=["--shop-name", "innermost"]):
            assert fw.config(shop).name == "innermost"
        assert fw.config(shop).name == "inner"
    assert registry.state() is outer
    assert fw.config(shop).name == "outer"


def test_an_unparsed_registry_stays_unparsed(shop: Any) -> None:
    with configured(argv=["--shop-name", "inner"]):
        assert registry.state().parsed
    assert not registry.state().parsed
    assert fw.config(shop).name == "declared"


def test_the_previous_configuration_comes_back_after_an_error_in_the_block(shop: Any) -> None:
    before = registry.state()
    with pytest.raises(ZeroDivisionError), configured(argv=["--shop-name", "inner"]):
        1 / 0  # noqa: B018
    assert registry.state() is before


@pytest.mark.parametrize(
    ("layers", "key", "source"),
    [
        ({"toml": "[shop]\nport = 1.5\n"}, "shop.port", "file:<toml>:2"),
        ({"toml": "[shop]\nport = {x = 1}\n"}, "shop.port", "file:<toml>:2"),
        ({"env": {"PORT": "eighty"}}, "shop.port", "env:PORT"),
        ({"argv": ["--port"]}, "shop.port", "option:--port"),
        ({"env": {"APP_ENV": "Prod"}}, "APP_ENV", "env:APP_ENV"),
    ],
)
def test_bad_layers_fail_at_the_with_line_naming_key_and_source(
    shop: Any, layers: dict[str, Any], key: str, source: str
) -> None:
    before = registry.state()
    with pytest.raises(ConfigError) as caught, configured(**layers):
        pytest.fail("the block must not run")
    assert (caught.value.key, caught.value.source) == (key, source)
    assert registry.state() is before


def test_an_explicit_config_path_is_read_but_not_together_with_toml(shop: Any, tmp_path: Path) -> None:
    path = tmp_path / "given.toml"
    path.write_text('[shop]\nname = "from-path"\n')
    with configured(argv=["--config-path", str(path)]):
        assert fw.config(shop).name == "from-path"
    with (
        pytest.raises(ConfigError, match="not both"),
        configured(toml='[shop]\nname = "x"\n', argv=["--config-path", str(path)]),
    ):
        pytest.fail("the block must not run")


def test_the_framework_settings_are_configured_too(fresh: None) -> None:
    with configured(toml="[server]\nport = 9999\n", env={"AUTH_ENABLED": "true"}):
        assert fw.config(ServerSettings).port == 9999
        assert fw.config(AuthSettings).enabled is True
    assert fw.config(ServerSettings).port == 8000


def test_an_app_built_inside_the_block_takes_its_pillars_from_it(fresh: None) -> None:
    with configured():
        assert pillars(fw.App()) == []
    with configured(toml='[auth]\nenabled = true\nmode = "jwt_only"\n'):
        app = fw.App()
        assert len(pillars(app)) == 1
        with pytest.raises(StartupError) as caught:
            asyncio.run(app.startup())
    assert caught.value.key.startswith("auth.jwt.")
