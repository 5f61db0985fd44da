"""PostgreSQL stopped under a running hub (a restart, a failover, maintenance), on a private
server of the test's own (tools/setup/postgres-test-server pause/resume): every request that needs the
database is answered 503 UNAVAILABLE in the API's error shape with Retry-After, which clients
retry, not a bare 500; the hub stays up, and once the server is back everything answers again
with nothing stored lost. Resolving too: the API key is checked against the database at most a
second ago (the key cache), so a resolve more than a second into an outage is a 503."""
import os
import subprocess
import tempfile
import time
import unittest

from hubtest import Beacon, Hub, b64, create_project, unb64

TOOL = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools", "setup", "postgres-test-server")


def server(command: str, folder: str) -> str:
    result = subprocess.run([TOOL, command, folder], capture_output=True, text=True, timeout=180)
    if result.returncode != 0:
        raise AssertionError(f"tools/setup/postgres-test-server {command} failed: {result.stderr}")
    return result.stdout.strip()


class DatabaseOutage(unittest.TestCase):
    def setUp(self):
        # /tmp itself (not a private mkdtemp): the cluster belongs to the postgres user when root.
        self.folder = os.path.join(tempfile.gettempdir(), f"nearcast-outage-{os.getpid()}-{time.monotonic_ns()}")
        self.url = server("start", self.folder)
        self.keys = create_project(self.url, "outage")
        self.hub = Hub(self.url)
        self.secret, self.public = self.keys["secretKey"], self.keys["apiKey"]
        self.beacon = Beacon(self.hub.service_public_key())
        status, body = self.hub.post("/v1beta1/beacons:register", self.beacon.registration(), key=self.secret)
        self.assertEqual(status, 200, body)
        status, body = self.hub.post(f"/v1beta1/{self.beacon.name()}/attachments",
                                     {"namespacedType": "outage/slide", "data": b64(b"Slide 1")}, key=self.secret)
        self.assertEqual(status, 200, body)

    def tearDown(self):
        self.hub.stop()
        if self._outcome.success is False:
            print(self.hub.stderr())
        subprocess.run([TOOL, "stop", self.folder], capture_output=True, timeout=180)

    def observe(self):
        return self.hub.post("/v1beta1/beaconinfo:getforobserved",
                             {"observations": [self.beacon.observation()], "namespacedTypes": ["*"]}, key=self.public)

    def assertUnavailable(self, method, path, body=None, key=None):
        status, answer, headers = self.hub.exchange(method, path, body, key=key)
        self.assertEqual(status, 503, f"{method} {path}: {status} {answer!r:.300}")
        error = answer["error"]
        self.assertEqual((error["code"], error["status"]), (503, "UNAVAILABLE"), error)
        self.assertIn("database", error["message"])
        self.assertGreaterEqual(int(headers["retry-after"]), 1)

    def test_requests_during_an_outage_are_503_with_retry_after_and_all_answer_again_after(self):
        status, found = self.observe()
        self.assertEqual(status, 200, found)
        server("pause", self.folder)
        try:
            # What reads or writes the database, with either key.
            self.assertUnavailable("GET", "/v1beta1/beacons", key=self.secret)
            # Resolving needs the database too once the key's check is older than the key
            # cache's second (KeyCache.maximumAgeMs): a 503 like the rest, asked again until
            # then (a resolve within that second is still answered from memory).
            deadline = time.monotonic() + 10
            while self.observe()[0] == 200 and time.monotonic() < deadline:
                time.sleep(0.2)
            self.assertUnavailable("POST", "/v1beta1/beaconinfo:getforobserved",
                                   {"observations": [self.beacon.observation()], "namespacedTypes": ["*"]}, key=self.public)
            self.assertUnavailable("POST", f"/v1beta1/{self.beacon.name()}/attachments",
                                   {"namespacedType": "outage/slide", "data": b64(b"Slide 2")}, key=self.secret)
            self.assertEqual(self.hub.get("/healthz")[0], 503)
            self.assertIsNone(self.hub.process.poll(), "the hub is still running")
            self.assertIn("the database does not answer", self.hub.stderr())
        finally:
            server("resume", self.folder)
        # Back: the pool reconnects by itself (no restart of the hub); what was stored is there.
        deadline = time.monotonic() + 60
        while True:
            status, listed = self.hub.get("/v1beta1/beacons", key=self.secret)
            if status == 200 or time.monotonic() > deadline:
                break
            self.assertEqual(status, 503, listed)
            time.sleep(0.2)
        self.assertEqual(status, 200, listed)
        self.assertEqual([b["beaconName"] for b in listed["beacons"]], [self.beacon.name()])
        status, found = self.observe()
        self.assertEqual(status, 200, found)
        self.assertEqual([b["beaconName"] for b in found["beacons"]], [self.beacon.name()])
        self.assertEqual([unb64(a["data"]) for a in found["beacons"][0]["attachments"]], [b"Slide 1"],
                         "the write refused during the outage did not half-land")
        status, body = self.hub.post(f"/v1beta1/{self.beacon.name()}/attachments",
                                     {"namespacedType": "outage/slide", "data": b64(b"Slide 3")}, key=self.secret)
        self.assertEqual(status, 200, body)
        self.assertEqual(self.hub.get("/healthz")[0], 200)


if __name__ == "__main__":
    unittest.main()
