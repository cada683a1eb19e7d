"""What both passkey modes share: their settings rules, the guarded JSON endpoints, ceremonies
bound to one browser, sign-in by passkey, registration, and the public calls
(``fw.auth.issue_bootstrap_credential``, ``fw.auth.passkeys``, ``fw.auth.remove_passkey``).

The WebAuthn protocol itself lives in :mod:`fw.auth.webauthn`; this package adds only state
(ceremonies in the ``auth.backend`` store), policy and the HTTP surface under ``auth.passkey.path``.
"""
