"""fw: a web framework with authentication, request binding and configuration built in.

This module is the public surface only; every name is defined in the module its pillar owns.
"""

from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response

from fw.app import App, run

# --- binding pillar exports ---
from fw.binding import File, RawJSON, parse, set_max_multipart_body_bytes

# --- configuration pillar exports ---
from fw.configuration import (
    command,
    config,
    parse_config,
    register_config,
    register_subcommand,
    set_config_load_options,
    subcommand,
)
from fw.errors import ConfigError, GenerationError, StartupError
from fw.extension import register_extension as _register_extension
from fw.extension import register_openapi_security as _register_openapi_security
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
from fw.problems import BindError, FieldError, Problem, bad_request, field, validation, write_problem
from fw.responses import JSONResponse

# --- auth pillar exports; authentication is composed into every App at start ---
# isort: split
from fw.auth.caller import request_authentication
from fw.auth.openapi import security as _auth_security
from fw.auth.plugin import extension as _auth_extension

_register_extension(_auth_extension)
_register_openapi_security(_auth_security)

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
