"""WebAuthn for fw's passkey modes, on py_webauthn: the relying party, ceremony options, strict
reading of browser responses and their verification. It knows no App, settings or storage; the
modes compose it with ceremony state and credential stores.

A ceremony, as a mode runs it::

    challenge = new_challenge()                      # stored with the ceremony, single use
    options = authentication_options(party, challenge=challenge)
    ...                                              # the browser answers via passkey.js
    response = parse_authentication_response(body)   # PasskeyMalformed (400) if not a response
    stored = lookup(response.credential_id)          # None when unknown
    verified = verify_authentication(response, party=party, challenge=challenge, credential=stored)
                                                     # PasskeyRejected (403) for every failure

Every name is imported on first use (:func:`__getattr__`), with only the module defining it:
``fw init`` reads ``passkey.js`` (:mod:`.script`) in an install without the ``passkeys`` extra,
and only the modules that verify a ceremony need ``webauthn``.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from fw.auth.webauthn.errors import PasskeyMalformed, PasskeyRejected, Rejection
    from fw.auth.webauthn.options import (
        ALGORITHMS,
        CEREMONY_TIMEOUT,
        ES256,
        MAX_USER_HANDLE,
        RS256,
        authentication_options,
        new_challenge,
        registration_options,
    )
    from fw.auth.webauthn.relying_party import (
        USER_VERIFICATION_VALUES,
        RelyingParty,
        RelyingPartyProblem,
        UserVerification,
        relying_party_problems,
    )
    from fw.auth.webauthn.responses import (
        AuthenticationResponse,
        RegistrationResponse,
        parse_authentication_response,
        parse_registration_response,
    )
    from fw.auth.webauthn.script import SCRIPT_MEDIA_TYPE, SCRIPT_NAME, passkey_script
    from fw.auth.webauthn.verification import (
        KnownCredential,
        RegisteredCredential,
        VerifiedAssertion,
        verify_authentication,
        verify_registration,
    )

#: Public name -> the module defining it.
_EXPORTS = {
    "PasskeyMalformed": "fw.auth.webauthn.errors",
    "PasskeyRejected": "fw.auth.webauthn.errors",
    "Rejection": "fw.auth.webauthn.errors",
    "ALGORITHMS": "fw.auth.webauthn.options",
    "CEREMONY_TIMEOUT": "fw.auth.webauthn.options",
    "ES256": "fw.auth.webauthn.options",
    "MAX_USER_HANDLE": "fw.auth.webauthn.options",
    "RS256": "fw.auth.webauthn.options",
    "authentication_options": "fw.auth.webauthn.options",
    "new_challenge": "fw.auth.webauthn.options",
    "registration_options": "fw.auth.webauthn.options",
    "USER_VERIFICATION_VALUES": "fw.auth.webauthn.relying_party",
    "RelyingParty": "fw.auth.webauthn.relying_party",
    "RelyingPartyProblem": "fw.auth.webauthn.relying_party",
    "UserVerification": "fw.auth.webauthn.relying_party",
    "relying_party_problems": "fw.auth.webauthn.relying_party",
    "AuthenticationResponse": "fw.auth.webauthn.responses",
    "RegistrationResponse": "fw.auth.webauthn.responses",
    "parse_authentication_response": "fw.auth.webauthn.responses",
    "parse_registration_response": "fw.auth.webauthn.responses",
    "SCRIPT_MEDIA_TYPE": "fw.auth.webauthn.script",
    "SCRIPT_NAME": "fw.auth.webauthn.script",
    "passkey_script": "fw.auth.webauthn.script",
    "KnownCredential": "fw.auth.webauthn.verification",
    "RegisteredCredential": "fw.auth.webauthn.verification",
    "VerifiedAssertion": "fw.auth.webauthn.verification",
    "verify_authentication": "fw.auth.webauthn.verification",
    "verify_registration": "fw.auth.webauthn.verification",
}

__all__ = [
    "ALGORITHMS",
    "CEREMONY_TIMEOUT",
    "ES256",
    "MAX_USER_HANDLE",
    "RS256",
    "SCRIPT_MEDIA_TYPE",
    "SCRIPT_NAME",
    "USER_VERIFICATION_VALUES",
    "AuthenticationResponse",
    "KnownCredential",
    "PasskeyMalformed",
    "PasskeyRejected",
    "RegisteredCredential",
    "RegistrationResponse",
    "Rejection",
    "RelyingParty",
    "RelyingPartyProblem",
    "UserVerification",
    "VerifiedAssertion",
    "authentication_options",
    "new_challenge",
    "parse_authentication_response",
    "parse_registration_response",
    "passkey_script",
    "registration_options",
    "relying_party_problems",
    "verify_authentication",
    "verify_registration",
]


def __getattr__(name: str) -> Any:
    """Import the module defining the public ``name`` and keep the value here for next time."""
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
