"""Generation errors that point at the declaration: file:line, the dataclass, the field(s), why.

Every refusal of ``fw generate`` reads ``conf.py:11: AppConfig.ratio (app.ratio): unsupported
type float``: the place to open, then what is there (``Class.field``, with the configuration key
when there is one; several fields when the rule is about several), then the reason. A run reports
every error it found, together.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from fw.errors import GenerationError


def field_subject(owner: type | str, field: str, key: str = "") -> str:
    """``Class.field``, or ``Class.field (key)`` when the field has a configuration key."""
    name = owner if isinstance(owner, str) else owner.__qualname__
    return f"{name}.{field} ({key})" if key else f"{name}.{field}"


@dataclass(frozen=True, slots=True)
class Where:
    """A place generation can fail at: a file and line, and what is declared there."""

    file: str
    line: int
    subject: str = ""

    def error(self, message: str) -> GenerationError:
        """The error ``file:line: subject: message``."""
        return GenerationError(
            self.file, self.line, f"{self.subject}: {message}" if self.subject else message
        )

    def about(self, *concerned: Where) -> Where:
        """This place, about every subject of ``concerned`` in that order (a rule several fields
        break together, reported at the line of one of them)."""
        subjects = dict.fromkeys(where.subject for where in concerned if where.subject)
        return Where(self.file, self.line, ", ".join(subjects))

    @property
    def at(self) -> str:
        return f"{self.file}:{self.line}"


class GenerationFailed(Exception):
    """Every generation error of one run, reported together."""

    def __init__(self, errors: Iterable[GenerationError]) -> None:
        self.errors = list(errors)
        super().__init__("\n".join(str(error) for error in self.errors))


def unique(errors: Iterable[GenerationError]) -> list[GenerationError]:
    """``errors`` without repeats (one broken declaration reached from two places reports once)."""
    return list({str(error): error for error in errors}.values())
