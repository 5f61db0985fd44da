"""Three nearcast-hub instances on one private PostgreSQL behind a real HAProxy running the
configuration the hub package ships (tools/package/hub-deb/haproxy.cfg, installed as
/usr/share/doc/nearcast-hub/examples/haproxy.cfg), rendered with the test's ports by
haproxy_config.py (its `bind` lines one plain-HTTP bind on a free loopback port, its `server`
lines the three hubs, no `log`, `user`, `group` or `daemon`), `maxconn` lowered to what the
machine's descriptor limit holds when that is less, and a stats socket added to read what HAProxy
thinks of each hub. Everything else (the timeouts, the health check on /healthz, `option
forwardfor`, the retries and redispatch, roundrobin) is the shipped file's.

The hubs trust 127.0.0.1 (`trustedProxies`), where HAProxy connects from; the phones connect from
127.0.0.2 and 127.0.0.3 (Linux's loopback takes any 127.x source address), so the hubs must take
each phone's address from X-Forwarded-For, and only from HAProxy:
- a per-address limit (keyless requests: 2 a second, 10 at once, per hub) is spent by the phone's
  address, not HAProxy's: one address's flood leaves the other's budget whole, and a client's own
  X-Forwarded-For entries (left of HAProxy's) buy it nothing;
- straight to a hub from 127.0.0.2, a forged X-Forwarded-For changes nothing;
- HAProxy's connections are not capped per address (connectionsPerAddress is 50 here, and each
  hub holds about 100 of HAProxy's event streams), a client's own still are;
- failover: 300 followers of a show through HAProxy, each reconnecting as EventSource does (after
  its stream ends, 3 s later, Chromium's reconnection time; an answer other than 200 would close an
  EventSource for good, so it fails the test); one hub killed with SIGKILL and the page turned at
  once through HAProxy: every follower is on the new page within 10 s; every reaction answered 202
  meanwhile is counted, once;
- a hub that counted a reaction and closed without answering (a relay plays its death at that
  moment): HAProxy does not send the POST to another hub, so the phone is told 502 and the
  reaction counts once (with `retry-on empty-response` alone it would be answered 202 and counted twice);
  with its tap's key it is retried on the other hub, answered 202 and counted once;
- a page turn whose body came 0.2 s after its head, its hub dying unanswered: retried on the other
  hub (answered 200), because the shipped file makes a PUT wait for its body (`wait-for-body`);
- PostgreSQL restarted under the two hubs left, the followers still connected: each hub says in
  its log that it lost and re-established its LISTEN connections, and the next page turn reaches
  every follower.

The figures (seconds from the kill until each follower was on the new page) are printed, and
written down in docs/measurements.md and docs/venue-operator.md.
"""
import asyncio
import contextlib
import json
import os
import re
import resource
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import unittest
import urllib.parse

from test_limits import call  # one request from a given 127.x address
from haproxy_config import SHIPPED_CONFIG, render_haproxy_config
from relay import AnswerLostAfterCounting
from hubtest import Beacon, Hub, b64, create_project, free_port, pdf_deck, phone_id, poll, upload_deck

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "bench"))
from present_load import read_head, sse_events  # noqa: E402

REPO = os.path.join(HERE, "..", "..")
POSTGRES_TOOL = os.path.join(REPO, "tools", "setup", "postgres-test-server")
HAPROXY = shutil.which("haproxy") or "/usr/sbin/haproxy"

FOLLOWERS = 300
RECONNECT_SECONDS = 3.0   # EventSource's reconnection time in Chromium, which the hub does not change
BACK_WITHIN_SECONDS = 10.0
PHONE_ADDRESS, OTHER_ADDRESS = "127.0.0.2", "127.0.0.3"


def postgres_server(command: str, folder: str) -> str:
    result = subprocess.run([POSTGRES_TOOL, command, folder], capture_output=True, text=True, timeout=180)
    if result.returncode != 0:
        raise AssertionError(f"tools/setup/postgres-test-server {command} failed: {result.stderr}")
    return result.stdout.strip()


class HAProxy:
    """haproxy in the foreground (-db) on the rendered configuration."""

    def __init__(self, hub_ports, folder: str):
        self.port = free_port()
        self.socket = os.path.join(folder, "haproxy.sock")
        self.config = os.path.join(folder, "haproxy.cfg")
        with open(SHIPPED_CONFIG) as f:
            # Two descriptors a connection: HAProxy refuses to start with a maxconn its descriptor
            # limit cannot hold and may not raise (a container's hard limit).
            soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
            rendered = render_haproxy_config(f.read(), self.port, hub_ports, self.socket, maxconn=min(40000, hard // 2 - 100))
        with open(self.config, "w") as f:
            f.write(rendered)
        self.log = open(os.path.join(folder, "haproxy.log"), "w+")
        check = subprocess.run([HAPROXY, "-c", "-f", self.config], capture_output=True, text=True)
        assert check.returncode == 0, f"haproxy -c refused the rendered configuration:\n{check.stdout}{check.stderr}"
        self.process = subprocess.Popen([HAPROXY, "-db", "-f", self.config], stdout=self.log, stderr=subprocess.STDOUT)
        states = poll(self.server_states, lambda s: len(s) == len(hub_ports) and all(v == "UP" for v in s.values()), timeout=20)
        assert all(v == "UP" for v in states.values()) and states, f"HAProxy's hubs: {states}\n{self.output()}"

    def command(self, line: str) -> str:
        try:
            with socket.socket(socket.AF_UNIX) as connection:
                connection.connect(self.socket)
                connection.sendall(line.encode() + b"\n")
                answer = b""
                while chunk := connection.recv(65536):
                    answer += chunk
                return answer.decode()
        except OSError:
            return ""

    def server_states(self) -> dict:
        """{"hub1": "UP" | "DOWN" | ...} from `show stat`."""
        lines = self.command("show stat").splitlines()
        if not lines:
            return {}
        header = lines[0].lstrip("# ").split(",")
        states = {}
        for row in lines[1:]:
            fields = dict(zip(header, row.split(",")))
            if fields.get("pxname") == "hubs" and fields.get("svname", "").startswith("hub"):
                states[fields["svname"]] = fields["status"].split()[0]
        return states

    def output(self) -> str:
        self.log.flush()
        with open(self.log.name) as f:
            return f.read()

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


class Frontend(Hub):
    """Hub's request helpers, sent to HAProxy's port instead of a hub's."""

    def __init__(self, port: int):
        self.port, self.tls = port, None


class Followers:
    """Phones following a show through HAProxy, on one asyncio loop on a thread of its own: each
    records the first time it saw each page, and reconnects as EventSource does."""

    def __init__(self, port: int, path: str, count: int):
        self.port, self.path, self.count = port, path, count
        self.seen = [dict() for _ in range(count)]   # follower -> {page: monotonic time first seen}
        self.page = [None] * count
        self.reconnections = [0] * count
        self.refusals = []   # (follower, status): an EventSource would have given up
        self.loop = asyncio.new_event_loop()
        self.tasks = []
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        for index in range(count):
            self.tasks.append(asyncio.run_coroutine_threadsafe(self.follow(index), self.loop))

    async def follow(self, index: int):
        while True:
            writer = None
            try:
                reader, writer = await asyncio.open_connection("127.0.0.1", self.port, local_addr=(PHONE_ADDRESS, 0), limit=1 << 20)
                writer.write(f"GET {self.path} HTTP/1.1\r\nHost: venue.example\r\nAccept: text/event-stream\r\n\r\n".encode())
                await writer.drain()
                status, headers = await read_head(reader)
                if status != 200:
                    self.refusals.append((index, status))
                    return
                async for arrived, _, name, data in sse_events(reader, headers):
                    if name == "show":
                        page = json.loads(data)["page"]
                        self.page[index] = page
                        self.seen[index].setdefault(page, arrived)
            except (ConnectionError, OSError, ValueError, asyncio.IncompleteReadError):
                pass
            finally:
                if writer is not None:
                    writer.close()
            self.reconnections[index] += 1
            await asyncio.sleep(RECONNECT_SECONDS)

    def on_page(self, page: int) -> int:
        return sum(1 for seen in self.seen if page in seen)

    def wait_for(self, page: int, timeout: float) -> int:
        return poll(lambda: self.on_page(page), lambda n: n == self.count or self.refusals, timeout=timeout, every=0.1)

    def stop(self):
        async def cancel_all():
            for task in asyncio.all_tasks() - {asyncio.current_task()}:
                task.cancel()
            await asyncio.sleep(0.1)
        asyncio.run_coroutine_threadsafe(cancel_all(), self.loop).result(timeout=10)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout=10)


def closed_by_peer(connection: socket.socket) -> bool:
    connection.settimeout(0.2)
    try:
        return connection.recv(1) == b""
    except socket.timeout:
        return False
    except ConnectionError:
        return True


class HubsBehindHAProxy(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not os.path.exists(HAPROXY):
            raise unittest.SkipTest("haproxy is not installed (tools/setup/install-deps installs it)")
        cls.folder = tempfile.mkdtemp(prefix="nearcast-balancer-")
        # /tmp itself for the cluster: it belongs to the postgres user when the test runs as root.
        cls.postgres_folder = os.path.join(tempfile.gettempdir(), f"nearcast-balancer-pg-{os.getpid()}-{time.monotonic_ns()}")
        cls.url = postgres_server("start", cls.postgres_folder)
        cls.hubs, cls.haproxy = [], None
        try:
            cls.keys = create_project(cls.url, "venue")
            config = os.path.join(cls.folder, "hub.json5")
            # The venue's keyless budget per address: 30 at once and 6 a second, of which each of
            # the three hubs allows a third (10 and 2: HAProxy's checks, one a second per hub from
            # 127.0.0.1, stay inside it).
            with open(config, "w") as f:
                f.write("""{ trustedProxies: ["127.0.0.1"],
                            limits: { requestsPerSecondPerAddress: 6, burstPerAddress: 30, connectionsPerAddress: 50,
                                      phoneIdWorkBits: 0 } }\n""")
            cls.hubs = [Hub(cls.url, extra=("--config", config)) for _ in range(3)]
            # Each allows its third once it has counted the others (a heartbeat, within 2 s).
            for hub in cls.hubs:
                poll(lambda: hub.get("/healthz")[1].get("instances"), lambda n: n == "3", timeout=15)
            cls.haproxy = HAProxy([hub.port for hub in cls.hubs], cls.folder)
        except BaseException:
            cls.tearDownClass()
            raise
        cls.frontend = Frontend(cls.haproxy.port)

    @classmethod
    def tearDownClass(cls):
        if cls.haproxy is not None:
            cls.haproxy.stop()
        for hub in cls.hubs:
            hub.stop()
        subprocess.run([POSTGRES_TOOL, "stop", cls.postgres_folder], capture_output=True, timeout=180)
        shutil.rmtree(cls.folder, ignore_errors=True)

    def tearDown(self):
        if self._outcome.success is False:
            for number, hub in enumerate(self.hubs, 1):
                print(f"--- hub{number} ---\n{hub.stderr()[-4000:]}")
            print(f"--- haproxy ---\n{self.haproxy.output()[-4000:]}")

    def test_a_per_address_limit_applies_to_each_phones_address_through_haproxy_and_only_there(self):
        def health(source, target=None, forwarded=None):
            headers = {"X-Forwarded-For": forwarded} if forwarded else {}
            return call(target or self.frontend, "GET", "/healthz", source=source, headers=headers).status

        # One phone floods (keyless: the venue's 30 at once and 6 a second, a third on each hub), its own
        # X-Forwarded-For made up anew each time: HAProxy appends the address it saw, and the
        # hubs stop there.
        started = time.monotonic()
        flood = [health(PHONE_ADDRESS, forwarded=f"198.51.100.{n % 250}") for n in range(60)]
        elapsed = time.monotonic() - started
        self.assertIn(429, flood)
        self.assertLessEqual(flood.count(200), 30 + 6 * elapsed + 3, (elapsed, flood))
        self.assertEqual(set(flood), {200, 429}, flood)
        # The other phone behind the same HAProxy has its own budget, whole.
        self.assertEqual([health(OTHER_ADDRESS) for _ in range(6)], [200] * 6)
        # HAProxy's own checks (from 127.0.0.1, keyless, every second) never spent either: every hub is up.
        self.assertEqual(set(self.haproxy.server_states().values()), {"UP"})

        # Straight to a hub, not through HAProxy: 127.0.0.3 is not a trusted proxy, so the
        # address its forged header names is not charged, 127.0.0.3 is: the rest of its ten at
        # once on this hub, then refusals, however each request is dressed.
        hub = self.hubs[2]
        forged = [health(OTHER_ADDRESS, hub, forwarded=f"203.0.113.{n}") for n in range(14)]
        self.assertEqual(forged[-2:], [429, 429], forged)
        self.assertLessEqual(forged.count(200), 12, forged)
        # And a forged header naming a fresh address through HAProxy buys no new budget either.
        spent = [health(OTHER_ADDRESS, forwarded=f"203.0.113.{n}") for n in range(45)]
        self.assertIn(429, spent)

        # A client's own connections are still capped per address (50 here); HAProxy's are not
        # (test_b holds about 100 streams per hub through it).
        sockets = []
        try:
            for _ in range(60):
                connection = socket.create_connection(("127.0.0.1", hub.port), source_address=(PHONE_ADDRESS, 0))
                sockets.append(connection)
            time.sleep(0.5)
            closed = sum(1 for connection in sockets if closed_by_peer(connection))
            self.assertGreaterEqual(closed, 10, "the connections past 50 from one client address are closed at once")
        finally:
            for connection in sockets:
                connection.close()

    def test_b_followers_are_back_on_the_current_page_after_a_hub_is_killed_and_after_postgres_restarts(self):
        secret, public = self.keys["secretKey"], self.keys["apiKey"]
        first = self.hubs[0]
        beacon = Beacon(first.service_public_key(), exponent=7)
        status, body = first.post("/v1beta1/beacons:register", beacon.registration("balancer"), key=secret)
        self.assertEqual(status, 200, body)
        status, deck = upload_deck(first.port, secret, pdf_deck(5))
        self.assertEqual(status, 201, deck)
        beacon_id = beacon.name()[len("beacons/"):]
        token = first.watch_token(public, beacon.observation())

        def turn(page):
            status, body = self.frontend.request("PUT", f"/v1/shows/{beacon_id}", {"deck": deck["deck"], "page": page}, key=secret)
            self.assertEqual(status, 200, body)
        turn(1)

        query = urllib.parse.urlencode({"key": public, "token": token})
        followers = Followers(self.haproxy.port, f"/v1/shows/{beacon_id}/events?{query}", FOLLOWERS)
        reacting = threading.Event()
        try:
            self.assertEqual(followers.wait_for(1, timeout=30), FOLLOWERS, followers.refusals)
            # Spread over the three hubs (roundrobin), each holding more than a client address may.
            per_hub = [int(re.search(r'nearcast_hub_open_connections (\d+)', hub.get("/metrics")[1]).group(1)) for hub in self.hubs]
            self.assertTrue(all(n > 50 for n in per_hub), per_hub)
            turn(2)
            self.assertEqual(followers.wait_for(2, timeout=10), FOLLOWERS)

            # Phones reacting through HAProxy while the hub dies: each 202 must be counted.
            observed = {"type": "EDDYSTONE_EID", "id": b64(beacon.eid())}
            phones = [phone_id(self.frontend, public, observed)[1] for _ in range(8)]
            accepted = []

            def react():
                while not reacting.is_set():
                    for phone in phones:
                        body = {"observed": {"type": "EDDYSTONE_EID", "id": b64(beacon.eid())}, "reaction": "👏", "phone": phone}
                        accepted.append(call(self.frontend, "POST", "/v1/reactions", body, key=public, source=OTHER_ADDRESS).status)
                    time.sleep(0.25)
            reactor = threading.Thread(target=react, daemon=True)
            reactor.start()
            time.sleep(1)

            victim = self.hubs[1]
            victim.process.send_signal(signal.SIGKILL)
            killed = time.monotonic()
            turn(3)
            turned = time.monotonic() - killed
            back = followers.wait_for(3, timeout=BACK_WITHIN_SECONDS + 5)
            time.sleep(1)
            reacting.set()
            reactor.join(timeout=30)
            delays = sorted(seen[3] - killed for seen in followers.seen if 3 in seen)
            print(f"\n  hub2 killed: page 3 turned through HAProxy {turned:.2f} s later; {back} of {FOLLOWERS} followers on it, "
                  f"{sum(1 for r in followers.reconnections if r)} reconnected; seconds from the kill: "
                  f"p50 {delays[len(delays) // 2]:.2f}, max {delays[-1]:.2f}; HAProxy says {self.haproxy.server_states()}")
            self.assertEqual(followers.refusals, [], "an EventSource that got an error status would have stopped following")
            self.assertEqual(back, FOLLOWERS)
            self.assertLessEqual(delays[-1], BACK_WITHIN_SECONDS)

            answered = accepted.count(202)
            self.assertGreater(answered, 20, accepted)
            shown = poll(lambda: self.frontend.request("GET", f"/v1/shows/{beacon_id}", key=secret)[1],
                         lambda show: sum(show.get("counts", {}).values()) >= answered, timeout=5)
            unanswered = accepted.count(502)
            print(f"  reactions: {answered} answered 202 ({len(accepted) - answered} other answers: {sorted(set(accepted))}), "
                  f"{sum(shown['counts'].values())} counted")
            # A reaction is answered 202 once its batch is written (ReactionDesk.counted), so none
            # the killed hub acknowledged is lost. One the killed hub took and never answered is a
            # 502 (HAProxy does not send a POST without a tap's key to another hub: test_c), counted
            # at most once.
            self.assertEqual(set(accepted) - {202, 502}, set(), accepted)
            self.assertGreaterEqual(sum(shown["counts"].values()), answered)
            self.assertLessEqual(sum(shown["counts"].values()), answered + unanswered)

            # PostgreSQL restarted under the two hubs left, the followers connected.
            survivors = [hub for hub in self.hubs if hub is not victim]
            logged_before = [len(hub.stderr()) for hub in survivors]
            postgres_server("pause", self.postgres_folder)
            time.sleep(1)
            postgres_server("resume", self.postgres_folder)
            restarted = time.monotonic()
            status = poll(lambda: self.frontend.request("PUT", f"/v1/shows/{beacon_id}", {"deck": deck["deck"], "page": 4}, key=secret)[0],
                          lambda s: s == 200, timeout=30)
            self.assertEqual(status, 200)
            back = followers.wait_for(4, timeout=15)
            print(f"  PostgreSQL restarted: page 4 reached {back} of {FOLLOWERS} followers "
                  f"{max(seen[4] for seen in followers.seen if 4 in seen) - restarted:.2f} s after the server was back")
            self.assertEqual(back, FOLLOWERS)
            for hub, before in zip(survivors, logged_before):
                log = hub.stderr()[before:]
                self.assertIn("LISTEN connection on", log)
                self.assertRegex(log, r"listening for changes on PostgreSQL channel")
        finally:
            reacting.set()
            followers.stop()


    def test_c_a_reaction_counted_by_a_hub_that_dies_before_answering_is_counted_once(self):
        """HAProxy's `retry-on empty-response` sends a request whose hub closed without answering
        to another hub. A reaction without a key has no replay protection, so one the dying hub
        had already counted would be counted again there and answered 202: the shipped file keeps
        such POSTs out of those retries (`disable-l7-retry`). The phone is told 502 and the
        reaction counts once. A reaction with its tap's key (`Idempotency-Key`, as the listener
        page sends every tap) is retried on the other hub, which finds its receipt: answered 202,
        counted once. Every other reaction is answered 202 and counted once."""
        secret, public = self.keys["secretKey"], self.keys["apiKey"]
        with self.one_hub_dying_unanswered(b"POST /v1/reactions ", "retries") as (relay, entry, beacon, deck):
            beacon_id = beacon.name()[len("beacons/"):]
            status, body = entry.request("PUT", f"/v1/shows/{beacon_id}", {"deck": deck["deck"], "page": 1}, key=secret)
            self.assertEqual(status, 200, body)
            observed = {"type": "EDDYSTONE_EID", "id": b64(beacon.eid())}
            phones = [phone_id(entry, public, observed)[1] for _ in range(6)]

            def counted_after(sent):
                return poll(lambda: sum(entry.request("GET", f"/v1/shows/{beacon_id}", key=secret)[1].get("counts", {}).values()),
                            lambda n: n >= sent, timeout=5)

            def send_all(keyed):
                relay.armed.set()
                answers = []
                for number, phone in enumerate(phones):   # roundrobin over the two: the relay's hub gets every other one
                    body = {"observed": observed, "reaction": "👏", "phone": phone}
                    headers = {"Idempotency-Key": f'"tap-{number}"'} if keyed else {}
                    answers.append(call(entry, "POST", "/v1/reactions", body, key=public, source=OTHER_ADDRESS, headers=headers).status)
                return answers

            answers = send_all(keyed=False)
            self.assertEqual(len(relay.dropped), 1, "a reaction reached the hub behind the relay")
            self.assertTrue(relay.dropped[0].startswith("HTTP/1.1 202"), relay.dropped)
            counted = counted_after(len(phones))
            print(f"\n  a hub that counted a reaction and died before answering: answers {answers}, {counted} counted of {len(phones)} sent")
            self.assertEqual(counted, len(phones), "each reaction sent is counted once, the unanswered one too")
            self.assertEqual(sorted(answers), [202] * (len(phones) - 1) + [502], "the unanswered one is a 502, not retried elsewhere")

            answers = send_all(keyed=True)
            self.assertEqual(len(relay.dropped), 2, "a keyed reaction reached the hub behind the relay")
            self.assertTrue(relay.dropped[1].startswith("HTTP/1.1 202"), relay.dropped)
            counted = counted_after(2 * len(phones)) - len(phones)
            print(f"  the same with each tap's key: answers {answers}, {counted} counted of {len(phones)} sent")
            self.assertEqual(answers, [202] * len(phones), "the keyed tap the dead hub counted is retried on the other hub and answered 202")
            time.sleep(0.5)   # a second count of it would be written within a batch (150 ms)
            self.assertEqual(counted_after(2 * len(phones)) - len(phones), len(phones), "each keyed tap counted once")

    def test_d_a_page_turn_whose_body_came_after_its_head_is_retried_when_its_hub_dies_unanswered(self):
        """A page turn (PUT) is safe to send again, and HAProxy does send it to another hub when
        its hub closed without answering, but only if it had the whole request before sending it:
        a client that sends the body after the head (Python's http.client does; a browser may)
        would be told 502 had the shipped file not made a PUT wait for its body
        (`wait-for-body`). Here the body comes 0.2 s after the head."""
        secret = self.keys["secretKey"]
        with self.one_hub_dying_unanswered(b"PUT /v1/shows/", "turns") as (relay, entry, beacon, deck):
            path = f"/v1/shows/{beacon.name()[len('beacons/'):]}"
            answers = []
            relay.armed.set()
            for page in (1, 2):   # roundrobin over the two: one of the two reaches the relay's hub
                answers.append(body_after_head(entry.port, "PUT", path, {"deck": deck["deck"], "page": page}, secret))
            self.assertEqual(len(relay.dropped), 1, "a page turn reached the hub behind the relay")
            self.assertTrue(relay.dropped[0].startswith("HTTP/1.1 200"), relay.dropped)
            print(f"\n  page turns whose body came 0.2 s after the head, one hub dying unanswered: answers {answers}")
            self.assertEqual(answers, [200, 200], "the turn whose answer was lost is sent to the other hub")
            self.assertEqual(entry.request("GET", path, key=secret)[1]["page"], 2)

    @contextlib.contextmanager
    def one_hub_dying_unanswered(self, taking: bytes, name: str):
        """A HAProxy of its own (the shipped file) in front of two live hubs, the first behind an
        `AnswerLostAfterCounting` relay losing the answer to a request starting with `taking`
        once armed; a beacon registered as `name` and a two-page deck uploaded. Yields (relay,
        HAProxy's Frontend, the beacon, the deck's JSON)."""
        alive = [hub for hub in self.hubs if hub.process.poll() is None][:2]   # test_b killed one
        relay = AnswerLostAfterCounting(alive[0].port, taking=taking)
        haproxy = HAProxy([relay.port, alive[1].port], tempfile.mkdtemp(prefix="haproxy-", dir=self.folder))
        try:
            secret = self.keys["secretKey"]
            beacon = Beacon(alive[0].service_public_key(), exponent=7)
            status, body = alive[0].post("/v1beta1/beacons:register", beacon.registration(name), key=secret)
            self.assertEqual(status, 200, body)
            status, deck = upload_deck(alive[0].port, secret, pdf_deck(2))
            self.assertEqual(status, 201, deck)
            yield relay, Frontend(haproxy.port), beacon, deck
        finally:
            haproxy.stop()
            relay.close()


def body_after_head(port: int, method: str, path: str, body, key: str, pause: float = 0.2) -> int:
    """The status of one request sent as two writes `pause` apart: the head, then the JSON body."""
    data = json.dumps(body).encode()
    head = (f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Api-Key: {key}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(data)}\r\nConnection: close\r\n\r\n").encode()
    with socket.create_connection(("127.0.0.1", port), timeout=30) as connection:
        connection.sendall(head)
        time.sleep(pause)
        connection.sendall(data)
        status_line = AnswerLostAfterCounting.read_until(connection, b"\r\n").split(b"\r\n")[0]
    return int(status_line.split()[1])


if __name__ == "__main__":
    unittest.main()
