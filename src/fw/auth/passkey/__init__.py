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
"""

from fw.auth.passkey.errors import PasskeyMalformed, PasskeyRejected, Rejection
from fw.auth.passkey.options import (
    ALGORITHMS,
    CEREMONY_TIMEOUT,
    ES256,
    MAX_USER_HANDLE,
    RS256,
    authentication_options,
    new_challenge,
    registration_options,
)
from fw.auth.passkey.relying_party import (
    USER_VERIFICATION_VALUES,
    RelyingParty,
    RelyingPartyProblem,
    UserVerification,
    relying_party_problems,
)
from fw.auth.passkey.responses import (
    AuthenticationResponse,
    RegistrationResponse,
    parse_authentication_response,
    parse_registration_response,
)
from fw.auth.passkey.script import SCRIPT_MEDIA_TYPE, SCRIPT_NAME, passkey_script
from fw.auth.passkey.verification import (
    KnownCredential,
    RegisteredCredential,
    VerifiedAssertion,
    verify_authentication,
    verify_registration,
)

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
