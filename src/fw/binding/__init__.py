"""Request binding runtime: what generated binders call."""
