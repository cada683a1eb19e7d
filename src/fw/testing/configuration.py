"""``configured``: an application's tests say exactly what the configuration is.

A test that builds an :class:`fw.App` needs its pillars (authentication above all) configured
the way the test says, not by whatever ``config.dev.toml``, ``.env`` or shell variables the
developer happens to have. So the layers given here are the only ones: no file is searched, no
dotenv file is read, the process environment is not consulted. Everything else is the real
path (same parsing, same errors, same ``fw.config``, same composition of the App's pillars).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping, Sequence

import fw.configuration.registry as registry
from fw.pillars import install


class UnconfiguredAppWarning(UserWarning):
    """Under fw's pytest plugin: a test made fw read its configuration implicitly (an App
    started, or ``fw.config`` read, with no :func:`configured` block in force and nothing
    parsed). That configuration depends on where the test runs: ``config.dev.toml``, ``.env``
    and the shell's variables from the project folder, defaults (auth off) from anywhere else.

    Make it an error for a whole suite with ``filterwarnings = ["error::fw.testing.UnconfiguredAppWarning"]``.
    """


@contextlib.contextmanager
def configured(
    *, toml: str = "", env: Mapping[str, str] | None = None, argv: Sequence[str] = ()
) -> Iterator[None]:
    """Make the configuration in force exactly these layers while the block runs.

    ``toml`` is the file layer (sources read ``file:<toml>:LINE``), ``env`` the whole
    environment (also what ``${NAME}`` in ``toml`` expands from, and where ``APP_ENV`` is read),
    ``argv`` the command line. Every registration made so far is kept; the configuration that
    was in place before (parsed or not) comes back when the block ends, even on an error. Bad
    layers raise :class:`fw.ConfigError` at the ``with`` line, as they would at startup.

    Build the App (or send its first request) inside the block: an App decides its pillars once,
    from the configuration in place when it first starts, and keeps that configuration after the
    block ends (its handlers' ``fw.config(cls, request)`` and a client used later read it). Started
    again under a block with other values, the App refuses with :class:`fw.StartupError`.
    """
    install()  # fw's own pillars judge the layers, as at startup
    saved = registry.state()
    registry.restore(registry.unparsed_copy(saved))
    try:
        registry.parse_layers(argv, dict(env or {}), toml)
        yield
    finally:
        registry.restore(saved)
