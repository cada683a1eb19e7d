"""fw: a web framework with authentication, request binding and configuration built in.

This module is the public surface only; every name is defined in the module its pillar owns.
"""

from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response

from fw.app import App, run
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
from fw.problems import BindError, FieldError, Problem, bad_request, field, validation, write_problem

# --- configuration pillar exports ---
# --- binding pillar exports ---
# --- auth pillar exports ---

__all__ = [
    "App",
    "BindError",
    "ConfigError",
    "FieldError",
    "GenerationError",
    "HTMLResponse",
    "JSONResponse",
    "Problem",
    "RedirectResponse",
    "Request",
    "Response",
    "StartupError",
    "arg",
    "bad_request",
    "check",
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
    "path",
    "payload",
    "query",
    "run",
    "secret",
    "validation",
    "write_problem",
]
