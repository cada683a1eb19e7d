"""Markdown table cells: the few characters that would break a table row are escaped."""

from __future__ import annotations


def cell(text: str) -> str:
    """``text`` safe inside one table cell (pipes escaped, newlines joined)."""
    return " ".join(text.replace("|", "\\|").split())


def code(text: str) -> str:
    """``text`` as inline code in a cell (empty: an em dash)."""
    if not text:
        return "—"
    fence = "``" if "`" in text else "`"
    padded = f" {text} " if fence == "``" else text
    return cell(f"{fence}{padded}{fence}")


def row(*cells: str) -> str:
    return "| " + " | ".join(cells) + " |"
