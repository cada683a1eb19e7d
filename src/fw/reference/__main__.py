"""``python -m fw.reference DIRECTORY``: write the generated reference pages into DIRECTORY."""

from __future__ import annotations

import sys
from pathlib import Path

from fw.reference import pages


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m fw.reference DIRECTORY (docs/reference in fw's repository)", file=sys.stderr)
        return 2
    folder = Path(argv[0])
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in pages().items():
        (folder / name).write_text(text, encoding="utf-8")
        print(f"wrote {folder / name}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
