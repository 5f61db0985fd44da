"""The hub over HTTPS: `nearcast-hub serve --tls-cert --tls-key [--redirect-http]`, with a test CA
made here (PyPI's cryptography) and real TLS clients (Python's ssl, curl).

- the API over HTTPS with HTTP/1.1, and HTTP/2 chosen by ALPN (what a phone's browser asks for);
- the plain-HTTP listener redirecting every request to the same address over HTTPS (308);
- SIGHUP: new connections get the renewed certificate while an open watch keeps streaming; a
  broken renewal keeps the certificate served before;
- refusals at start: a missing certificate, a key that is not the certificate's, one option
  without the other, a redirect without TLS;
- the listener page in Debian's Chromium, headless, by the certificate's name (mapped to the hub
  by --host-resolver-rules) with the test CA trusted in an NSS database made here: over HTTPS it is
  a secure context, gets the (fake) microphone, hears a beacon's EID and shows its message; over
  plain HTTP by the same name it is redirected, and a page served over plain HTTP at a name says
  it must be opened over HTTPS."""
import os
import shutil
import signal
import socket
import ssl
import subprocess
import tempfile
import time
import unittest

from cryptography import x509

from hubtest import HUB, NEARCAST, Beacon, Database, Hub, b64, chromium, create_project, have_chromium, heard
from test_listener import WEB, fake_microphone, open_details, read_wav, write_pcm16
from tlsproxy import NAME, TestCA

try:
    from selenium.webdriver.common.by import By
except ImportError:  # tools/setup/install-deps installs it
    pass

class HubOverHTTPS(unittest.TestCase):
    def setUp(self):
        self.work = tempfile.mkdtemp(prefix="nearcast-tls-")
        self.ca = TestCA(self.work)
        self.cert, self.key, self.serial = self.ca.issue("hub")
        # The files the hub is started with; a renewal replaces their contents, as certbot does.
        self.served_cert = os.path.join(self.work, "served.pem")
        self.served_key = os.path.join(self.work, "served.key")
        shutil.copy(self.cert, self.served_cert)
        shutil.copy(self.key, self.served_key)
        self.database = Database("sqlite")
        self.keys = create_project(self.database.url, "demo")
        self.hub = None

    def tearDown(self):
        if self.hub:
            self.hub.stop()
            if self._outcome.success is False:
                print(self.hub.stderr())
        self.database.drop()
        shutil.rmtree(self.work, ignore_errors=True)

    def start(self, *extra):
        self.hub = Hub(self.database.url, tls=self.ca.client_context(),
                       extra=("--tls-cert", self.served_cert, "--tls-key", self.served_key, *extra))
        return self.hub

    def handshake(self, alpn=("h2", "http/1.1")):
        """(ALPN protocol chosen, the served certificate's serial) of a fresh connection."""
        with socket.create_connection(("127.0.0.1", self.hub.port), timeout=10) as raw:
            with self.ca.client_context(list(alpn)).wrap_socket(raw, server_hostname=NAME) as tls:
                served = x509.load_der_x509_certificate(tls.getpeercert(binary_form=True))
                return tls.selected_alpn_protocol(), served.serial_number

    def test_the_api_over_https_with_http2_by_alpn_and_http1(self):
        hub = self.start()
        status, params = hub.get("/v1beta1/eidparams")
        self.assertEqual(status, 200, params)
        self.assertIn("serviceEcdhPublicKey", params)
        self.assertEqual(self.handshake(), ("h2", self.serial))
        self.assertEqual(self.handshake(("http/1.1",)), ("http/1.1", self.serial))
        # A real HTTP/2 client (curl with nghttp2), by the name the certificate carries.
        result = subprocess.run(["curl", "-sS", "--http2", "--cacert", self.ca.path, "--resolve", f"{NAME}:{hub.port}:127.0.0.1",
                                 "-o", "/dev/null", "-w", "%{http_version} %{response_code}", f"https://{NAME}:{hub.port}/healthz"],
                                capture_output=True, text=True, timeout=30)
        self.assertEqual(result.stdout, "2 200", result.stderr)
        # An untrusting client is refused by its own check, not served in clear.
        with self.assertRaises(ssl.SSLCertVerificationError):
            with socket.create_connection(("127.0.0.1", hub.port), timeout=10) as raw:
                ssl.create_default_context().wrap_socket(raw, server_hostname=NAME)

    def test_plain_http_is_redirected_to_https(self):
        hub = self.start("--redirect-http", "127.0.0.1:0")
        self.assertIsNotNone(hub.redirect_port)
        for method in ("GET", "POST"):
            with socket.create_connection(("127.0.0.1", hub.redirect_port), timeout=10) as s:
                s.sendall(f"{method} /listen?key=ncpub_x HTTP/1.1\r\nHost: {NAME}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".encode())
                answer = b""
                while chunk := s.recv(65536):
                    answer += chunk
            head = answer.decode(errors="replace")
            self.assertTrue(head.startswith("HTTP/1.1 308"), head)
            self.assertIn(f"location: https://{NAME}:{hub.port}/listen?key=ncpub_x".lower(), head.lower())
        # A request that names no host cannot be sent anywhere: 400, in words.
        with socket.create_connection(("127.0.0.1", hub.redirect_port), timeout=10) as s:
            s.sendall(b"GET / HTTP/1.1\r\nConnection: close\r\n\r\n")
            answer = b""
            while chunk := s.recv(65536):
                answer += chunk
        self.assertTrue(answer.startswith(b"HTTP/1.1 400"), answer)
        self.assertIn(b"HTTPS only", answer)

    def test_sighup_serves_a_renewed_certificate_while_an_open_watch_keeps_streaming(self):
        hub = self.start()
        status, beacon = hub.post("/v1beta1/beacons:register",
                                  {"advertisedId": {"type": "EDDYSTONE", "id": b64(b"\x01" * 16)}}, key=self.keys["secretKey"])
        self.assertEqual(status, 200, beacon)
        token = hub.watch_token(self.keys["apiKey"], heard(beacon["beaconName"]))
        watch = hub.watch(beacon["beaconName"], self.keys["apiKey"], token=token)
        self.assertEqual(watch.status, 200)
        self.assertEqual(watch.next(10)[0], "attachments")

        renewed_cert, renewed_key, renewed_serial = self.ca.issue("renewed", days=30)
        shutil.copy(renewed_cert, self.served_cert)
        shutil.copy(renewed_key, self.served_key)
        hub.process.send_signal(signal.SIGHUP)
        self.wait_for_log("read again")
        self.assertEqual(self.handshake()[1], renewed_serial, "a new connection gets the renewed certificate")
        # The watch opened before the reload is still there and still delivers.
        status, _ = hub.post(f"/v1beta1/{beacon['beaconName']}/attachments",
                             {"namespacedType": "demo/slide", "data": b64(b"Slide 2")}, key=self.keys["secretKey"])
        self.assertEqual(status, 200)
        event, data = watch.next(10)
        self.assertEqual(event, "attachments")
        self.assertEqual(len(data["attachments"]), 1)
        watch.close()

        # A renewal caught half-written: the hub says so and keeps serving the last good pair.
        with open(self.served_cert, "w") as f:
            f.write("-----BEGIN CERTIFICATE-----\nnot base64\n")
        hub.process.send_signal(signal.SIGHUP)
        self.wait_for_log("still serving the certificate read before")
        self.assertEqual(self.handshake()[1], renewed_serial)
        self.assertIsNone(hub.process.poll(), "the hub kept running")

    def wait_for_log(self, text, timeout=10):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if text in self.hub.stderr():
                return
            time.sleep(0.1)
        self.fail(f"the hub's log never said {text!r}:\n{self.hub.stderr()[-2000:]}")

    def test_bad_certificate_options_are_refused_at_start_naming_the_file(self):
        _, other_key, _ = self.ca.issue("other")
        missing = os.path.join(self.work, "absent.pem")
        cases = [
            (["--tls-cert", missing, "--tls-key", self.key], f"--tls-cert {missing}"),
            (["--tls-cert", self.cert, "--tls-key", other_key], f"--tls-key {other_key} is not the key"),
            (["--tls-cert", self.key, "--tls-key", self.key], f"--tls-cert {self.key}"),
            (["--tls-cert", self.cert], "--tls-cert and --tls-key go together"),
            (["--redirect-http", "127.0.0.1:0"], "--redirect-http (redirectHTTP) redirects to HTTPS"),
            (["--tls-cert", self.cert, "--tls-key", self.key, "--redirect-http", "nowhere"], "--redirect-http nowhere: use HOST:PORT"),
        ]
        for arguments, says in cases:
            result = subprocess.run([HUB, "serve", "--listen", "127.0.0.1:0", "--db", self.database.url, *arguments],
                                    capture_output=True, text=True, timeout=60)
            self.assertNotEqual(result.returncode, 0, arguments)
            self.assertIn(says, result.stderr, arguments)


@unittest.skipIf(not have_chromium(), "needs selenium and Debian's chromium")
@unittest.skipUnless(shutil.which("certutil"), "needs certutil (libnss3-tools)")
@unittest.skipUnless(os.path.exists(os.path.join(WEB, "nearcast-modem.wasm")), "needs the page: tools/setup/build-web")
class ListenerPageOverHTTPS(unittest.TestCase):
    """What a phone at a venue meets: the page by a name, not 127.0.0.1."""

    def setUp(self):
        self.work = tempfile.mkdtemp(prefix="nearcast-tls-page-")
        self.ca = TestCA(self.work)
        cert, key, _ = self.ca.issue("hub")
        self.database = Database("sqlite")
        self.keys = create_project(self.database.url, "demo")
        self.hub = Hub(self.database.url, tls=self.ca.client_context(),
                       extra=("--tls-cert", cert, "--tls-key", key, "--redirect-http", "127.0.0.1:0", "--listener", WEB))
        # A home whose NSS database trusts the test CA, as a venue's phones trust a public CA.
        self.home = os.path.join(self.work, "home")
        nssdb = os.path.join(self.home, ".pki", "nssdb")
        os.makedirs(nssdb)
        subprocess.run(["certutil", "-d", f"sql:{nssdb}", "-N", "--empty-password"], check=True, capture_output=True)
        subprocess.run(["certutil", "-d", f"sql:{nssdb}", "-A", "-n", "nearcast-test-ca", "-t", "C,,", "-i", self.ca.path],
                       check=True, capture_output=True)
        self.browser = None

    def tearDown(self):
        if self.browser:
            if self._outcome.success is False:
                print(self.browser.execute_script("return document.body.innerText"))
                print([entry["message"] for entry in self.browser.get_log("browser")])
            self.browser.quit()
        self.hub.stop()
        if self._outcome.success is False:
            print(self.hub.stderr())
        self.database.drop()
        shutil.rmtree(self.work, ignore_errors=True)

    def microphone_hearing(self, beacon):
        """A WAV of the beacon's current EID, as the box sends it (`nearcast encode`)."""
        sent = os.path.join(self.work, "eid.wav")
        subprocess.run([NEARCAST, "encode", "--payload", beacon.eid().hex(), "--kind", "eid", "--rate", "48000", "--out", sent],
                       check=True, capture_output=True)
        rate, samples = read_wav(sent)
        heard = os.path.join(self.work, "microphone.wav")
        write_pcm16(heard, rate, samples + [0.0] * rate)   # a second of quiet between the loops
        return heard

    def open(self, url, microphone):
        env = dict(os.environ, HOME=self.home)
        self.browser = chromium(*fake_microphone(microphone), f"--user-data-dir={os.path.join(self.home, 'chrome')}",
                                f"--host-resolver-rules=MAP {NAME} 127.0.0.1", env=env)
        self.browser.get(url)
        return self.browser

    def state(self):
        return self.browser.find_element(By.ID, "state").text

    def wait(self, condition, timeout, what):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if condition():
                return
            time.sleep(0.2)
        self.fail(f"{what} did not happen in {timeout} s; the page says {self.state()!r}")

    def test_over_https_the_page_listens_and_shows_the_message_over_http_it_says_why_not(self):
        beacon = Beacon(self.hub.service_public_key(), exponent=10)
        status, registered = self.hub.post("/v1beta1/beacons:register", beacon.registration(), key=self.keys["secretKey"])
        self.assertEqual(status, 200, registered)
        status, _ = self.hub.post(f"/v1beta1/{beacon.name()}/attachments",
                                  {"namespacedType": "demo/slide", "data": b64(b"Welcome to the venue")}, key=self.keys["secretKey"])
        self.assertEqual(status, 200)
        browser = self.open(f"https://{NAME}:{self.hub.port}/listen?key={self.keys['apiKey']}", self.microphone_hearing(beacon))
        self.assertTrue(browser.execute_script("return window.isSecureContext && window.crossOriginIsolated"))
        open_details(browser)   # the messages and the rate are the page's diagnostics, behind "Details"
        self.wait(lambda: "demo/slide Welcome to the venue" in browser.find_element(By.ID, "heard").text, 60, "the message")
        self.assertEqual(self.state(), "Listening for the room…")
        self.assertRegex(browser.find_element(By.ID, "hearing").text, r"^Listening at")

        # The same page by the same name over plain HTTP (a phone that typed the name): the
        # redirect listener sends it to HTTPS...
        browser.get(f"http://{NAME}:{self.hub.redirect_port}/listen?key={self.keys['apiKey']}")
        self.wait(lambda: browser.current_url.startswith(f"https://{NAME}:{self.hub.port}/listen"), 20, "the redirect to HTTPS")
        # ...and a page really served over plain HTTP at a name says it needs HTTPS.
        plain = Hub(self.database.url, extra=("--listener", WEB))
        try:
            browser.get(f"http://{NAME}:{plain.port}/listen?key={self.keys['apiKey']}")
            self.wait(lambda: "must be opened over HTTPS" in self.state(), 20, "the HTTPS warning")
            self.assertEqual(browser.find_element(By.ID, "state").get_attribute("data-state"), "problem")
            self.assertNotIn("cross-origin isolated", self.state(), "the headers are not what is missing")
        finally:
            plain.stop()


if __name__ == "__main__":
    unittest.main()
