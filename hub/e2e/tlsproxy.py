"""TLS for the tests: a private CA and server certificates for NAME and 127.0.0.1 made with
PyPI's cryptography (`TestCA`, also for the hub's own HTTPS in test_tls.py), and a
TLS-terminating proxy, as a venue would put the hub behind nginx or Caddy: TLS from Python's ssl
module, bytes relayed to the hub's plain HTTP port (`TLSProxy`)."""
import datetime
import ipaddress
import os
import ssl
import tempfile

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from relay import Relay


# The name the HTTPS tests give the hub (mapped to 127.0.0.1 by the client).
NAME = "hub.venue.test"


class TestCA:
    """A certificate authority of the test's own, and server certificates it signs for NAME and
    127.0.0.1 (what a venue's hub would get from a public CA, for its name)."""

    def __init__(self, directory):
        self.directory = directory
        self.key = ec.generate_private_key(ec.SECP256R1())
        subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "Nearcast test CA")])
        now = datetime.datetime.now(datetime.timezone.utc)
        self.certificate = (x509.CertificateBuilder().subject_name(subject).issuer_name(subject)
                            .public_key(self.key.public_key()).serial_number(x509.random_serial_number())
                            .not_valid_before(now - datetime.timedelta(hours=1)).not_valid_after(now + datetime.timedelta(days=2))
                            .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
                            .add_extension(x509.KeyUsage(digital_signature=True, key_cert_sign=True, crl_sign=True, content_commitment=False,
                                                         key_encipherment=False, data_encipherment=False, key_agreement=False,
                                                         encipher_only=False, decipher_only=False), critical=True)
                            .sign(self.key, hashes.SHA256()))
        self.path = os.path.join(directory, "ca.pem")
        with open(self.path, "wb") as f:
            f.write(self.certificate.public_bytes(serialization.Encoding.PEM))

    def issue(self, name, days=1, addresses=("127.0.0.1",)):
        """(certificate path, key path, serial) of a new server certificate, for NAME and the IP
        `addresses`."""
        key = ec.generate_private_key(ec.SECP256R1())
        now = datetime.datetime.now(datetime.timezone.utc)
        serial = x509.random_serial_number()
        certificate = (x509.CertificateBuilder()
                       .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, NAME)]))
                       .issuer_name(self.certificate.subject).public_key(key.public_key()).serial_number(serial)
                       .not_valid_before(now - datetime.timedelta(hours=1)).not_valid_after(now + datetime.timedelta(days=days))
                       .add_extension(x509.SubjectAlternativeName([x509.DNSName(NAME), *(x509.IPAddress(ipaddress.ip_address(a)) for a in addresses)]),
                                      critical=False)
                       .add_extension(x509.ExtendedKeyUsage([x509.oid.ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
                       .sign(self.key, hashes.SHA256()))
        cert_path = os.path.join(self.directory, f"{name}.pem")
        key_path = os.path.join(self.directory, f"{name}.key")
        with open(cert_path, "wb") as f:
            f.write(certificate.public_bytes(serialization.Encoding.PEM))
            f.write(self.certificate.public_bytes(serialization.Encoding.PEM))
        with open(key_path, "wb") as f:
            f.write(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
        return cert_path, key_path, serial

    def client_context(self, alpn=None):
        context = ssl.create_default_context(cafile=self.path)
        if alpn:
            context.set_alpn_protocols(alpn)
        return context


class TLSProxy(Relay):
    """https://127.0.0.1:PORT relayed to http://127.0.0.1:backend_port."""

    def __init__(self, backend_port):
        self.folder = tempfile.mkdtemp(prefix="nearcast-tls-")
        authority = TestCA(self.folder)
        self.ca = authority.path
        certificate, key, _ = authority.issue("server")
        self.context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        self.context.load_cert_chain(certificate, key)
        self.handshake_failures = 0
        super().__init__(backend_port)

    def serve(self, client):
        try:
            secure = self.context.wrap_socket(client, server_side=True)
        except (ssl.SSLError, OSError):
            self.handshake_failures += 1
            client.close()
            return
        super().serve(secure)
