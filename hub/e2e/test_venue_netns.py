"""The hub at a venue, across network namespaces: the hub in a namespace of its own (the venue's
server), a phone and a box in another (the venue's Wi-Fi), joined by a veth pair with addresses
the test picks. Nothing reaches 127.0.0.1: the phone meets the hub as it would in a hall.

- the hub serves HTTPS on 0.0.0.0:443 with a certificate from a test CA for hub.venue.test and
  the venue's address, and redirects plain HTTP on port 80 (308);
- a simulated box on the phone's side publishes a message through the hub over HTTPS (--hub-ca),
  and its recording, through one of the bench's rooms, is the phone's fake microphone;
- Debian's Chromium in the phone's namespace, trusting the CA through an NSS database in a
  scratch HOME, with hub.venue.test mapped to the venue's address: the page at
  https://hub.venue.test/listen is a secure context, gets the microphone and shows the box's
  message; http://<venue address>/listen is redirected to HTTPS; a page served over plain HTTP at
  the venue's address says it must be opened over HTTPS;
- SIGHUP: with a watch open from the phone's namespace, a renewed certificate is served to new
  connections and the open watch still delivers a change.

Needs root and iproute2 (`ip netns`); the namespaces (nc-venue-PID, nc-phone-PID) are deleted at
the end, and ones left by a run that was killed are deleted at the start. The test's own clients
(Python's ssl, selenium's chromedriver) run in the phone's namespace by setns(2) on the calling
thread (`inside`): a socket made, or a process started, there belongs to that namespace."""
import contextlib
import ctypes
import http.client
import os
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import unittest

from cryptography import x509

from hubtest import Database, Hub, b64, chromium, create_project, have_chromium, heard, start_sim_box
from test_listener import WEB, fake_microphone, heard_lines, open_details, through_room, wait_until
from tlsproxy import NAME, TestCA

try:
    from selenium.webdriver.common.by import By
except ImportError:  # tools/setup/install-deps installs it
    pass

PID = os.getpid()
VENUE_NS = f"nc-venue-{PID}"
PHONE_NS = f"nc-phone-{PID}"
SUBNET = f"10.213.{PID % 250 + 1}"
VENUE = f"{SUBNET}.1"   # the hub's address on the venue's network
PHONE = f"{SUBNET}.2"   # the phone's (and the box's)

CLONE_NEWNET = 0x40000000
_libc = ctypes.CDLL(None, use_errno=True)


def _setns(fd):
    if _libc.setns(fd, CLONE_NEWNET) != 0:
        error = ctypes.get_errno()
        raise OSError(error, f"setns: {os.strerror(error)}")


@contextlib.contextmanager
def inside(namespace):
    """The calling thread in network namespace `namespace` (ip netns's /run/netns/NAME) for the
    block: the sockets it makes and the processes it starts are there."""
    home = os.open("/proc/thread-self/ns/net", os.O_RDONLY)
    try:
        target = os.open(f"/run/netns/{namespace}", os.O_RDONLY)
        try:
            _setns(target)
        finally:
            os.close(target)
        try:
            yield
        finally:
            _setns(home)
    finally:
        os.close(home)


def ip(*arguments):
    return subprocess.run(["ip", *arguments], check=True, capture_output=True, text=True, timeout=30).stdout


def delete_namespace(namespace):
    """Ends what still runs in `namespace` (processes this test started there) and deletes it."""
    if not os.path.exists(f"/run/netns/{namespace}"):
        return
    pids = subprocess.run(["ip", "netns", "pids", namespace], capture_output=True, text=True, timeout=30).stdout.split()
    for pid in pids:
        with contextlib.suppress(ProcessLookupError, ValueError):
            os.kill(int(pid), signal.SIGKILL)
    subprocess.run(["ip", "netns", "delete", namespace], capture_output=True, timeout=30)


def delete_stale_namespaces():
    """Namespaces of earlier runs of this test whose process is gone (a run killed before its
    cleanup)."""
    for line in subprocess.run(["ip", "netns", "list"], capture_output=True, text=True, timeout=30).stdout.splitlines():
        match = re.match(r"nc-(?:venue|phone)-(\d+)\b", line)
        if match and not os.path.exists(f"/proc/{match.group(1)}"):
            delete_namespace(line.split()[0])


def dial_venue(port, timeout=None):
    """A TCP connection from the phone's namespace to the venue's address."""
    with inside(PHONE_NS):
        return socket.create_connection((VENUE, port), timeout=timeout)


def phone_connection(port, context=None, timeout=30, host=None):
    """An HTTP(S) connection from the phone to the hub at the venue: by the name hub.venue.test
    (its Host header and SNI), the socket made in the phone's namespace to the venue's address."""
    host = host or NAME
    if context is not None:
        connection = http.client.HTTPSConnection(host, port, timeout=timeout, context=context)
    else:
        connection = http.client.HTTPConnection(host, port, timeout=timeout)
    connection._create_connection = lambda address, timeout=None, source_address=None: dial_venue(port, timeout)
    return connection


class VenueHub(Hub):
    """`nearcast-hub serve` in the venue's namespace (`ip netns exec`), on `listen` there; its
    requests come from the phone's namespace."""

    def __init__(self, db_url, listen, extra=(), tls=None):
        super().__init__(db_url, extra=extra, tls=tls, listen=listen, wrapper=("ip", "netns", "exec", VENUE_NS))

    def connect(self, timeout=30):
        return phone_connection(self.port, self.tls, timeout)


class HubAtAVenue(unittest.TestCase):
    """One venue for every test: the namespaces, the CA, a project and the hub serving HTTPS."""

    @classmethod
    def setUpClass(cls):
        if os.geteuid() != 0:
            raise unittest.SkipTest("needs root for network namespaces")
        if not shutil.which("ip"):
            raise unittest.SkipTest("needs iproute2's ip")
        delete_stale_namespaces()
        try:
            ip("netns", "add", VENUE_NS)
        except subprocess.CalledProcessError as error:
            raise unittest.SkipTest(f"ip netns add is impossible here: {error.stderr.strip()}")
        cls.addClassCleanup(delete_namespace, VENUE_NS)
        ip("netns", "add", PHONE_NS)
        cls.addClassCleanup(delete_namespace, PHONE_NS)
        # The venue's network: one cable from the hub's machine to the phones' side.
        try:
            ip("link", "add", "veth0", "netns", VENUE_NS, "type", "veth", "peer", "name", "veth0", "netns", PHONE_NS)
        except subprocess.CalledProcessError as error:
            raise unittest.SkipTest(f"a veth pair between namespaces is impossible here: {error.stderr.strip()}")
        for namespace, address in ((VENUE_NS, VENUE), (PHONE_NS, PHONE)):
            ip("-n", namespace, "addr", "add", f"{address}/24", "dev", "veth0")
            ip("-n", namespace, "link", "set", "lo", "up")
            ip("-n", namespace, "link", "set", "veth0", "up")

        cls.work = tempfile.mkdtemp(prefix="nearcast-venue-")
        cls.addClassCleanup(shutil.rmtree, cls.work, ignore_errors=True)
        cls.ca = TestCA(cls.work)
        # `serial`: the certificate's the hub serves now (the SIGHUP test renews it).
        cert, key, cls.serial = cls.ca.issue("hub", addresses=(VENUE,))
        # The files the hub is started with; a renewal replaces their contents, as certbot does.
        cls.served_cert = os.path.join(cls.work, "served.pem")
        cls.served_key = os.path.join(cls.work, "served.key")
        shutil.copy(cert, cls.served_cert)
        shutil.copy(key, cls.served_key)
        cls.database = Database("sqlite")
        cls.addClassCleanup(cls.database.drop)
        cls.keys = create_project(cls.database.url, "demo")
        cls.hub = VenueHub(cls.database.url, "0.0.0.0:443", tls=cls.ca.client_context(),
                           extra=("--tls-cert", cls.served_cert, "--tls-key", cls.served_key,
                                  "--redirect-http", "0.0.0.0:80", "--listener", WEB))
        cls.addClassCleanup(cls.hub.stop)

    def setUp(self):
        self.extra_hubs = []

    def tearDown(self):
        failed = self._outcome.success is False
        for hub in self.extra_hubs:
            hub.stop()
            if failed:
                print(hub.stderr()[-3000:])
        if failed:
            print(self.hub.stderr()[-4000:])

    def handshake(self):
        """The serial of the certificate a fresh connection from the phone is served."""
        with dial_venue(self.hub.port, timeout=10) as raw:
            with self.ca.client_context(["h2", "http/1.1"]).wrap_socket(raw, server_hostname=NAME) as tls:
                return x509.load_der_x509_certificate(tls.getpeercert(binary_form=True)).serial_number

    def wait_for_log(self, text, count, timeout=10):
        """Waits for the hub's log to hold `text` more than `count` times."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.hub.stderr().count(text) > count:
                return
            time.sleep(0.1)
        self.fail(f"the hub's log never said {text!r} again:\n{self.hub.stderr()[-2000:]}")

    def raw_get(self, port, host, path):
        """The head of a plain-HTTP GET from the phone to the venue's address."""
        with dial_venue(port, timeout=10) as s:
            s.sendall(f"GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n".encode())
            answer = b""
            while chunk := s.recv(65536):
                answer += chunk
        return answer.decode(errors="replace")

    def test_the_hub_is_at_the_venue_s_address_not_on_this_machine_s_loopback(self):
        self.assertEqual((self.hub.port, self.hub.redirect_port), (443, 80))
        status, params = self.hub.get("/v1beta1/eidparams")
        self.assertEqual(status, 200, params)
        self.assertEqual(self.handshake(), self.serial)
        # The phone's side has only the veth: its own loopback has no hub.
        with self.assertRaises(OSError):
            with inside(PHONE_NS):
                socket.create_connection(("127.0.0.1", 443), timeout=3).close()

    def test_plain_http_at_the_venue_s_address_is_redirected_to_https(self):
        for host in (VENUE, NAME):
            head = self.raw_get(80, host, "/listen?key=ncpub_x")
            self.assertTrue(head.startswith("HTTP/1.1 308"), head)
            # The same name or address, over HTTPS on its default port.
            self.assertIn(f"\r\nlocation: https://{host}/listen?key=ncpub_x\r\n", head.lower())
        # A real client on the phone's side follows it, by name, trusting only the test CA.
        result = subprocess.run(["ip", "netns", "exec", PHONE_NS, "curl", "-sS", "-L", "--http2", "--cacert", self.ca.path,
                                 "--resolve", f"{NAME}:80:{VENUE}", "--resolve", f"{NAME}:443:{VENUE}",
                                 "-o", "/dev/null", "-w", "%{http_version} %{response_code} %{num_redirects} %{url_effective}",
                                 f"http://{NAME}/healthz"], capture_output=True, text=True, timeout=30)
        self.assertEqual(result.stdout, f"2 200 1 https://{NAME}/healthz", result.stderr)

    def test_sighup_serves_a_renewed_certificate_while_a_watch_from_the_phone_keeps_streaming(self):
        hub = self.hub
        status, beacon = hub.post("/v1beta1/beacons:register",
                                  {"advertisedId": {"type": "EDDYSTONE", "id": b64(b"\x02" * 16)}}, key=self.keys["secretKey"])
        self.assertEqual(status, 200, beacon)
        token = hub.watch_token(self.keys["apiKey"], heard(beacon["beaconName"]))
        watch = hub.watch(beacon["beaconName"], self.keys["apiKey"], token=token)
        try:
            self.assertEqual(watch.status, 200)
            self.assertEqual(watch.next(10)[0], "attachments")
            before = self.handshake()

            renewed_cert, renewed_key, renewed_serial = self.ca.issue("renewed", days=30, addresses=(VENUE,))
            self.assertEqual(before, self.serial)
            self.assertNotEqual(renewed_serial, before)
            reloads = hub.stderr().count("read again")
            shutil.copy(renewed_cert, self.served_cert)
            shutil.copy(renewed_key, self.served_key)
            subprocess.run(["kill", "-HUP", str(hub.process.pid)], check=True)
            self.wait_for_log("read again", reloads)
            self.assertEqual(self.handshake(), renewed_serial, "a new connection from the phone gets the renewed certificate")
            type(self).serial = renewed_serial
            # The watch opened before the reload is still there and still delivers.
            status, _ = hub.post(f"/v1beta1/{beacon['beaconName']}/attachments",
                                 {"namespacedType": "demo/slide", "data": b64(b"After the renewal")}, key=self.keys["secretKey"])
            self.assertEqual(status, 200)
            event, data = watch.next(10)
            self.assertEqual(event, "attachments")
            self.assertEqual([a["data"] for a in data["attachments"]], [b64(b"After the renewal")])
            self.assertIsNone(hub.process.poll(), "the hub kept running")
        finally:
            watch.close()

    @unittest.skipIf(not have_chromium(), "needs selenium and Debian's chromium")
    @unittest.skipUnless(shutil.which("certutil"), "needs certutil (libnss3-tools)")
    @unittest.skipUnless(os.path.exists(os.path.join(WEB, "nearcast-modem.wasm")), "needs the page: tools/setup/build-web")
    def test_a_phone_at_the_venue_opens_the_page_by_name_over_https_and_hears_the_box(self):
        # A box on the venue's network publishes its message through the hub over HTTPS, by the
        # venue's address (in the certificate too), trusting the test CA.
        state = os.path.join(self.work, "box")
        with inside(PHONE_NS):
            box = start_sim_box(state, f"https://{VENUE}", self.keys["secretKey"], ["message:demo/slide:Slide 1"],
                                os.path.join(self.work, "box.log"), ("--hub-ca", self.ca.path, "--duration", "6"))
        try:
            box.wait(timeout=60)
        finally:
            if box.poll() is None:
                box.kill()
        with open(os.path.join(self.work, "box.log")) as f:
            box_log = f.read()
        self.assertEqual(box.returncode, 0, box_log[-3000:])
        microphone = os.path.join(self.work, "room-a.wav")
        through_room(os.path.join(state, "audio.wav"), microphone)

        # A home whose NSS database trusts the test CA, as a venue's phones trust a public CA.
        home = os.path.join(self.work, "home")
        nssdb = os.path.join(home, ".pki", "nssdb")
        os.makedirs(nssdb)
        subprocess.run(["certutil", "-d", f"sql:{nssdb}", "-N", "--empty-password"], check=True, capture_output=True)
        subprocess.run(["certutil", "-d", f"sql:{nssdb}", "-A", "-n", "nearcast-test-ca", "-t", "C,,", "-i", self.ca.path],
                       check=True, capture_output=True)
        key = self.keys["apiKey"]
        # chromedriver, Chromium and the WebDriver client's connections to chromedriver: all on the phone.
        with inside(PHONE_NS):
            browser = chromium(*fake_microphone(microphone), f"--user-data-dir={os.path.join(home, 'chrome')}",
                               f"--host-resolver-rules=MAP {NAME} {VENUE}", env=dict(os.environ, HOME=home))
            try:
                phone_pids = ip("netns", "pids", PHONE_NS).split()
                self.assertIn(str(browser.service.process.pid), phone_pids, "chromedriver runs on the phone's side")
                self.phone_opens_the_page(browser, key)
            except Exception:
                with contextlib.suppress(Exception):
                    print(browser.execute_script("return document.body.innerText"))
                    print([entry["message"] for entry in browser.get_log("browser")])
                raise
            finally:
                browser.quit()

    def phone_opens_the_page(self, browser, key):
        state = lambda: browser.find_element(By.ID, "state")  # noqa: E731
        browser.get(f"https://{NAME}/listen?key={key}")
        self.assertEqual(browser.execute_script(
            "return [window.isSecureContext, window.crossOriginIsolated, !!(navigator.mediaDevices && navigator.mediaDevices.getUserMedia)]"),
            [True, True, True])
        open_details(browser)   # the messages and the rate are the page's diagnostics, behind "Details"
        wait_until(lambda: heard_lines(browser) == ["demo/slide Slide 1"], 60, "the box's message showing", browser)
        self.assertEqual(state().text, "Listening for the room…")
        self.assertRegex(browser.find_element(By.ID, "hearing").text, r"^Listening at")
        self.assertEqual(state().get_attribute("data-state"), "listening")

        # The venue's address typed over plain HTTP: redirected to HTTPS, still a secure context.
        browser.get(f"http://{VENUE}/listen?key={key}")
        wait_until(lambda: browser.current_url.startswith(f"https://{VENUE}/listen"), 20, "the redirect to HTTPS", browser)
        self.assertTrue(browser.execute_script("return window.isSecureContext"))

        # A hub at the venue serving plain HTTP (no TLS): the page says it needs HTTPS.
        plain = VenueHub(self.database.url, f"{VENUE}:8080", extra=("--listener", WEB))
        self.extra_hubs.append(plain)
        browser.get(f"http://{VENUE}:8080/listen?key={key}")
        self.assertFalse(browser.execute_script("return window.isSecureContext"))
        wait_until(lambda: "must be opened over HTTPS" in state().text, 20, "the HTTPS warning", browser)
        self.assertEqual(state().get_attribute("data-state"), "problem")
        self.assertNotIn("cross-origin isolated", state().text, "the headers are not what is missing")


if __name__ == "__main__":
    unittest.main()
