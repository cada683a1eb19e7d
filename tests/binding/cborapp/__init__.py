"""A fixture application generated with ``api.cbor = true``."""
