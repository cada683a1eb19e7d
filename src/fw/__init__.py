"""fw: a web framework with authentication, request binding and configuration built in.

This module is the public surface only; every name is defined in the module its pillar owns.
"""

from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response

from fw.app import App, run

# --- binding pillar exports ---
from fw.binding import File, RawJSON, parse, set_max_multipart_body_bytes

# --- configuration pillar exports ---
from fw.configuration import (
    command,
    config,
    register_config,
    register_subcommand,
    set_config_load_options,
    subcommand,
)
from fw.errors import ConfigError, GenerationError, StartupError
from fw.markers import (
    arg,
    check,
    cookie,
    default,
    dependon,
    enum,
    env,
    falsy,
    header,
    help,
    input,
    key,
    method,
    opt,
    path,
    payload,
    query,
    secret,
)
from fw.pillars import parse_config
from fw.problems import BindError, FieldError, Problem, bad_request, field, validation, write_problem
from fw.responses import JSONResponse

# --- auth pillar: ``fw.auth`` is a name of the facade (its own names import lazily, so this loads
# no store, mode or SDK). Importing registers nothing: fw's own pillars join the configuration
# and every App when configuration is first parsed (fw.configuration.framework) ---
# isort: split
import fw.auth as auth

if TYPE_CHECKING:
    from fw.auth.caller import request_authentication


def __getattr__(name: str) -> Any:
    """``fw.request_authentication``, imported on first use with the auth code it lives in."""
    if name == "request_authentication":
        from fw.auth.caller import request_authentication

        globals()[name] = request_authentication
        return request_authentication
    raise AttributeError(f"module 'fw' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


__all__ = [
    "App",
    "BindError",
    "ConfigError",
    "FieldError",
    "File",
    "GenerationError",
    "HTMLResponse",
    "JSONResponse",
    "Problem",
    "RawJSON",
    "RedirectResponse",
    "Request",
    "Response",
    "StartupError",
    "arg",
    "auth",
    "bad_request",
    "check",
    "command",
    "config",
    "cookie",
    "default",
    "dependon",
    "enum",
    "env",
    "falsy",
    "field",
    "header",
    "help",
    "input",
    "key",
    "method",
    "opt",
    "parse",
    "parse_config",
    "path",
    "payload",
    "query",
    "register_config",
    "register_subcommand",
    "request_authentication",
    "run",
    "secret",
    "set_config_load_options",
    "set_max_multipart_body_bytes",
    "subcommand",
    "validation",
    "write_problem",
]
