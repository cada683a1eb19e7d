"""A password inside a URL-valued setting never reaches the startup summary or ``fw doctor``.

Each test writes a password no output could contain by chance (fresh per test) into a URL, and
checks that the JSON record, the terminal tree and the doctor lines never carry it, while they
still say where the service is (``redis://*****@cache.internal:6379/14``). fw's own URL keys
(``session.redis_url``, ``middleware.dynamo.endpoint_url``, ``auth.oauth.token_endpoint``) are
declared ``secret("dsn")``; an application key with no marker is judged by its value.
"""

from __future__ import annotations

import io
import json
import secrets
from typing import Any

import pytest

import fw
from fw import configuration
from fw.configuration import doctor, registry
from fw.configuration.advisory import Advisory
from fw.configuration.summary import write_json, write_tree
from fw.testing import configured

from .conftest import PREAMBLE, Declare

SOURCE = (
    PREAMBLE
    + """
@dataclass
class Upstream:
    #: No marker and no secret word in the key: judged by the value alone.
    url: str
    mirrors: list[str]
    homepage: str
    shown_url: Annotated[str, fw.secret("show")]


fw.register_config(Upstream, "upstream")
"""
)

SESSIONS = ["--session-enabled", "--session-backend=redis"]


class Terminal(io.StringIO):
    """A stream that says it is a terminal, so the summary is the Rich tree."""

    def isatty(self) -> bool:
        return True


@pytest.fixture
def password() -> str:
    return f"pw-{secrets.token_hex(8)}"


@pytest.fixture
def upstream(declare: Declare) -> Any:
    return declare(SOURCE)


def json_record() -> tuple[str, dict[str, Any]]:
    out = io.StringIO()
    write_json(registry.summary_items(), "prod", None, out, configuration.advisories())
    return out.getvalue(), json.loads(out.getvalue())


def tree() -> str:
    out = Terminal()
    write_tree(registry.summary_items(), "prod", None, out, configuration.advisories())
    return out.getvalue()


# The startup summary.
def test_the_json_summary_shows_a_redis_url_with_its_user_information_masked(password: str) -> None:
    url = f"redis://default:{password}@cache.internal:6379/14"
    with configured(argv=[*SESSIONS, f"--session-redis_url={url}"]):
        text, record = json_record()
    assert record["values"]["session.redis_url"]["value"] == "redis://*****@cache.internal:6379/14"
    assert password not in text


def test_the_terminal_tree_shows_a_redis_url_with_its_user_information_masked(password: str) -> None:
    with configured(
        env={"SESSION_ENABLED": "true", "SESSION_REDIS_URL": f"redis://:{password}@[::1]:6380/2"}
    ):
        text = tree()
    assert "redis_url = redis://*****@[::1]:6380/2" in text
    assert password not in text


def test_a_password_given_as_a_redis_url_query_parameter_is_dropped_from_the_summary(password: str) -> None:
    with configured(
        argv=[*SESSIONS, f"--session-redis_url=rediss://cache.internal:6380/0?password={password}"]
    ):
        text, record = json_record()
    assert record["values"]["session.redis_url"]["value"] == "rediss://cache.internal:6380/0"
    assert password not in text


def test_the_oauth_token_endpoint_shows_where_it_is_but_never_credentials(password: str) -> None:
    endpoint = f"https://app:{password}@x.example/2/oauth2/token"
    with configured(
        argv=["--auth-enabled", "--auth-mode=oauth_only", f"--auth-oauth-token_endpoint={endpoint}"]
    ):
        text, record = json_record()
    assert record["values"]["auth.oauth.token_endpoint"]["value"] == "https://*****@x.example/2/oauth2/token"
    assert password not in text


def test_an_application_key_holding_a_url_with_user_information_is_masked_whatever_its_name(
    upstream: Any, password: str
) -> None:
    with configured(env={"UPSTREAM_URL": f"amqp://shop:{password}@mq.internal:5672/orders?heartbeat=30"}):
        text, record = json_record()
        tree_text = tree()
    assert record["values"]["upstream.url"]["value"] == "amqp://*****@mq.internal:5672/orders"
    assert "url = amqp://*****@mq.internal:5672/orders" in tree_text
    assert password not in text + tree_text


def test_each_list_element_carrying_user_information_is_masked_and_the_others_are_shown(
    upstream: Any, password: str
) -> None:
    mirrors = f"https://mirror.example/a,https://bot:{password}@mirror.internal/b"
    with configured(env={"UPSTREAM_MIRRORS": mirrors}):
        text, record = json_record()
    assert record["values"]["upstream.mirrors"]["value"] == [
        "https://mirror.example/a",
        "https://*****@mirror.internal/b",
    ]
    assert password not in text


def test_a_url_without_user_information_is_shown_as_written(upstream: Any) -> None:
    with configured(env={"UPSTREAM_HOMEPAGE": "https://shop.example/?ref=fw"}):
        _, record = json_record()
    assert record["values"]["upstream.homepage"]["value"] == "https://shop.example/?ref=fw"


def test_an_explicit_show_marker_still_wins(upstream: Any) -> None:
    with configured(env={"UPSTREAM_SHOWN_URL": "https://demo:demo@sandbox.example/"}):
        _, record = json_record()
    assert record["values"]["upstream.shown_url"]["value"] == "https://demo:demo@sandbox.example/"


# fw doctor: a password written into the file.
def test_doctor_flags_a_redis_password_written_into_the_file_and_suggests_a_name_reference(
    password: str,
) -> None:
    toml = f'[session]\nenabled = true\nbackend = "redis"\nredis_url = "redis://default:{password}@cache:6379/14"\n'
    with configured(toml=toml):
        lines = configuration.doctor_report()
        text, record = json_record()
    [line] = [line for line in lines if "session.redis_url" in line]
    assert line.startswith("warning: session.redis_url = redis://*****@cache:6379/14 is written in <toml>:4")
    assert "${NAME}" in line
    assert record["level"] == "warning"
    assert password not in "\n".join(lines) + text


def test_doctor_flags_a_url_password_written_into_the_file_under_any_application_key(
    upstream: Any, password: str
) -> None:
    with configured(toml=f'[upstream]\nurl = "https://svc:{password}@api.internal/v1"\n'):
        lines = configuration.doctor_report()
    assert lines == [
        "warning: upstream.url = https://*****@api.internal/v1 is written in <toml>:2: secrets are never "
        "committed; reference the environment with ${NAME} instead, for the whole URL or only its "
        "password (scheme://user:${NAME}@host)"
    ]


def test_a_url_password_read_from_the_environment_is_not_flagged_and_stays_masked(
    upstream: Any, password: str
) -> None:
    toml = '[upstream]\nurl = "https://svc:${UPSTREAM_PASSWORD}@api.internal/v1"\n'
    with configured(toml=toml, env={"UPSTREAM_PASSWORD": password}):
        lines = configuration.doctor_report()
        text, record = json_record()
    assert lines == []
    assert record["values"]["upstream.url"]["value"] == "https://*****@api.internal/v1"
    assert password not in text


def test_a_url_naming_only_a_user_is_not_flagged(upstream: Any) -> None:
    with configured(toml='[upstream]\nurl = "postgresql://shop@db.internal/orders"\n'):
        assert configuration.doctor_report() == []


def test_an_advisory_quoting_a_url_password_of_an_unmarked_key_has_it_masked(
    upstream: Any, password: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    def quoting(*args: Any, **kwargs: Any) -> list[Advisory]:
        return [Advisory("warning", "upstream.url", f"cannot judge {password} (svc:{password}) here")]

    monkeypatch.setattr(doctor, "advisories", quoting)
    with configured(env={"UPSTREAM_URL": f"https://svc:{password}@api.internal/v1"}):
        [line] = configuration.doctor_report()
    assert line == "warning: cannot judge ***** (svc:*****) here"


def test_the_summary_and_the_configuration_stay_usable(upstream: Any, password: str) -> None:
    url = f"https://svc:{password}@api.internal/v1"
    with configured(env={"UPSTREAM_URL": url}):
        assert fw.config(upstream.Upstream).url == url
