"""A value the file holds and fw refuses is named with what was received (its type and value),
as the environment and option layers already name theirs; a secret's value is the mask."""

from __future__ import annotations

import pytest

from fw.auth.sessions.settings import SessionSettings
from fw.auth.settings import AuthSettings
from fw.configuration import load
from fw.errors import ConfigError
from fw.settings import ServerSettings


def refusal(cls: type, prefix: str, toml: str) -> str:
    with pytest.raises(ConfigError) as caught:
        load(cls, prefix, toml=toml)
    return caught.value.reason


# The file.
@pytest.mark.parametrize(
    ("toml", "reason"),
    [
        ('[server]\nport = "80"\n', "expected an integer, got the string '80'"),
        ("[server]\nport = true\n", "expected an integer, got the bool true"),
        (f"[server]\nport = {2**63}\n", f"the integer {2**63} is out of the 64-bit range"),
        ('[server]\ndocs = "yes"\n', "expected true or false, got the string 'yes'"),
        ("[server]\nhost = 8000\n", "expected a string, got the integer 8000"),
        ("[server]\nhost = 2024-01-01\n", "the date 2024-01-01 (a TOML date or time) cannot bind"),
        ("[server]\nbody_timeout = 30\n", "the integer 30: a bare number is not a duration; write a quoted"),
        ("[server]\nbody_timeout = false\n", "expected a duration string, got the bool false"),
    ],
)
def test_a_wrong_value_in_the_file_is_named_with_its_type_and_value(toml: str, reason: str) -> None:
    assert reason in refusal(ServerSettings, "server", toml)


@pytest.mark.parametrize(
    ("toml", "reason"),
    [
        ('[auth.protection]\ninclude = "/api/"\n', "expected an array of strings, got the string '/api/'"),
        ("[auth.protection]\ninclude = [1, 2]\n", "expected an array of strings, got the array [1, 2]"),
    ],
)
def test_lists_name_the_value_too(toml: str, reason: str) -> None:
    assert reason in refusal(AuthSettings, "auth", toml)


def test_a_long_value_is_cut_short_with_its_length() -> None:
    reason = refusal(ServerSettings, "server", f'[server]\nport = "{"8" * 100}"\n')
    assert f"got the string '{'8' * 60}'... (100 characters)" in reason


@pytest.mark.parametrize(
    ("toml", "key", "reason"),
    [
        ("server = 5\n", "server", "expected the [server] table, found the integer 5"),
        (
            '[server]\nhost.name = "x"\n',
            "server.host.name",
            "server.host is a value, not a table (found the string 'x')",
        ),
    ],
)
def test_a_value_in_the_wrong_shape_is_named(toml: str, key: str, reason: str) -> None:
    with pytest.raises(ConfigError) as caught:
        load(ServerSettings, "server", toml=toml)
    assert (caught.value.key, caught.value.reason) == (key, reason)


def test_a_value_written_where_the_table_arrays_go_is_named() -> None:
    reason = refusal(AuthSettings, "auth", '[auth.assurance]\npolicy = "recent"\n')
    assert reason == "expected [[auth.assurance.policy]] tables, found the string 'recent'"


# Secrets.
def test_a_refused_secret_is_named_by_its_type_with_its_value_masked() -> None:
    reason = refusal(SessionSettings, "session", "[session.keyring]\nsecret = 1234567\n")
    assert reason == "expected a string, got the integer *****"


def test_a_value_written_where_a_table_of_secrets_is_declared_is_masked() -> None:
    reason = refusal(SessionSettings, "session", '[session]\nkeyring = "kr-9f8e7d6c"\n')
    assert reason == "expected the [session.keyring] table, found the string *****"
