"""Helpers for the hub's tests: real nearcast-hub processes, real HTTP, a real PostgreSQL, and an
independent Eddystone-EID implementation (PyPI's cryptography: X25519, HKDF-SHA256, AES-128) to
register and observe beacons the way a box does.

Environment (tools/check/test-hub sets it):
  NEARCAST_HUB_BIN             the built nearcast-hub
  NEARCAST_HUB_POSTGRES_URL    a server URL (postgres://postgres@127.0.0.1:PORT/postgres); each test
                               gets a database of its own on it
"""
import base64
import http.client
import hashlib
import itertools
import json
import os
import queue
import re
import select
import shutil
import socket
import subprocess
import tempfile
import threading
import time
import unittest
import urllib.parse
import uuid

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

HUB = os.environ.get("NEARCAST_HUB_BIN", os.path.join(os.path.dirname(__file__), "..", ".build", "debug", "nearcast-hub"))
NEARCAST = os.environ.get("NEARCAST_BIN", os.path.join(os.path.dirname(__file__), "..", "..", ".build", "debug", "nearcast"))
POSTGRES = os.environ.get("NEARCAST_HUB_POSTGRES_URL")
# Set by tools/check/sanitize when NEARCAST_HUB_BIN is a sanitized build: its allocator keeps freed
# memory in quarantine and pads every block, so the tests' memory bounds do not apply to it.
SANITIZED = os.environ.get("NEARCAST_HUB_SANITIZER")


def have_chromium() -> bool:
    """Debian's chromium and chromedriver, and selenium (tools/setup/install-deps installs them)."""
    try:
        import selenium  # noqa: F401
    except ImportError:
        return False
    return bool(shutil.which("chromium") and shutil.which("chromedriver"))


def chromium(*flags, prefs=None, env=None):
    """Headless Chromium through WebDriver, with `flags` added (a fake microphone, say),
    profile `prefs` (a blocked microphone) and `env` for chromedriver and the browser (a HOME
    whose NSS database trusts a test CA)."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", *flags):
        options.add_argument(flag)
    if prefs:
        options.add_experimental_option("prefs", prefs)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    service = Service(shutil.which("chromedriver") or "/usr/bin/chromedriver", env=env)
    return webdriver.Chrome(service=service, options=options)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def unb64(text: str) -> bytes:
    return base64.b64decode(text)


# --- Eddystone-EID, written from the spec (google/eddystone eddystone-eid/eid-computation.md) ---

def aes_block(key: bytes, block: bytes) -> bytes:
    encryptor = Cipher(algorithms.AES(key), modes.ECB()).encryptor()
    return encryptor.update(block) + encryptor.finalize()


def eid(identity_key: bytes, exponent: int, time: int) -> bytes:
    temporary = aes_block(identity_key, bytes(11) + b"\xff\x00\x00" + bytes([(time >> 24) & 0xFF, (time >> 16) & 0xFF]))
    quantised = time & ~((1 << exponent) - 1) & 0xFFFFFFFF
    return aes_block(temporary, bytes(11) + bytes([exponent]) + quantised.to_bytes(4, "big"))[:8]


def raw_public(key) -> bytes:
    return key.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)


class Beacon:
    """A box's EID identity: an X25519 key pair, and the identity key derived with the hub's key."""

    def __init__(self, service_public: bytes, exponent: int = 10, clock: int = 5_000_000):
        self.private = X25519PrivateKey.generate()
        self.public = raw_public(self.private)
        shared = self.private.exchange(X25519PublicKey.from_public_bytes(service_public))
        self.identity_key = HKDF(algorithm=hashes.SHA256(), length=32, salt=service_public + self.public,
                                 info=b"").derive(shared)[:16]
        self.service_public = service_public
        self.exponent = exponent
        self.clock = clock

    def eid(self, at=None) -> bytes:
        return eid(self.identity_key, self.exponent, self.clock if at is None else at)

    def registration(self, description="a test box"):
        initial = self.eid()
        return {"advertisedId": {"type": "EDDYSTONE_EID", "id": b64(initial)},
                "description": description,
                "ephemeralIdRegistration": {
                    "beaconEcdhPublicKey": b64(self.public), "serviceEcdhPublicKey": b64(self.service_public),
                    "rotationPeriodExponent": self.exponent, "initialClockValue": self.clock,
                    "initialEid": b64(initial)}}

    def name(self) -> str:
        return "beacons/4!" + self.eid().hex()

    def observation(self, at=None):
        return {"advertisedId": {"type": "EDDYSTONE_EID", "id": b64(self.eid(at))},
                "timestampMs": str(int(time.time() * 1000))}


def uid_observation(uid: bytes) -> dict:
    """An observation of an Eddystone UID (or short direct token) `uid`, as getforobserved takes it."""
    return {"advertisedId": {"type": "EDDYSTONE", "id": b64(uid)}}


def heard(beacon_name: str) -> dict:
    """What a phone hears of the UID beacon `beacon_name` (beacons/3!HEX): its observation."""
    prefix = "beacons/3!"
    assert beacon_name.startswith(prefix), f"{beacon_name} is not an Eddystone UID beacon: observe its EID (Beacon.observation)"
    return uid_observation(bytes.fromhex(beacon_name[len(prefix):]))


# --- databases ---

class Database:
    """A fresh database for one test: a SQLite file in a temporary folder, or a new database on
    the test PostgreSQL server."""

    def __init__(self, kind: str):
        self.kind = kind
        self.folder = tempfile.mkdtemp(prefix="nearcast-hub-test-")
        if kind == "sqlite":
            self.url = "sqlite:" + os.path.join(self.folder, "hub.sqlite")
        else:
            if not POSTGRES:
                raise unittest.SkipTest("NEARCAST_HUB_POSTGRES_URL is not set (tools/check/test-hub starts a server)")
            self.name = "hub_" + uuid.uuid4().hex[:12]
            psql(POSTGRES, f"CREATE DATABASE {self.name}")
            self.url = POSTGRES.rsplit("/", 1)[0] + "/" + self.name

    def drop(self):
        shutil.rmtree(self.folder, ignore_errors=True)
        if self.kind == "postgres":
            psql(POSTGRES, f"DROP DATABASE IF EXISTS {self.name} WITH (FORCE)")


def psql(url: str, statement: str) -> str:
    return subprocess.run(["psql", url, "-qAtc", statement], check=True, capture_output=True, text=True).stdout


def create_project(db_url: str, name: str) -> dict:
    result = subprocess.run([HUB, "project", "create", name, "--db", db_url], capture_output=True, text=True, timeout=60)
    if result.returncode != 0:
        raise AssertionError(f"project create {name} failed: {result.stderr}")
    return json.loads(result.stdout)


# --- a hub process ---

def rss_kib(pid: int) -> int:
    """A process's resident memory (VmRSS), in KiB."""
    with open(f"/proc/{pid}/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmRSS:"))


def poll(read, accept, timeout=20.0, every=0.2):
    """`read()` until `accept` takes its value (returned) or `timeout` passes (the last value is
    returned, for the assertion to show)."""
    deadline = time.monotonic() + timeout
    while True:
        value = read()
        if accept(value) or time.monotonic() >= deadline:
            return value
        time.sleep(every)


class Hub:
    """`nearcast-hub serve` on a free loopback port, its stderr kept for failure messages."""

    binary = HUB

    def __init__(self, db_url: str, cwd=None, port=0, extra=(), tls=None, listen=None, wrapper=()):
        """`tls`: an ssl.SSLContext trusting the hub's certificate, when `extra` has --tls-cert;
        requests then go over HTTPS. With --redirect-http, `redirect_port` is its bound port.
        `listen`: HOST:PORT instead of 127.0.0.1:`port`; `wrapper`: a command the hub is run
        through (`ip netns exec NS`, test_venue_netns.py)."""
        self.tls = tls
        self.redirect_port = None
        listen = listen or f"127.0.0.1:{port}"
        host = listen.rsplit(":", 1)[0]
        self.log = tempfile.NamedTemporaryFile(prefix="nearcast-hub-", suffix=".log", delete=False)
        self.process = subprocess.Popen([*wrapper, HUB, "serve", "--listen", listen, "--db", db_url, *extra],
                                        stdout=subprocess.PIPE, stderr=self.log, text=True, cwd=cwd)
        wants_redirect = "--redirect-http" in extra
        self.port = None
        deadline = time.monotonic() + 60
        line = ""
        pending = b""
        # Raw reads, not readline: two lines may arrive in one read, and a buffered second line
        # would never wake select again.
        descriptor = self.process.stdout.fileno()
        while time.monotonic() < deadline:
            ready, _, _ = select.select([descriptor], [], [], 1)
            if ready:
                chunk = os.read(descriptor, 65536)
                pending += chunk
                *lines, pending = pending.split(b"\n")
                for raw in lines:
                    line = raw.decode(errors="replace")
                    match = re.search(r"serving (https?)://" + re.escape(host) + r":(\d+)", line)
                    if match:
                        assert (match.group(1) == "https") == (tls is not None), line
                        self.port = int(match.group(2))
                    match = re.search(r"redirecting http://[^:]+:(\d+) to HTTPS", line)
                    if match:
                        self.redirect_port = int(match.group(1))
                if self.port is not None and (self.redirect_port is not None or not wants_redirect):
                    return
                if not chunk and self.process.poll() is not None:
                    break
            if self.process.poll() is not None and not ready:
                break
        self.stop()
        raise AssertionError(f"nearcast-hub serve did not start: {line!r}\n{self.stderr()}")

    def connect(self, timeout=30):
        """A connection to the hub: HTTP, or HTTPS trusting the test's CA."""
        if self.tls is not None:
            return http.client.HTTPSConnection("127.0.0.1", self.port, timeout=timeout, context=self.tls)
        return http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)

    def stderr(self) -> str:
        with open(self.log.name) as f:
            return f.read()

    def rss_kib(self) -> int:
        """The hub process's resident memory (VmRSS), in KiB."""
        return rss_kib(self.process.pid)

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if not self.process.stdout.closed:
            self.process.stdout.close()

    def request(self, method: str, path: str, body=None, key=None, raw=None, headers=None):
        """(status, parsed JSON or text) of one request."""
        status, parsed, _ = self.exchange(method, path, body, key, raw, headers)
        return status, parsed

    def exchange(self, method: str, path: str, body=None, key=None, raw=None, headers=None):
        """(status, parsed JSON or text, response headers with lower-case names) of one request."""
        connection = self.connect()
        sent = dict(headers or {})
        if key:
            sent["X-Api-Key"] = key
        data = raw if raw is not None else (json.dumps(body).encode() if body is not None else None)
        if data is not None:
            sent["Content-Type"] = "application/json"
        connection.request(method, path, body=data, headers=sent)
        response = connection.getresponse()
        payload = response.read()
        connection.close()
        kind = response.getheader("Content-Type", "")
        parsed = json.loads(payload) if "json" in kind and payload else payload.decode(errors="replace")
        return response.status, parsed, {name.lower(): value for name, value in response.getheaders()}

    def get(self, path, key=None):
        return self.request("GET", path, key=key)

    def headers(self, method: str, path: str, headers=None):
        """(status, response headers with lower-case names) of one request, its body read and dropped."""
        status, _, received = self.exchange(method, path, headers=headers)
        return status, received

    def post(self, path, body=None, key=None, raw=None):
        return self.request("POST", path, body=body, key=key, raw=raw)

    def delete(self, path, key=None):
        return self.request("DELETE", path, key=key)

    def service_public_key(self) -> bytes:
        status, params = self.get("/v1beta1/eidparams")
        assert status == 200, params
        return unb64(params["serviceEcdhPublicKey"])

    def watch_token(self, key: str, *observations) -> str:
        """The `watchToken` getforobserved answers with `key` for what `observations` heard (one
        beacon): with the public key, a watch or a show of that beacon needs it in `?token=`."""
        status, body = self.post("/v1beta1/beaconinfo:getforobserved", {"observations": list(observations)}, key=key)
        assert status == 200, (status, body)
        tokens = {beacon["beaconName"]: beacon.get("watchToken") for beacon in body["beacons"]}
        assert len(tokens) == 1 and all(tokens.values()), f"one beacon with a watchToken expected: {body}"
        return next(iter(tokens.values()))

    def watch(self, beacon_name: str, key: str, namespaced_type=None, token=None):
        """An attachments:watch: `next()` gives ("attachments", {...}) events. `token`: the
        beacon's watchToken (`watch_token`), which the public key needs."""
        query = {"namespacedType": namespaced_type} if namespaced_type else {}
        if token is not None:
            query["token"] = token
        return EventStream(self.port, f"/v1beta1/{beacon_name}/attachments:watch", key, query=query, connect=self.connect)

    def show_events(self, beacon_id: str, key: str, in_header=False, token=None):
        """A show's events (`beacon_id` as in /v1/shows/4!hex); `token` as for `watch`."""
        query = {"token": token} if token is not None else {}
        return EventStream(self.port, f"/v1/shows/{beacon_id}/events", key, in_header=in_header, query=query, connect=self.connect)


class EventStream:
    """Server-Sent Events read on a thread: (event, data as JSON) pairs in a queue, comments
    skipped, ("closed", None) when the stream ends; an attachments:watch or a show's events. The
    key goes in `?key=` (as an EventSource sends it) or, with `in_header` and always for the secret
    key (which the hub refuses in an address), in X-Api-Key (as the presenter's page sends it)."""

    def __init__(self, port: int, path: str, key: str, in_header=False, query=None, connect=None):
        headers = {}
        query = dict(query or {})
        if in_header or key.startswith("ncsec_"):
            headers["X-Api-Key"] = key
        else:
            query["key"] = key
        if query:
            path += "?" + urllib.parse.urlencode(query)
        self.connection = connect(timeout=60) if connect else http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        self.connection.request("GET", path, headers=headers)
        self.response = self.connection.getresponse()
        self.status = self.response.status
        self.content_type = self.response.getheader("Content-Type", "")
        self.events = queue.Queue()
        self.seen = []
        if self.status == 200:
            threading.Thread(target=self._read, daemon=True).start()
        else:
            self.body = self.response.read()

    def _read(self):
        event, data = None, []
        try:
            for raw in self.response:
                line = raw.decode().rstrip("\r\n")
                if line == "":
                    if event or data:
                        self.events.put((event or "message", json.loads("\n".join(data)) if data else None))
                    event, data = None, []
                elif line.startswith(":"):
                    continue
                elif line.startswith("event:"):
                    event = line[6:].strip()
                elif line.startswith("data:"):
                    data.append(line[6:] if line.startswith("data: ") else line[5:])
        except Exception:
            pass
        self.events.put(("closed", None))

    def next(self, timeout=5.0):
        try:
            item = self.events.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(f"no event within {timeout} s; before: {self.seen[-5:]}") from None
        self.seen.append(item)
        return item

    def until(self, name: str, where=lambda data: True, timeout=5.0):
        """The data of the first `name` event that `where` accepts, skipping others."""
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise AssertionError(f"no matching '{name}' event within {timeout} s; last: {self.seen[-5:]}")
            event, data = self.next(timeout=remaining)
            if event == name and where(data):
                return data
            if event == "closed":
                raise AssertionError(f"the stream closed before a matching '{name}' event; last: {self.seen[-5:]}")

    def close(self):
        try:
            self.connection.sock.shutdown(2)
        except Exception:
            pass
        self.connection.close()


def solve_work(challenge: str, bits: int) -> str:
    """A nonce such that SHA-256(challenge + "\\n" + nonce) starts with `bits` zero bits: the work a
    phone id costs (web/page/phone-id-worker.js does it on the phone)."""
    base = hashlib.sha256((challenge + "\n").encode())
    for n in itertools.count():
        nonce = b"%016x" % n
        digest = base.copy()
        digest.update(nonce)
        if int.from_bytes(digest.digest()[:8], "big") >> (64 - bits) == 0 if bits else True:
            return nonce.decode()


class Client:
    """One keep-alive connection to `hub`: JSON requests with `key` (none if None), as a phone sends them."""

    def __init__(self, hub, key, source=None):
        # `source`: another loopback address to send from (127.0.0.0/8 is all this machine's).
        self.connection = http.client.HTTPConnection("127.0.0.1", hub.port, timeout=30,
                                                     source_address=(source, 0) if source else None)
        self.key = key

    def request(self, method, path, body=None, phone=None):
        headers = {"X-Api-Key": self.key} if self.key else {}
        if phone:
            headers["X-Nearcast-Phone"] = phone
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        self.connection.request(method, path, body=data, headers=headers)
        response = self.connection.getresponse()
        payload = response.read()
        return response.status, json.loads(payload) if payload and "json" in response.getheader("Content-Type", "") else payload

    def earn_id(self, observed):
        status, challenge = self.request("GET", "/v1/phones/challenge")
        assert status == 200, challenge
        nonce = solve_work(challenge["challenge"], challenge["bits"])
        status, answer = self.request("POST", "/v1/phones", {"challenge": challenge["challenge"], "nonce": nonce, "observed": observed})
        assert status == 200, answer
        return answer["phone"]

    def react(self, observed, phone, value="👏"):
        # The id in the body (what counts the reaction) and in the header (the phone's own rate
        # budget at the hub's front door), as the page sends it.
        return self.request("POST", "/v1/reactions", {"observed": observed, "reaction": value, "phone": phone}, phone=phone)[0]

    def close(self):
        self.connection.close()


def phone_id(hub, key: str, observed: dict):
    """(status, the phone id or the error) for a phone that proves presence with `observed` and
    does the hub's work, as the listener page does."""
    status, challenge = hub.get("/v1/phones/challenge", key=key)
    assert status == 200, challenge
    nonce = solve_work(challenge["challenge"], challenge["bits"])
    status, answer = hub.post("/v1/phones", {"challenge": challenge["challenge"], "nonce": nonce, "observed": observed}, key=key)
    return status, answer["phone"] if status == 200 else answer


class ProjectOnAHub:
    """A test mixin: a database of `database_kind` ("sqlite" or "postgres") with a project
    "demo" (`keys`, `secret`, `public`) and a hub serving it, made for each test and removed
    after it (the hub's log printed when the test failed)."""

    database_kind = None

    def setUp(self):
        self.database = Database(self.database_kind)
        self.keys = create_project(self.database.url, "demo")
        self.secret = self.keys["secretKey"]
        self.public = self.keys["apiKey"]
        self.hub = Hub(self.database.url)
        self.hubs = [self.hub]

    def tearDown(self):
        failed = self._outcome.success is False
        # A test that restarts the hub (self.hub = Hub(...)) leaves the new one out of self.hubs:
        # stop it too, or it outlives the test run.
        for hub in self.hubs + ([self.hub] if self.hub not in self.hubs else []):
            hub.stop()
            if failed:
                print(hub.stderr())
        self.database.drop()


CONSOLE_PROMPT = b"nearcast> "


def console(state_dir, line, timeout=10.0):
    """Types one line on the daemon's console socket and returns what it printed: the greeting,
    the line and its reply, up to the prompt that follows the reply. A line answered with a
    question instead (a PIN's) returns what came within `timeout` s, as does a console that
    closes."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.connect(os.path.join(state_dir, "console.sock"))
        s.sendall((line + "\r").encode())
        out = b""
        deadline = time.monotonic() + timeout
        # The greeting ends with a prompt, and so does the reply.
        while out.count(CONSOLE_PROMPT) < 2:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                break
            s.settimeout(remaining)
            try:
                chunk = s.recv(65536)
            except socket.timeout:
                break
            if not chunk:
                break
            out += chunk
        return out.decode(errors="replace")


def console_answers(state_dir, line="status"):
    """The reply to `line` when the daemon's console answers it now, else None: the socket not
    there yet, or left by a daemon that has stopped (nothing listens on it)."""
    try:
        reply = console(state_dir, line)
    except (FileNotFoundError, ConnectionRefusedError):
        return None
    return reply if reply.count("nearcast> ") >= 2 else None


def start_sim_box(state_dir, hub_url, hub_key, publish, log_path, extra=()):
    """`nearcast run --board sim` publishing `publish` through the hub at `hub_url`, its output
    appended to `log_path`: the running process."""
    arguments = [NEARCAST, "run", "--board", "sim", "--state-dir", state_dir, "--console", "none",
                 "--hub", hub_url, "--hub-key", hub_key, *extra]
    for spec in publish:
        arguments += ["--publish", spec]
    log = open(log_path, "a")
    return subprocess.Popen(arguments, stdout=log, stderr=subprocess.STDOUT, text=True)


def pdf_deck(pages: int, title: str = "Nearcast demo", width: int = 960, height: int = 540) -> bytes:
    """A real PDF of `pages` pages (16:9 landscape unless `width` and `height` say), each with a coloured band and its number in
    large type (so a screenshot shows which slide is up), written object by object with a correct
    cross-reference table: what poppler renders without complaint."""
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>", None,
               b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Bold >>"]
    kids = []
    for page in range(1, pages + 1):
        hue = [(0.04, 0.49, 0.35), (0.16, 0.35, 0.72), (0.72, 0.33, 0.10), (0.45, 0.22, 0.62)][(page - 1) % 4]
        text = f"{title}: slide {page} of {pages}".replace("(", "[").replace(")", "]")
        stream = (f"{hue[0]} {hue[1]} {hue[2]} rg 0 {height - 160} {width} 160 re f "
                  f"BT /F1 96 Tf 1 1 1 rg 60 {height - 120} Td ({page}) Tj ET "
                  f"BT /F1 28 Tf 0.1 0.1 0.1 rg 60 {height - 240} Td ({text}) Tj ET").encode()
        objects.append(b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream")
        content = len(objects)
        objects.append(b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 %d %d] /Contents %d 0 R "
                       b"/Resources << /Font << /F1 3 0 R >> >> >>" % (width, height, content))
        kids.append(len(objects))
    objects[1] = b"<< /Type /Pages /Kids [%s] /Count %d >>" % (b" ".join(b"%d 0 R" % k for k in kids), pages)
    return pdf_file(objects)


def pdf_file(objects) -> bytes:
    """A PDF of `objects` (object 1 the catalog) with a correct cross-reference table."""
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out)


def upload_deck(port: int, secret_key: str, pdf: bytes, title: str = None):
    """POST /v1/decks with a PDF body (Hub.request sends JSON): (status, answer)."""
    path = "/v1/decks" + (f"?title={urllib.parse.quote(title)}" if title else "")
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=180)
    try:
        connection.request("POST", path, body=pdf, headers={"X-Api-Key": secret_key, "Content-Type": "application/pdf"})
        response = connection.getresponse()
        data = response.read()
        try:
            return response.status, json.loads(data)
        except ValueError:
            return response.status, data.decode(errors="replace")
    finally:
        connection.close()
