"""A loopback provider whose discovery document names whatever the test says, over http or https.

:class:`NamingIssuer` is :class:`fw.testing.issuer.LocalIssuer` (discovery, JWKS, minting, a
request counter) whose OpenID document also carries the members a relying party reads
(authorization, token, userinfo and end-session endpoints); ``names`` replaces members (``None``
removes one), so a test can have a trusted issuer name ``http://idp.example.com/auth`` as data.
Nothing ever connects to such a URL: the document only names it.

With ``tls`` (a :func:`self_signed` certificate generated here with ``cryptography``) it serves
https, so a test meets a certificate nobody trusts, and trusts it through ``SSL_CERT_FILE``.
"""

from __future__ import annotations

import datetime
import ipaddress
import socket
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from fw.background import BackgroundServer
from fw.testing.issuer import LocalIssuer

#: A host that is not loopback: it appears only as data in documents, never contacted.
ELSEWHERE = "http://idp.example.com"

#: Every member of a metadata document that names an endpoint, as the document spells it.
ENDPOINT_MEMBERS = [
    "authorization_endpoint",
    "token_endpoint",
    "userinfo_endpoint",
    "jwks_uri",
    "end_session_endpoint",
    "device_authorization_endpoint",
    "revocation_endpoint",
    "introspection_endpoint",
    "registration_endpoint",
    "backchannel_authentication_endpoint",
    "pushed_authorization_request_endpoint",
    "check_session_iframe",
]


class Clock:
    """A clock the test moves by hand (``clock.now += 600``)."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@dataclass(frozen=True)
class TlsFiles:
    """A PEM certificate (also the bundle that trusts it) and its private key."""

    certificate: Path
    key: Path


def self_signed(folder: Path) -> TlsFiles:
    """A certificate for ``127.0.0.1`` and ``localhost``, signed by itself, valid for a day."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "fw test issuer")])
    now = datetime.datetime.now(datetime.UTC)
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(
            x509.SubjectAlternativeName(
                [x509.IPAddress(ipaddress.ip_address("127.0.0.1")), x509.DNSName("localhost")]
            ),
            critical=False,
        )
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    files = TlsFiles(folder / "issuer-cert.pem", folder / "issuer-key.pem")
    files.certificate.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    files.key.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
    )
    return files


class NamingIssuer(LocalIssuer):
    """``LocalIssuer`` with an OpenID provider's endpoints in its document, each replaceable."""

    def __init__(self, *, tls: TlsFiles | None = None, **options: Any) -> None:
        super().__init__(**options)
        self.tls = tls
        #: Members of the discovery document to replace; a value ``None`` removes the member.
        self.names: dict[str, Any] = {}

    @property
    def url(self) -> str:
        scheme = "https" if self.tls is not None else "http"
        return f"{scheme}://127.0.0.1:{self.port}{self.path}"

    def _metadata(self) -> dict[str, Any]:
        document = {
            **super()._metadata(),
            "authorization_endpoint": f"{self.url}/auth",
            "userinfo_endpoint": f"{self.url}/userinfo",
            "end_session_endpoint": f"{self.url}/logout",
        }
        for member, value in self.names.items():
            if value is None:
                document.pop(member, None)
            else:
                document[member] = value
        return document

    def start(self) -> NamingIssuer:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", 0))
        self.port = sock.getsockname()[1]
        tls: dict[str, Any] = {}
        if self.tls is not None:
            tls = {"ssl_certfile": str(self.tls.certificate), "ssl_keyfile": str(self.tls.key)}
        self._server = BackgroundServer(
            self._app(), sock, what="the naming issuer", name="fw-test-naming-issuer", access_log=False, **tls
        )
        self._server.start()
        return self

    def __enter__(self) -> NamingIssuer:
        return self.start()
