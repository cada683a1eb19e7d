"""A missing provider credential is refused with the environment variable that delivers it."""

from __future__ import annotations

import pytest

import fw
from fw._fw_config import LOADERS
from fw.testing import configured

OIDC = ["--auth-enabled", "--auth-mode=oidc_only"]
OAUTH = ["--auth-enabled", "--auth-mode=oauth_only", "--auth-oauth-provider=x"]
ISSUER = "--auth-oidc-issuer=https://login.example"
ENV_OF = {spec.key: spec.env for loader in LOADERS.values() for spec in loader.fields}


async def refusal(argv: list[str], env: dict[str, str] | None = None) -> fw.StartupError:
    with configured(argv=argv, env=env):
        app = fw.App()
        with pytest.raises(fw.StartupError) as refused:
            await app.startup()
    return refused.value


@pytest.mark.parametrize(
    ("argv", "env", "key"),
    [
        (OIDC, {}, "auth.oidc.issuer"),
        ([*OIDC, ISSUER], {}, "auth.oidc.client_id"),
        ([*OIDC, ISSUER, "--auth-oidc-client_id=app"], {}, "auth.oidc.client_secret"),
        (["--auth-enabled", "--auth-mode=oidc_passkey", ISSUER], {}, "auth.oidc.client_id"),
        (OAUTH, {}, "auth.oauth.client_id"),
        (OAUTH, {"AUTH_OAUTH_CLIENT_ID": "app"}, "auth.oauth.client_secret"),
    ],
)
async def test_a_missing_credential_names_its_environment_variable_and_the_reference_form(
    argv: list[str], env: dict[str, str], key: str
) -> None:
    error = await refusal(argv, env)
    assert error.key == key
    variable = ENV_OF[key]
    assert variable is not None and f"set the environment variable {variable}" in error.fix
    table, _, name = key.rpartition(".")
    assert f"[{table}]" in error.fix and '"${NAME}"' in error.fix and name in error.fix
    assert "auth.mode = " + argv[1].split("=")[1] in error.fix


async def test_a_missing_secret_is_never_suggested_for_the_file_itself() -> None:
    error = await refusal([*OIDC, ISSUER, "--auth-oidc-client_id=app"])
    assert error.key == "auth.oidc.client_secret"
    assert "never the secret itself" in error.fix


async def test_the_variable_named_in_the_message_is_the_one_that_fixes_it() -> None:
    error = await refusal([*OIDC, ISSUER, "--auth-oidc-client_id=app"])
    variable = error.fix.split("set the environment variable ")[1].split(",")[0]
    # With that variable set the credential check passes; the next refusal is about something else.
    later = await refusal([*OIDC, ISSUER, "--auth-oidc-client_id=app"], {variable: "s3cret"})
    assert later.key != "auth.oidc.client_secret"
