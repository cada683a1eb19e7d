"""``fw routes``, ``fw doctor`` and ``fw migrate`` in every project ``fw init`` writes, outside
``fw dev``: the provider variables only ``fw dev`` sets are missing there, and each command says
so in one line naming them and ``fw dev`` (``fw migrate`` does not need them at all)."""

from __future__ import annotations

from pathlib import Path

import pytest

from .generated import fw, generated

#: (fw init options, the variables the generated config.dev.toml leaves to fw dev, a sign-in route)
MODES = {
    "oidc_only": (
        ("--auth", "oidc_only"),
        ("AUTH_OIDC_ISSUER", "AUTH_OIDC_CLIENT_ID", "AUTH_OIDC_CLIENT_SECRET"),
    ),
    "oidc_passkey": (
        ("--auth", "oidc_passkey"),
        ("AUTH_OIDC_ISSUER", "AUTH_OIDC_CLIENT_ID", "AUTH_OIDC_CLIENT_SECRET"),
    ),
    "oauth_only": (("--auth", "oauth_only"), ("AUTH_OAUTH_CLIENT_ID", "AUTH_OAUTH_CLIENT_SECRET")),
    "api": (("--preset", "api"), ("AUTH_JWT_ISSUER",)),
    "passkey_only": (("--auth", "passkey_only"), ()),
}
#: The route every mode's sign-in (or bearer check) shows in fw routes.
SIGN_IN_ROUTE = {
    "oidc_only": "/auth/callback",
    "oidc_passkey": "/auth/passkey/login/begin",
    "oauth_only": "/auth/callback",
    "api": "/me",
    "passkey_only": "/auth/passkey/login/begin",
}


def not_set(names: tuple[str, ...]) -> str:
    if len(names) == 1:
        return f"{names[0]} is not set: fw dev sets it; elsewhere set it in the environment or .env"
    listed = f"{', '.join(names[:-1])} and {names[-1]}"
    return f"{listed} are not set: fw dev sets them; elsewhere set them in the environment or .env"


@pytest.fixture(scope="module")
def projects(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    parent = tmp_path_factory.mktemp("generated")
    return {mode: generated(parent, mode, *options) for mode, (options, _) in MODES.items()}


@pytest.mark.parametrize("mode", MODES)
def test_fw_routes_names_the_variables_fw_dev_sets_and_still_prints_every_route(
    mode: str, projects: dict[str, Path]
) -> None:
    done = fw(projects[mode], "routes")
    assert done.returncode == 0, done.stderr
    missing = MODES[mode][1]
    assert done.stderr.splitlines() == ([f"fw: {not_set(missing)}"] if missing else [])
    table = done.stdout.splitlines()
    assert table[0].split() == ["METHODS", "PATH", "PROTECTION", "BINDS", "HANDLER"]
    paths = {line.split()[1] for line in table[1:]}
    assert {"/greetings", SIGN_IN_ROUTE[mode]} <= paths


@pytest.mark.parametrize("mode", MODES)
def test_fw_migrate_needs_no_provider_variable(mode: str, projects: dict[str, Path]) -> None:
    done = fw(projects[mode], "migrate")
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    assert "framework tables are up to date" in done.stdout


@pytest.mark.parametrize("mode", MODES)
def test_fw_doctor_reports_the_missing_variables_as_a_warning_and_passes_after_migrate(
    mode: str, projects: dict[str, Path]
) -> None:
    assert fw(projects[mode], "migrate").returncode == 0
    done = fw(projects[mode], "doctor")
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stderr == ""
    lines = done.stdout.splitlines()
    missing = MODES[mode][1]
    findings = [line for line in lines if line.startswith(("error:", "warning:"))]
    assert findings == ([f"warning: {not_set(missing)}"] if missing else [])
    [startup] = [line for line in lines if line.startswith("checked: startup:")]
    if missing:
        assert startup.endswith(f", with stand-ins for {', '.join(missing)} (no provider contacted)")
        assert lines[-1] == "doctor: no errors; 1 warning above"
    else:
        assert lines[-1] == "doctor: no problems found"


def test_outside_development_the_missing_variables_are_a_doctor_error(projects: dict[str, Path]) -> None:
    project = projects["oidc_only"]
    production = (project / "config.dev.toml").read_text().replace("allow_loopback_http = true\n", "")
    production = production.replace(
        "[auth.oidc]\n", '[auth.oidc]\nredirect_url = "https://shop.example/auth/callback"\n'
    )
    (project / "config.prod.toml").write_text(production)
    assert fw(project, "migrate", APP_ENV="prod").returncode == 0
    try:
        done = fw(project, "doctor", APP_ENV="prod")
    finally:
        (project / "config.prod.toml").unlink()
    assert done.returncode == 1
    findings = [line for line in done.stdout.splitlines() if line.startswith(("error:", "warning:"))]
    assert findings == [f"error: {not_set(MODES['oidc_only'][1])}"]


def test_the_set_variables_are_used_and_nothing_is_said(projects: dict[str, Path]) -> None:
    done = fw(
        projects["oauth_only"],
        "routes",
        AUTH_OAUTH_CLIENT_ID="shop",
        AUTH_OAUTH_CLIENT_SECRET="from-the-shell",
    )
    assert done.returncode == 0 and done.stderr == ""


def test_a_missing_variable_fw_dev_does_not_set_stays_a_configuration_error(tmp_path: Path) -> None:
    project = generated(tmp_path, "shop", "--auth", "oidc_only")
    config = project / "config.dev.toml"
    config.write_text(config.read_text().replace('greeting = "Hello"', 'greeting = "${SHOP_GREETING}"'))
    for command in ("routes", "doctor", "migrate"):
        done = fw(project, command)
        assert (done.returncode, done.stdout) == (1, ""), command
        assert done.stderr == (
            "fw: shop.greeting: undefined variable SHOP_GREETING in ${SHOP_GREETING} "
            f"(from file:{config}:10)\n"
        )


def test_provider_variables_referenced_in_the_file_are_named_the_same_way(tmp_path: Path) -> None:
    project = generated(tmp_path, "shop", "--auth", "oauth_only")
    config = project / "config.dev.toml"
    text = config.read_text().replace(
        "[auth.oauth]\n", '[auth.oauth]\nclient_id = "${AUTH_OAUTH_CLIENT_ID}"\n'
    )
    config.write_text(text)
    done = fw(project, "routes")
    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines() == [f"fw: {not_set(MODES['oauth_only'][1])}"]
