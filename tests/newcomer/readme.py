"""The commands a README tells a person to type, read from the README itself.

A generated project's README shows its commands in fenced ``sh`` blocks (``bash``, ``shell`` and
``console`` too); fw's own README shows its set-up line as an indented code line. Taking the
commands from there, rather than writing them into the test, is what makes the newcomer test a
check of the README: a command that is wrong, missing or in the wrong order fails it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

SHELL_FENCES = {"sh", "bash", "shell", "console"}
_PROGRAM_PATH = re.compile(r"[\w.-]*(?:/[\w.-]+)+")
_FENCE = re.compile(r"^\s*```\s*([\w-]*)")


@dataclass(frozen=True)
class Command:
    """One command line, and the heading of the README section it appears under."""

    text: str
    section: str


def fenced_commands(markdown: str) -> list[Command]:
    """Every command in the README's shell blocks, in order: comments dropped, backslash-continued
    lines joined; in a block whose lines carry ``$`` prompts, only the prompted lines (the rest
    is output shown)."""
    commands: list[Command] = []
    for block, section in _shell_blocks(markdown):
        prompted = any(line.strip().startswith("$ ") for line in block)
        pending = ""
        for line in block:
            text = line.strip()
            if prompted and not pending:
                if not text.startswith("$ "):
                    continue
                text = text.removeprefix("$ ")
            if not pending and (not text or text.startswith("#")):
                continue
            if text.endswith("\\"):
                pending += text[:-1] + " "
                continue
            commands.append(Command(" ".join((pending + text).split()), section))
            pending = ""
    return commands


def _shell_blocks(markdown: str) -> list[tuple[list[str], str]]:
    """The lines of each shell block, with the heading it stands under."""
    blocks: list[tuple[list[str], str]] = []
    section = ""
    fence: str | None = None
    for line in markdown.splitlines():
        opened = _FENCE.match(line)
        if fence is None:
            if opened:
                fence = opened.group(1).lower()
                blocks.append(([], section))
            elif line.startswith("#"):
                section = line.lstrip("#").strip()
        elif opened:  # the closing fence
            if fence not in SHELL_FENCES:
                blocks.pop()
            fence = None
        else:
            blocks[-1][0].append(line)
    if fence is not None and fence not in SHELL_FENCES:  # never closed
        blocks.pop()
    return blocks


def code_lines(markdown: str) -> list[str]:
    """Every line of code a person could copy: indented code lines and fenced shell lines."""
    indented = [line.strip() for line in markdown.splitlines() if line.startswith("    ") and line.strip()]
    return indented + [command.text for command in fenced_commands(markdown)]


def segments(command: str) -> list[str]:
    """The steps of a ``a && b && c`` line, each as typed."""
    return [part.strip() for part in command.split("&&") if part.strip()]


def is_command(segment: str, *words: str) -> bool:
    """Whether ``segment`` runs ``words`` (``fw dev``), with options or not, whatever path the
    program is typed with (``.venv/bin/fw dev``)."""
    typed = segment.split()[: len(words)]
    if typed and _PROGRAM_PATH.fullmatch(typed[0]):
        typed[0] = typed[0].rsplit("/", 1)[-1]
    return typed == list(words)
