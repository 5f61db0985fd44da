"""The beacon API through a real nearcast-hub process, on SQLite and on a real PostgreSQL (the
same tests against both: SQLiteAPITests, PostgresAPITests): what only a process shows: keys
rotated on the running hub, concurrent registrations, resolves from memory and the clock window,
watches over real sockets, restarts, /healthz naming the database and the process's metrics.
Each route's answers and refusals, key scopes and projects kept apart, and the operators' page are
hub/Tests' router tests (APIRouterTests, ResolveRouterTests, StatusAndPagesRouterTests), in memory
and in SQLite."""
import base64
import json
import re
import socket
import subprocess
import time
import unittest

from hubtest import HUB, SANITIZED, Beacon, Hub, ProjectOnAHub, b64, heard, unb64


class APITests(ProjectOnAHub):
    # --- helpers ---
    def register_uid(self, uid=b"\x01\x02\x03\x04\x05\x06\x07\x08", key=None, description="stage door"):
        status, body = self.hub.post("/v1beta1/beacons:register",
                                     {"advertisedId": {"type": "EDDYSTONE", "id": b64(uid)}, "description": description},
                                     key=key or self.secret)
        self.assertEqual(status, 200, body)
        return body["beaconName"]

    def register_eid(self, description="a test box", **kwargs):
        beacon = Beacon(self.hub.service_public_key(), **kwargs)
        status, body = self.hub.post("/v1beta1/beacons:register", beacon.registration(description), key=self.secret)
        self.assertEqual(status, 200, body)
        self.assertEqual(body["beaconName"], beacon.name())
        return beacon

    def attach(self, name, text, namespaced_type="demo/slide", key=None):
        status, body = self.hub.post(f"/v1beta1/{name}/attachments",
                                     {"namespacedType": namespaced_type, "data": b64(text.encode())}, key=key or self.secret)
        self.assertEqual(status, 200, body)
        return body

    def metrics(self):
        """/metrics' figures without labels, by name."""
        status, text = self.hub.get("/metrics")
        self.assertEqual(status, 200)
        return {m.group(1): float(m.group(2)) for m in re.finditer(r"^([a-z_]+) (\S+)$", text, re.M)}

    def wait_for_metrics(self, accept, timeout):
        """/metrics' figures once `accept` takes them, or the last ones after `timeout` s."""
        deadline = time.monotonic() + timeout
        while True:
            found = self.metrics()
            if accept(found) or time.monotonic() > deadline:
                return found
            time.sleep(0.1)

    def observe(self, observations, types=("*",), key=None):
        status, body = self.hub.post("/v1beta1/beaconinfo:getforobserved",
                                     {"observations": observations, "namespacedTypes": list(types)}, key=key or self.public)
        self.assertEqual(status, 200, body)
        return body["beacons"]

    def beacons(self):
        status, body = self.hub.get("/v1beta1/beacons", key=self.secret)
        self.assertEqual(status, 200, body)
        return body["beacons"]

    # --- eidparams ---
    def test_eidparams_gives_a_stable_x25519_key(self):
        status, params = self.hub.get("/v1beta1/eidparams")
        self.assertEqual(status, 200)
        self.assertEqual(len(unb64(params["serviceEcdhPublicKey"])), 32)
        self.assertEqual((params["minRotationPeriodExponent"], params["maxRotationPeriodExponent"]), (5, 15))
        self.hub.stop()
        self.hub = Hub(self.database.url)
        self.assertEqual(self.hub.get("/v1beta1/eidparams")[1], params, "the service key survives a restart")

    # --- projects ---
    def test_project_create_prints_keys_and_refuses_duplicates_and_bad_names(self):
        self.assertEqual(set(self.keys), {"project", "apiKey", "secretKey"})
        self.assertEqual(self.keys["project"], "demo")
        again = subprocess.run([HUB, "project", "create", "demo", "--db", self.database.url], capture_output=True, text=True)
        self.assertNotEqual(again.returncode, 0)
        self.assertIn("already exists", again.stderr)
        self.assertEqual(again.stdout, "")
        bad = subprocess.run([HUB, "project", "create", "Demo/x", "--db", self.database.url], capture_output=True, text=True)
        self.assertNotEqual(bad.returncode, 0)
        self.assertIn("lowercase", bad.stderr)
        listed = subprocess.run([HUB, "project", "list", "--db", self.database.url], capture_output=True, text=True, check=True)
        self.assertEqual(listed.stdout.split(), ["demo"])

    # --- beacons ---
    def test_rotated_keys_replace_the_old_ones_on_the_running_hub(self):
        def works(key):
            unknown = {"observations": [{"advertisedId": {"type": "EDDYSTONE", "id": b64(bytes(range(16)))}}]}
            return self.hub.get("/v1beta1/beacons", key=key)[0] == 200 or self.hub.post(
                "/v1beta1/beaconinfo:getforobserved", unknown, key=key)[0] == 200

        def rotate(*only):
            result = subprocess.run([HUB, "project", "rotate-keys", "demo", *only, "--db", self.database.url],
                                    capture_output=True, text=True, check=True)
            return json.loads(result.stdout)

        self.assertTrue(works(self.public) and works(self.secret))
        rotated = rotate("--only", "public")
        self.assertEqual(set(rotated), {"project", "apiKey"}, "only the new public key is shown")
        self.assertTrue(rotated["apiKey"].startswith("ncpub_"))
        # The hub refuses the old key once its one-second key cache has moved on (at once on PostgreSQL).
        deadline = time.monotonic() + 5
        while works(self.public) and time.monotonic() < deadline:
            time.sleep(0.1)
        self.assertFalse(works(self.public), "the old public key is refused")
        self.assertTrue(works(rotated["apiKey"]))
        self.assertTrue(works(self.secret), "the secret key was not rotated")
        both = rotate()
        self.assertEqual(set(both), {"project", "apiKey", "secretKey"})
        # Each old key's cache entry ages on its own clock (the one read last goes last).
        deadline = time.monotonic() + 5
        while (works(self.secret) or works(rotated["apiKey"])) and time.monotonic() < deadline:
            time.sleep(0.1)
        self.assertFalse(works(self.secret))
        self.assertFalse(works(rotated["apiKey"]))
        self.assertEqual(self.hub.get("/v1beta1/beacons", key=both["secretKey"])[0], 200)
        missing = subprocess.run([HUB, "project", "rotate-keys", "nosuch", "--db", self.database.url], capture_output=True, text=True)
        self.assertEqual(missing.returncode, 1)
        self.assertIn("project rotate-keys nosuch:", missing.stderr)
        self.assertEqual(missing.stdout, "")

    def test_concurrent_registrations_of_one_name_give_one_200_and_one_409(self):
        import concurrent.futures
        body = {"advertisedId": {"type": "EDDYSTONE", "id": b64(b"\x0a\x0b")}}
        with concurrent.futures.ThreadPoolExecutor(6) as pool:
            statuses = sorted(pool.map(lambda _: self.hub.post("/v1beta1/beacons:register", body, key=self.secret)[0], range(6)))
        self.assertEqual(statuses, [200] + [409] * 5)

    # --- getforobserved ---
    def test_resolves_are_answered_from_memory_until_something_changes(self):
        uid = self.register_uid()
        self.attach(uid, "door")
        beacon = self.register_eid()
        observations = {"observations": [{"advertisedId": {"type": "EDDYSTONE", "id": b64(b"\x01\x02\x03\x04\x05\x06\x07\x08")}},
                                         {"advertisedId": {"type": "EDDYSTONE_EID", "id": b64(beacon.eid())}}],
                        "namespacedTypes": ["*"]}

        def resolve():
            status, body = self.hub.post("/v1beta1/beaconinfo:getforobserved", observations, key=self.public)
            self.assertEqual(status, 200, body)
            return {b["beaconName"]: [base64.b64decode(a["data"]).decode() for a in b.get("attachments", [])] for b in body["beacons"]}

        def synchronisations():
            status, text = self.hub.get("/metrics")
            self.assertEqual(status, 200)
            return float(re.search(r"^nearcast_hub_directory_synchronisations (\S+)$", text, re.M).group(1))

        self.assertEqual(resolve(), {uid: ["door"], beacon.name(): []})
        # On PostgreSQL the hub hears its own NOTIFYs too, a moment after each commit: each one
        # landing costs one more synchronisation. Once they have landed (three commits: a few
        # rounds at most), 20 resolves in a row read nothing.
        deadline = time.monotonic() + 10
        while True:
            resolve()
            before = synchronisations()
            for _ in range(20):
                resolve()
            after = synchronisations()
            if after == before or time.monotonic() > deadline:
                break
        self.assertEqual(after, before, "nothing changed: no resolve read the database (10 s of rounds of 20 resolves)")
        # A change is seen by the very next resolve (exact, not eventually): one synchronisation.
        self.attach(beacon.name(), "Slide 2")
        self.assertEqual(resolve(), {uid: ["door"], beacon.name(): ["Slide 2"]})
        self.assertEqual(synchronisations(), before + 1)
        status, listed = self.hub.get(f"/v1beta1/{uid}/attachments", key=self.secret)
        self.hub.delete(f"/v1beta1/{listed['attachments'][0]['attachmentName']}", key=self.secret)
        self.assertEqual(resolve(), {uid: [], beacon.name(): ["Slide 2"]})
        self.assertEqual(self.hub.delete(f"/v1beta1/{uid}", key=self.secret)[0], 200)
        self.assertEqual(resolve(), {beacon.name(): ["Slide 2"]})

    def test_an_eid_resolves_after_its_clock_moved_on_and_within_the_window(self):
        beacon = self.register_eid(exponent=10)
        self.attach(beacon.name(), "hello")
        # The box's clock 40 minutes ahead of what the hub expects (drift, or a restart that
        # kept counting): still inside the hour-wide window.
        ahead = beacon.clock + 40 * 60
        [found] = self.observe([beacon.observation(at=ahead)])
        self.assertEqual(found["beaconName"], beacon.name())
        # Hearing it does not move the hub's view of its clock (a phone, or anyone with the
        # public key, must not steer it): only the box's heartbeat does.
        status, record = self.hub.get(f"/v1beta1/{beacon.name()}", key=self.secret)
        self.assertEqual(record["clock"]["clockValue"], beacon.clock, record["clock"])
        status, _ = self.hub.post(f"/v1beta1/{beacon.name()}/heartbeat", {"clockValue": ahead}, key=self.secret)
        self.assertEqual(status, 200)
        status, record = self.hub.get(f"/v1beta1/{beacon.name()}", key=self.secret)
        self.assertEqual(record["clock"]["clockValue"], ahead, record["clock"])
        # So the clock may now go another 40 minutes on and still resolve.
        [again] = self.observe([beacon.observation(at=ahead + 40 * 60)])
        self.assertEqual(again["beaconName"], beacon.name())
        # An EID from before (replayed, or a box whose clock went back) still resolves within the
        # window and moves nothing either.
        before = self.hub.get(f"/v1beta1/{beacon.name()}", key=self.secret)[1]["clock"]
        [earlier] = self.observe([beacon.observation(at=ahead + 40 * 60 - 30 * 60)])
        self.assertEqual(earlier["beaconName"], beacon.name())
        self.assertEqual(self.hub.get(f"/v1beta1/{beacon.name()}", key=self.secret)[1]["clock"], before)
        # Two hours beyond the window: not recognised (re-register with a fresh clock).
        self.assertEqual(self.observe([beacon.observation(at=ahead + 4 * 3600)]), [])

    # --- heartbeat ---
    def test_a_heartbeat_is_kept_and_re_anchors_the_clock(self):
        beacon = self.register_eid()
        status, _ = self.hub.post(f"/v1beta1/{beacon.name()}/heartbeat",
                                  {"clockValue": beacon.clock + 7200, "status": "broadcasting",
                                   "problems": ["bluetooth-power"], "version": "1.2.3"}, key=self.secret)
        self.assertEqual(status, 200)
        [listed] = self.beacons()
        self.assertEqual(listed["heartbeat"], {"clockValue": beacon.clock + 7200, "status": "broadcasting",
                                               "problems": ["bluetooth-power"], "version": "1.2.3"})
        self.assertIn("lastHeartbeatTime", listed)
        self.assertEqual(listed["clock"]["clockValue"], beacon.clock + 7200)
        # Two hours on from registration, which the window alone would not have covered.
        [found] = self.observe([beacon.observation(at=beacon.clock + 7200)])
        self.assertEqual(found["beaconName"], beacon.name())

    # --- watch ---
    def test_watchers_that_never_read_cost_the_hub_one_pending_state_not_every_change(self):
        name = self.register_uid()
        self.attach(name, "x" * (100 * 1024))   # every event then carries ~137 KB of base64

        rss_kib = self.hub.rss_kib
        # The public key watches a beacon only with the token from resolving what was heard.
        token = self.hub.watch_token(self.public, heard(name))
        before = rss_kib()
        stalled = []
        for _ in range(20):
            s = socket.socket()
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            s.connect(("127.0.0.1", self.hub.port))
            s.sendall(f"GET /v1beta1/{name}/attachments:watch?key={self.public}&token={token} HTTP/1.1\r\nHost: hub\r\n\r\n".encode())
            stalled.append(s)   # never read
        reading = None
        try:
            # Every watch open, its first state read (the hub counts a watch once it has that).
            counted = self.wait_for_metrics(lambda m: m.get("nearcast_hub_watches") == 20, 20)
            self.assertEqual(counted.get("nearcast_hub_watches"), 20, f"20 watches open: {counted}")
            # One watcher that reads: once it has the last change, the hub has dealt with every
            # change for every watcher.
            reading = self.hub.watch(name, self.public, token=token)
            self.assertEqual(reading.next(10)[0], "attachments")
            # More than the kernel's send buffer holds (up to 4 MB a socket on loopback), so what
            # is not sent stays in the hub; the changes apart (deliberately: not a
            # synchronisation), so a pushing hub would read and queue each one for each watcher.
            for index in range(60):
                self.attach(name, f"slide {index}")
                time.sleep(0.1)
            reading.until("attachments", lambda data: len(data["attachments"]) == 61, timeout=30)
            grown_mib = (rss_kib() - before) / 1024
            # Pushing every change to each of them would queue 20 x (60 x 137 KB - 4 MB) = 84 MB
            # in the hub; pulled, each holds at most the one event being written.
            if not SANITIZED:   # a sanitized build's allocator keeps what is freed
                self.assertLess(grown_mib, 40, f"the hub grew {grown_mib:.0f} MiB for 20 stalled watchers")
            # A watcher that does read gets the newest state, and the hub still answers.
            watch = self.hub.watch(name, self.public, token=token)
            event, data = watch.next(10)
            self.assertEqual(event, "attachments")
            self.assertEqual(len(data["attachments"]), 61)
            watch.close()
        finally:
            if reading is not None:
                reading.close()
            for s in stalled:
                s.close()
        print(f"\n  20 stalled watchers and 60 changes of a 137 KB list: the hub grew {grown_mib:.1f} MiB")

    def test_a_watch_sees_changes_within_a_second(self):
        name = self.register_uid()
        self.attach(name, "slide 1")
        watch = self.hub.watch(name, self.public, token=self.hub.watch_token(self.public, heard(name)))
        try:
            self.assertEqual(watch.status, 200)
            event, first = watch.next()
            self.assertEqual(event, "attachments")
            self.assertEqual([unb64(a["data"]) for a in first["attachments"]], [b"slide 1"])
            started = time.monotonic()
            self.attach(name, "slide 2")
            event, second = watch.next(timeout=5)
            self.assertLess(time.monotonic() - started, 1.0, "a follower sees the change within a second")
            self.assertEqual([unb64(a["data"]) for a in second["attachments"]], [b"slide 1", b"slide 2"])
            self.hub.delete(f"/v1beta1/{name}", key=self.secret)
            self.assertEqual(watch.next()[0], "deleted")
        finally:
            watch.close()
        # (An unknown beacon's watch is ResolveRouterTests'; with the public key it is a 403, there
        # being no token for it: test_watch_grant.py.)
        self.assertEqual(self.hub.watch(name, "ncpub_wrong").status, 403)
        # An open watch does not hold up a graceful stop (SIGTERM).
        self.register_uid(uid=b"\x05")
        open_watch = self.hub.watch("beacons/3!05", self.public, token=self.hub.watch_token(self.public, heard("beacons/3!05")))
        self.assertEqual(open_watch.next()[0], "attachments")
        started = time.monotonic()
        self.hub.process.terminate()
        self.assertEqual(self.hub.process.wait(timeout=15), 0)
        self.assertLess(time.monotonic() - started, 10)
        open_watch.close()

    # --- the rest ---
    def test_everything_survives_a_restart(self):
        beacon = self.register_eid()
        self.attach(beacon.name(), "kept")
        self.hub.stop()
        self.hub = Hub(self.database.url)
        [found] = self.observe([beacon.observation()])
        self.assertEqual([unb64(a["data"]) for a in found["attachments"]], [b"kept"])

    def test_health_names_the_database_and_metrics_count_what_the_process_did(self):
        # The operators' page and the routes' shapes are StatusAndPagesRouterTests'.
        status, health = self.hub.get("/healthz")
        self.assertEqual((status, health["status"], health["database"]), (200, "ok", self.database_kind))
        beacon = self.register_eid()
        self.observe([beacon.observation()])
        status, metrics = self.hub.get("/metrics")
        self.assertEqual(status, 200)
        self.assertIn("nearcast_hub_observations_resolved_total 1", metrics)
        self.assertRegex(metrics, r"nearcast_hub_eid_table_entries \d+")


class SQLiteAPITests(APITests, unittest.TestCase):
    database_kind = "sqlite"


class PostgresAPITests(APITests, unittest.TestCase):
    database_kind = "postgres"


if __name__ == "__main__":
    unittest.main()
