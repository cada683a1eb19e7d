"""Calling an endpoint: async ones directly, plain functions in the thread pool (they may block)."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Awaitable, Callable
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response


def is_async(function: Any) -> bool:
    """Whether calling ``function`` returns an awaitable: a coroutine function, possibly inside a
    ``functools.partial`` or as a callable object's ``__call__``."""
    while isinstance(function, functools.partial):
        function = function.func
    return inspect.iscoroutinefunction(function) or (
        callable(function) and inspect.iscoroutinefunction(type(function).__call__)
    )


def as_coroutine_function(
    endpoint: Callable[[Request], Awaitable[Response]] | Callable[[Request], Response],
) -> Callable[[Request], Awaitable[Response]]:
    """``endpoint`` itself when it is async; a plain function runs in the thread pool."""
    if is_async(endpoint):
        return endpoint  # type: ignore[return-value]
    return functools.partial(run_in_threadpool, endpoint)  # type: ignore[arg-type,return-value]
