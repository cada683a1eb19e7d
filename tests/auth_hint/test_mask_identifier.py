"""``fw.auth.mask_identifier``: what a login screen may show of an identifier."""

from __future__ import annotations

import pytest

import fw

B = "\u2022" * 5


@pytest.mark.parametrize(
    ("identifier", "masked"),
    [
        ("alice@example.com", f"a{B}@example.com"),
        ("bob.builder+tag@mail.example.co.uk", f"b{B}@mail.example.co.uk"),
        ("al@example.com", f"a{B}@example.com"),
        ("a@example.com", f"{B}@example.com"),
        ("@example.com", f"{B}@example.com"),
        ('"a@b"@example.com', f'"{B}@example.com'),
        ("alice", f"a{B}"),
        ("alice@", f"a{B}"),
        ("a", B),
        ("", ""),
        ("   ", ""),
        ("  alice@example.com ", f"a{B}@example.com"),
        ("élodie@exemple.fr", f"é{B}@exemple.fr"),
    ],
)
def test_an_identifier_keeps_its_first_character_and_domain_only(identifier: str, masked: str) -> None:
    assert fw.auth.mask_identifier(identifier) == masked


def test_the_length_of_the_hidden_part_is_not_revealed() -> None:
    short, long = fw.auth.mask_identifier("ab@x.example"), fw.auth.mask_identifier("a" * 60 + "@x.example")
    assert short == long == f"a{B}@x.example"


def test_the_bullets_are_five_u2022() -> None:
    masked = fw.auth.mask_identifier("alice@example.com")
    assert masked[1:6] == "•••••" and {ord(c) for c in masked[1:6]} == {0x2022}
