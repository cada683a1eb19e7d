"""What ``fw dev`` injects for the development identity provider: what the configured mode asks for."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from fw._fw_config import LOADERS
from fw.auth.modes import registry
from fw.auth.modes.base import DevEnvironment, DevIssuer
from fw.cli.devserver import _DevProvider, configured_dev_environment
from fw.testing import configured

ISSUER = DevIssuer("http://127.0.0.1:9999", "fw-dev-app", "s3cret")
ENV_OF = {spec.key: spec.env for loader in LOADERS.values() for spec in loader.fields}
OIDC = DevEnvironment(
    values={
        "AUTH_OIDC_ISSUER": ISSUER.issuer,
        "AUTH_OIDC_CLIENT_ID": ISSUER.client_id,
        "AUTH_OIDC_CLIENT_SECRET": ISSUER.client_secret,
    },
    defaults={"AUTH_OIDC_ALLOW_LOOPBACK_HTTP": "true"},
)
#: oauth_only talks to an X-shaped stand-in answering on X's own paths at the provider's origin.
OAUTH = DevEnvironment(
    values={
        "AUTH_OAUTH_CLIENT_ID": ISSUER.client_id,
        "AUTH_OAUTH_CLIENT_SECRET": ISSUER.client_secret,
        "AUTH_OAUTH_AUTHORIZATION_ENDPOINT": f"{ISSUER.issuer}/i/oauth2/authorize",
        "AUTH_OAUTH_TOKEN_ENDPOINT": f"{ISSUER.issuer}/2/oauth2/token",
        "AUTH_OAUTH_USER_ENDPOINT": f"{ISSUER.issuer}/2/users/me?user.fields=profile_image_url",
    },
    defaults={"AUTH_OAUTH_PROVIDER": "x", "AUTH_OAUTH_ALLOW_LOOPBACK_HTTP": "true"},
)
#: jwt_only verifies tokens of the development token issuer (fw token signs them with its key).
JWT = DevEnvironment(
    values={"AUTH_JWT_ISSUER": ISSUER.issuer}, defaults={"AUTH_JWT_ALLOW_LOOPBACK_HTTP": "true"}
)


@pytest.fixture
def clean_environment(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """None of the injected variables set; whatever the test leaves behind is undone."""
    for name in [*OIDC.values, *OIDC.defaults, *OAUTH.values, *OAUTH.defaults, *JWT.values, *JWT.defaults]:
        monkeypatch.delenv(name, raising=False)
    yield


def test_the_oidc_variables_are_those_the_configuration_reads() -> None:
    keys = ["auth.oidc.issuer", "auth.oidc.client_id", "auth.oidc.client_secret"]
    assert list(OIDC.values) == [ENV_OF[key] for key in keys]
    assert list(OIDC.defaults) == [ENV_OF["auth.oidc.allow_loopback_http"]]


def test_the_oauth_variables_are_those_the_configuration_reads() -> None:
    keys = ["client_id", "client_secret", "authorization_endpoint", "token_endpoint", "user_endpoint"]
    assert list(OAUTH.values) == [ENV_OF[f"auth.oauth.{key}"] for key in keys]
    assert list(OAUTH.defaults) == [ENV_OF["auth.oauth.provider"], ENV_OF["auth.oauth.allow_loopback_http"]]


def test_the_jwt_variables_are_those_the_configuration_reads() -> None:
    assert list(JWT.values) == [ENV_OF["auth.jwt.issuer"]]
    assert list(JWT.defaults) == [ENV_OF["auth.jwt.allow_loopback_http"]]


@pytest.mark.parametrize(
    ("mode", "expected"),
    [
        ("oidc_only", OIDC),
        ("oidc_passkey", OIDC),
        ("jwt_only", JWT),
        ("passkey_only", None),
        ("oauth_only", OAUTH),
    ],
)
def test_each_mode_says_what_fw_dev_injects_for_it(mode: str, expected: DevEnvironment | None) -> None:
    found = registry.find_mode(mode)
    assert found is not None and found.dev_environment(ISSUER) == expected


def test_before_the_mode_is_known_fw_dev_offers_what_any_mode_would_get() -> None:
    assert registry.offered_dev_environment(ISSUER) == DevEnvironment(
        {**OIDC.values, **OAUTH.values, **JWT.values}, {**OIDC.defaults, **OAUTH.defaults, **JWT.defaults}
    )


@pytest.mark.parametrize(
    ("argv", "what", "expected"),
    [
        (["--auth-enabled", "--auth-mode=oidc_only"], "auth.mode = oidc_only", OIDC),
        (["--auth-enabled", "--auth-mode=jwt_only"], "auth.mode = jwt_only", JWT),
        (["--auth-enabled", "--auth-mode=passkey_only"], "auth.mode = passkey_only", None),
        ([], "auth.enabled = false", None),
    ],
)
def test_the_configured_mode_decides_what_stays_injected(
    argv: list[str], what: str, expected: DevEnvironment | None
) -> None:
    with configured(argv=argv):
        assert configured_dev_environment(ISSUER) == (what, expected)


def test_a_configuration_using_the_provider_keeps_it_and_its_variables(
    clean_environment: None, capsys: pytest.CaptureFixture[str]
) -> None:
    stopped: list[bool] = []
    parses: list[bool] = []
    provider = _DevProvider(ISSUER, lambda: stopped.append(True))
    assert os.environ["AUTH_OIDC_ISSUER"] == ISSUER.issuer
    with configured(argv=["--auth-enabled", "--auth-mode=oidc_only"]):
        provider.settle(lambda: parses.append(True))
    # The other modes' variables offered before the mode was known are withdrawn, so it reads again.
    assert (stopped, parses) == ([], [True])
    assert os.environ["AUTH_OIDC_CLIENT_SECRET"] == ISSUER.client_secret
    assert not {name for name in OAUTH.values if name in os.environ}
    assert f"development identity provider at {ISSUER.issuer}" in capsys.readouterr().err
    provider.close()
    assert stopped == [True] and "AUTH_OIDC_ISSUER" not in os.environ


def test_a_configuration_not_using_the_provider_stops_it_and_reads_the_configuration_again(
    clean_environment: None, capsys: pytest.CaptureFixture[str]
) -> None:
    stopped: list[bool] = []
    parses: list[bool] = []
    provider = _DevProvider(ISSUER, lambda: stopped.append(True))
    with configured(argv=["--auth-enabled", "--auth-mode=passkey_only"]):
        provider.settle(lambda: parses.append(True))
    assert (stopped, parses) == ([True], [True])
    injected = [*OIDC.values, *OIDC.defaults, *OAUTH.values, *JWT.values]
    assert not {name for name in injected if name in os.environ}
    assert (
        "auth.mode = passkey_only does not sign in at the development identity provider"
        in capsys.readouterr().err
    )
    provider.close()
    assert stopped == [True]


def test_a_variable_the_developer_set_is_given_back_and_a_default_is_not_overridden(
    clean_environment: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AUTH_OIDC_ISSUER", "https://mine.example")
    monkeypatch.setenv("AUTH_OIDC_ALLOW_LOOPBACK_HTTP", "false")
    provider = _DevProvider(ISSUER, lambda: None)
    assert os.environ["AUTH_OIDC_ISSUER"] == ISSUER.issuer
    assert os.environ["AUTH_OIDC_ALLOW_LOOPBACK_HTTP"] == "false"
    provider.close()
    assert os.environ["AUTH_OIDC_ISSUER"] == "https://mine.example"
    assert os.environ["AUTH_OIDC_ALLOW_LOOPBACK_HTTP"] == "false"


def test_a_bearer_api_keeps_the_provider_as_its_token_issuer_and_names_fw_token(
    clean_environment: None, capsys: pytest.CaptureFixture[str]
) -> None:
    stopped: list[bool] = []
    provider = _DevProvider(ISSUER, lambda: stopped.append(True))
    with configured(argv=["--auth-enabled", "--auth-mode=jwt_only"]):
        provider.settle(lambda: None)
    assert stopped == []
    assert os.environ["AUTH_JWT_ISSUER"] == ISSUER.issuer
    assert not {name for name in [*OIDC.values, *OAUTH.values] if name in os.environ}
    said = capsys.readouterr().err
    assert f"development token issuer at {ISSUER.issuer} (fw token --sub alice prints" in said
    provider.close()
    assert "AUTH_JWT_ISSUER" not in os.environ


def test_a_one_run_issuer_is_not_offered_to_fw_token(
    clean_environment: None, capsys: pytest.CaptureFixture[str]
) -> None:
    provider = _DevProvider(ISSUER, lambda: None, stable=False)
    with configured(argv=["--auth-enabled", "--auth-mode=jwt_only"]):
        provider.settle(lambda: None)
    provider.close()
    said = capsys.readouterr().err
    assert f"development token issuer at {ISSUER.issuer}" in said and "fw token" not in said
