"""``fw token``: a development access token for the project's ``fw dev`` server, and its refusals.

The project is what ``fw init --preset api`` writes; the development issuer's record in ``.fw/``
is made the way ``fw dev`` makes it (:mod:`fw.devidp.stable`), and the issuer itself is served
in this process where a token is checked against its published keys.
"""

from __future__ import annotations

import json
import shutil
import stat
import subprocess
from collections.abc import Iterator
from pathlib import Path

import httpx2
import pytest
from joserfc import jwt
from joserfc.jwk import KeySet

from fw.devidp import DevClient
from fw.devidp.both import RunningDevProviders
from fw.devidp.stable import (
    RECORD,
    DevIssuerState,
    DevStateError,
    create_state,
    load_or_create_state,
    load_state,
)

from .generated import fw


def one_line_refusal(done: subprocess.CompletedProcess[str]) -> str:
    """The refusal's text, after checking it is one ``fw:`` line on stderr and nothing on stdout."""
    assert done.returncode != 0
    assert done.stdout == ""
    assert "Traceback" not in done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("fw: "), done.stderr
    return lines[0]


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A new api-preset project (``fw init``), without the development issuer's record yet."""
    parent = tmp_path_factory.mktemp("init")
    done = fw(parent, "init", "api", "--preset", "api")
    assert done.returncode == 0, done.stderr
    return parent / "api"


@pytest.fixture(scope="module")
def project(made: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The project once ``fw dev`` recorded its development issuer."""
    root = tmp_path_factory.mktemp("dev") / "api"
    shutil.copytree(made, root)
    load_or_create_state(root)
    return root


@pytest.fixture(scope="module")
def issuer(project: Path) -> Iterator[RunningDevProviders]:
    """The development issuer as ``fw dev`` serves it: the recorded port and key."""
    state = load_state(project)
    with RunningDevProviders(
        clients=[DevClient("fw-dev-app", "s3cret")], port=state.port, key=state.key
    ) as running:
        yield running


def decoded(token: str, issuer: RunningDevProviders) -> tuple[dict[str, object], dict[str, object]]:
    """(header, claims) of ``token``, its signature checked with the issuer's published keys."""
    discovery = httpx2.get(f"{issuer.origin}/.well-known/openid-configuration", timeout=5).json()
    keys = KeySet.import_key_set(httpx2.get(discovery["jwks_uri"], timeout=5).json())
    verified = jwt.decode(token, keys, algorithms=["RS256"])
    return dict(verified.header), dict(verified.claims)


# Tokens.
def test_fw_token_prints_a_token_that_verifies_against_the_dev_issuers_published_keys(
    project: Path, issuer: RunningDevProviders
) -> None:
    done = fw(project, "token", "--sub", "alice")
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    token = done.stdout.strip()
    assert done.stdout == token + "\n"
    header, claims = decoded(token, issuer)
    assert header["typ"] == "at+jwt"
    assert claims["iss"] == issuer.origin == load_state(project).issuer
    assert claims["sub"] == "alice"
    assert claims["aud"] == "api"  # what the generated configuration accepts
    assert isinstance(claims["exp"], int) and isinstance(claims["iat"], int)
    assert claims["exp"] - claims["iat"] == 15 * 60
    assert "scope" not in claims


def test_fw_token_takes_the_subject_scopes_lifetime_and_audience_asked_for(
    project: Path, issuer: RunningDevProviders
) -> None:
    done = fw(
        project, "token", "--sub=bob", "--scope", "read", "--scope", "write admin", "--ttl", "90s",
        "--audience", "other",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    _, claims = decoded(done.stdout.strip(), issuer)
    assert (claims["sub"], claims["aud"], claims["scope"]) == ("bob", "other", "read write admin")
    assert isinstance(claims["exp"], int) and isinstance(claims["iat"], int)
    assert claims["exp"] - claims["iat"] == 90


def test_fw_token_without_a_subject_speaks_for_the_first_development_user(
    project: Path, issuer: RunningDevProviders
) -> None:
    done = fw(project, "token")
    assert done.returncode == 0, done.stderr
    assert decoded(done.stdout.strip(), issuer)[1]["sub"] == "alice"


def test_fw_token_gives_the_required_scopes_by_default(project: Path, issuer: RunningDevProviders) -> None:
    done = fw(project, "token", AUTH_JWT_REQUIRED_SCOPES="read")
    assert done.returncode == 0, done.stderr
    assert decoded(done.stdout.strip(), issuer)[1]["scope"] == "read"


# Refusals.
def test_fw_token_refuses_outside_development(project: Path) -> None:
    line = one_line_refusal(fw(project, "token", "--sub", "alice", APP_ENV="prod"))
    assert "APP_ENV is 'prod'" in line and "development tokens only" in line


def test_fw_token_before_fw_dev_made_the_issuer_says_to_run_fw_dev(made: Path) -> None:
    line = one_line_refusal(fw(made, "token"))
    assert "run fw dev once first" in line and str(RECORD) in line
    assert not (made / ".fw" / "devidp.json").exists()


@pytest.mark.parametrize("ttl", ["x", "15", "0s", "-5m"])
def test_a_bad_ttl_is_a_one_line_usage_error(project: Path, ttl: str) -> None:
    done = fw(project, "token", "--ttl", ttl)
    line = one_line_refusal(done)
    assert done.returncode == 2
    assert line == f'fw: token --ttl needs a positive duration such as 15m, got "{ttl}"'


def test_a_ttl_beyond_the_configured_max_token_lifetime_is_refused(project: Path) -> None:
    line = one_line_refusal(fw(project, "token", "--ttl", "2h"))
    assert "auth.jwt.max_token_lifetime (1h0m0s)" in line


@pytest.mark.parametrize(
    ("arguments", "says"),
    [
        (["--bogus"], "token does not take '--bogus'"),
        (["--sub"], "token --sub needs a value"),
        (["--audience", "--sub", "bob"], "token --audience needs a value"),
        (["--scope="], "token --scope needs a value"),
    ],
)
def test_a_malformed_command_line_is_a_one_line_usage_error(
    project: Path, arguments: list[str], says: str
) -> None:
    done = fw(project, "token", *arguments)
    assert says in one_line_refusal(done)
    assert done.returncode == 2


@pytest.mark.parametrize(
    ("env", "says"),
    [
        ({"AUTH_JWT_ALGORITHMS": "ES256"}, "the development token issuer signs with RS256"),
        ({"AUTH_JWT_DPOP": "required"}, "fw token prints bearer tokens"),
    ],
)
def test_fw_token_refuses_a_configuration_that_would_refuse_its_tokens(
    project: Path, env: dict[str, str], says: str
) -> None:
    assert says in one_line_refusal(fw(project, "token", **env))


def test_fw_token_refuses_a_project_that_is_not_a_bearer_token_api(tmp_path: Path) -> None:
    assert fw(tmp_path, "init", "shop").returncode == 0
    root = tmp_path / "shop"
    load_or_create_state(root)
    line = one_line_refusal(fw(root, "token"))
    assert "auth.mode = jwt_only" in line and "this project has auth.mode = oidc_only" in line


# The record in .fw/.
def test_the_record_keeps_its_port_and_key_and_only_its_owner_reads_it(tmp_path: Path) -> None:
    first = load_or_create_state(tmp_path)
    again = load_or_create_state(tmp_path)
    assert (again.port, again.key.as_dict(private=True)) == (first.port, first.key.as_dict(private=True))
    assert again.issuer == f"http://127.0.0.1:{first.port}"
    record = tmp_path / RECORD
    assert stat.S_IMODE(record.stat().st_mode) == 0o600
    assert (tmp_path / ".fw" / ".gitignore").read_text().splitlines()[-1] == "*"


def test_a_damaged_record_says_to_delete_it_and_a_new_one_replaces_it(tmp_path: Path) -> None:
    (tmp_path / ".fw").mkdir()
    (tmp_path / RECORD).write_text(json.dumps({"port": 1234, "key": {"kty": "oct"}}))
    with pytest.raises(
        DevStateError, match="not a development issuer record; delete it and run fw dev again"
    ):
        load_or_create_state(tmp_path)
    replaced = create_state(tmp_path)
    assert isinstance(load_state(tmp_path), DevIssuerState)
    assert load_state(tmp_path).port == replaced.port
