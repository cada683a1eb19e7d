"""fw's own pillars, handed to the configuration layer and to every App when first needed.

Importing ``fw`` registers nothing: were authentication's extension factory and configuration
hooks registered by the facade's import, what an App composes and what ``fw doctor`` judges
would depend on which module a program imported first. Instead :func:`install` hands them over
the first time something needs them: an App about to compose its pillars (its first start),
and ``fw.parse_config``, ``fw.run``, ``fw.testing.configured`` and the ``fw`` command before
they parse. Each piece goes through the seam a pillar from outside fw would use
(:func:`fw.extension.register_extension`, the configuration hooks), so nothing is special-cased.

The configuration layer sits below every pillar and imports none of them, so it cannot do this
itself; and a configuration that was parsed before the pillars were handed over is checked
here for the keys they removed, as the parse would have.
"""

from __future__ import annotations

from collections.abc import Sequence

# fw's own configuration tables, registered as these modules load (with the facade, so before
# anything parses, whichever parse it is: fw.configuration.load and parse_config included),
# in this order: the server's and observability's, [session], each store engine's
# [middleware.<engine>] (the store registry imports fw's engine declarations, which import no
# driver, and widens auth.backend / session.backend with their names), then [auth].
# isort: off
import fw.settings
import fw.auth.sessions.settings
import fw.auth.stores.registry
import fw.auth.settings  # noqa: F401

# isort: on

_installed = False


def install() -> None:
    """Hand fw's own pillars over once (authentication, operations, the store tables' summary
    filter, the ``server.docs`` decision); later calls do nothing."""
    global _installed
    if _installed:
        return
    from fw.auth.wiring import register as register_auth
    from fw.binding.docs_route import docs_in_effect
    from fw.configuration import registry
    from fw.configuration.activity import register_inactive_hook
    from fw.configuration.effective import register_effective
    from fw.configuration.removed import check_removed
    from fw.configuration.stores import unused_store_tables
    from fw.operations.pillar import register as register_operations

    register_inactive_hook(unused_store_tables)  # the summary lists only the store tables in use
    register_effective("server.docs", docs_in_effect)  # the App decides an unset server.docs by APP_ENV
    register_auth()
    register_operations()  # health and readiness, the access log, metrics, tracing
    _installed = True
    state = registry.state()
    if state.parsed and state.resolved is not None and state.template is None:
        check_removed(registry.registered_loaders(), state.resolved.values, state.resolved.sources)


def installed() -> bool:
    """Whether :func:`install` ran in this process."""
    return _installed


def parse_config(argv: Sequence[str] | None = None) -> None:
    """``fw.parse_config``: load every registered configuration from defaults, file, environment
    and ``argv`` (default ``sys.argv[1:]``), judged by fw's own pillars too."""
    from fw.configuration import parse_config as parse

    install()
    parse(argv)
