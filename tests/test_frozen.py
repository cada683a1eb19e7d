"""``frozen_builder``: a frozen dataclass built without its generated ``__init__`` is the same instance."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

import pytest

from fw._frozen import frozen_builder
from fw.auth.accounts import Identity
from fw.auth.caller import Authentication, Caller
from fw.auth.jwt.verifier import VerifiedToken


@pytest.mark.parametrize(
    ("cls", "values"),
    [
        (Identity, ("https://issuer", "sub", "alice", {"sub": "alice"}, False)),
        (Caller, ("alice", Identity("https://issuer", "sub", "alice"))),
        (VerifiedToken, ({"sub": "alice"}, {"alg": "RS256"}, "https://issuer", "alice", None, 12.0)),
    ],
)
def test_a_built_instance_equals_the_constructed_one_and_stays_frozen(cls: type, values: tuple) -> None:
    built = frozen_builder(cls)(*values)
    assert type(built) is cls
    assert built == cls(*values)
    assert dataclasses.astuple(built) == dataclasses.astuple(cls(*values))
    with pytest.raises(dataclasses.FrozenInstanceError):
        built.__setattr__(dataclasses.fields(cls)[0].name, "changed")


def test_a_built_authentication_holds_its_principal() -> None:
    caller = Caller("alice", Identity("https://issuer", "sub", "alice"))
    built = frozen_builder(Authentication)("bearer", "alice", "https://issuer", "alice", caller)
    assert built == Authentication("bearer", "alice", "https://issuer", "alice", caller)
    assert built.principal is caller


def test_a_builder_is_refused_for_a_class_it_would_build_wrongly() -> None:
    @dataclass
    class Mutable:
        value: int

    @dataclass(frozen=True)
    class Checked:
        value: int
        derived: list[int] = field(default_factory=list)

        def __post_init__(self) -> None:
            self.derived.append(self.value)

    with pytest.raises(TypeError, match="not a frozen dataclass"):
        frozen_builder(Mutable)
    with pytest.raises(TypeError, match="__post_init__"):
        frozen_builder(Checked)
    with pytest.raises(TypeError, match="not a frozen dataclass"):
        frozen_builder(int)
