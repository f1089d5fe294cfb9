"""The sender over TLS: connects to the checked address while verifying the certificate for the
URL's host name (SNI + hostname check), and fails closed on an untrusted certificate."""

from __future__ import annotations

import datetime as dt
import ssl
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from webstore.webhooks.http import HttpSender
from webstore.webhooks.policy import check_url

HOST = "hooks.example.test"


def _self_signed(directory: Path) -> tuple[Path, Path]:
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, HOST)])
    now = dt.datetime.now(dt.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(minutes=1))
        .not_valid_after(now + dt.timedelta(hours=1))
        .add_extension(x509.SubjectAlternativeName([x509.DNSName(HOST)]), critical=False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = directory / "cert.pem", directory / "key.pem"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
    )
    return cert_path, key_path


@pytest.fixture
def https_receiver(tmp_path: Path) -> Iterator[tuple[int, Path, list[dict[str, Any]]]]:
    cert_path, key_path = _self_signed(tmp_path)
    seen: list[dict[str, Any]] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers["Content-Length"]))
            seen.append(
                {"host": self.headers["Host"], "sni": getattr(self.connection, "sni", None), "body": body}
            )
            self.send_response(200)
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"{}")

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert_path, key_path)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True).start()
    yield server.server_address[1], cert_path, seen
    server.shutdown()
    server.server_close()


def test_https_to_a_pinned_address_verifies_the_host_name(
    https_receiver: tuple[int, Path, list[dict[str, Any]]],
) -> None:
    port, cert_path, seen = https_receiver
    target = check_url(f"https://{HOST}:{port}/hook", allow_private=True, resolver=lambda h, p: ["127.0.0.1"])
    trusted = ssl.create_default_context(cafile=str(cert_path))

    result = HttpSender(timeout=2, tls=trusted).post(target, b'{"id":"1"}', {"X-Signature": "abc"})

    assert result.ok, result.error
    assert seen[0]["host"] == f"{HOST}:{port}"
    assert seen[0]["body"] == b'{"id":"1"}'


def test_an_untrusted_certificate_fails_the_delivery(
    https_receiver: tuple[int, Path, list[dict[str, Any]]],
) -> None:
    port, _, seen = https_receiver
    target = check_url(f"https://{HOST}:{port}/hook", allow_private=True, resolver=lambda h, p: ["127.0.0.1"])

    result = HttpSender(timeout=2).post(target, b"{}", {})

    assert not result.ok
    assert result.error is not None and result.error.startswith("tls error")
    assert seen == []


def test_a_certificate_for_another_name_fails_the_delivery(
    https_receiver: tuple[int, Path, list[dict[str, Any]]],
) -> None:
    port, cert_path, seen = https_receiver
    target = check_url(
        f"https://other.example.test:{port}/", allow_private=True, resolver=lambda h, p: ["127.0.0.1"]
    )
    result = HttpSender(timeout=2, tls=ssl.create_default_context(cafile=str(cert_path))).post(
        target, b"{}", {}
    )
    assert not result.ok and result.error is not None and "tls error" in result.error
    assert seen == []
