"""The build-time half of request binding, used by ``fw generate`` only: scan, plan, emit."""
