"""Request binding: ``fw.parse`` and the runtime that generated binders call.

The binders themselves are plain code written by ``fw generate``; this package holds what they
share (body decoding, source readers, converters, limits) and the dispatch from a type to its
binder.
"""

from fw.binding.limits import BodyLimitMiddleware, set_max_multipart_body_bytes
from fw.binding.registry import NoBinderError, parse
from fw.binding.types import File, RawJSON

__all__ = ["BodyLimitMiddleware", "File", "NoBinderError", "RawJSON", "parse", "set_max_multipart_body_bytes"]
