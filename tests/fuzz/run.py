"""Run one fuzz target under atheris: ``python tests/fuzz/run.py TARGET [libFuzzer flags] DIRS``.

fw's modules are instrumented for coverage as they are imported, so the fuzzer steers toward
new branches of fw's own code. Pass a scratch directory first and the committed seed corpus
after it: libFuzzer writes what it finds to the first directory only.
"""

from __future__ import annotations

import sys

import atheris

with atheris.instrument_imports(include=["fw", "binding"]):
    import targets

    # Import what each target reaches now, so the first input does not pay for it.
    import fw.auth.browser.redirects
    import fw.auth.tokens.jws
    import fw.configuration.duration
    import fw.configuration.tomlfile  # noqa: F401

    targets._app("bind")
    targets._app("cbor")


def main() -> None:
    name = sys.argv[1]
    target = targets.TARGETS[name]
    atheris.Setup([sys.argv[0], *sys.argv[2:]], target)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
