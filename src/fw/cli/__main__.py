"""``python -m fw.cli``: the ``fw`` command, for a shell without the script on its path."""

from fw.cli import main

raise SystemExit(main())
