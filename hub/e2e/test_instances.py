"""Two nearcast-hub instances on one PostgreSQL, as behind a load balancer: no state outside the
database, so what is written through one is read, resolved and watched through the other."""
import time
import unittest

from hubtest import Beacon, Database, Hub, b64, create_project, heard, unb64


class TwoInstancesOnOnePostgres(unittest.TestCase):
    def setUp(self):
        self.database = Database("postgres")
        self.keys = create_project(self.database.url, "demo")
        self.first = Hub(self.database.url)
        self.second = Hub(self.database.url)

    def tearDown(self):
        for hub in (self.first, self.second):
            hub.stop()
            if self._outcome.success is False:
                print(hub.stderr())
        self.database.drop()

    def test_both_share_one_service_key(self):
        self.assertEqual(self.first.service_public_key(), self.second.service_public_key())

    def test_a_beacon_registered_through_one_resolves_through_the_other_until_deleted(self):
        beacon = Beacon(self.first.service_public_key())
        status, body = self.first.post("/v1beta1/beacons:register", beacon.registration(), key=self.keys["secretKey"])
        self.assertEqual(status, 200, body)
        self.first.post(f"/v1beta1/{beacon.name()}/attachments", {"namespacedType": "demo/event", "data": b64(b"42")},
                        key=self.keys["secretKey"])
        query = {"observations": [beacon.observation()], "namespacedTypes": ["*"]}
        status, found = self.second.post("/v1beta1/beaconinfo:getforobserved", query, key=self.keys["apiKey"])
        self.assertEqual(status, 200, found)
        self.assertEqual([b["beaconName"] for b in found["beacons"]], [beacon.name()])
        self.assertEqual(unb64(found["beacons"][0]["attachments"][0]["data"]), b"42")
        # A re-anchored clock (a heartbeat through the second) moves the window on the first too.
        later = beacon.clock + 3 * 3600
        self.second.post(f"/v1beta1/{beacon.name()}/heartbeat", {"clockValue": later}, key=self.keys["secretKey"])
        status, found = self.first.post("/v1beta1/beaconinfo:getforobserved",
                                        {"observations": [beacon.observation(at=later)]}, key=self.keys["apiKey"])
        self.assertEqual([b["beaconName"] for b in found["beacons"]], [beacon.name()])
        # Deleted through the second: the first stops resolving it once PostgreSQL's NOTIFY has
        # reached it (a few milliseconds; on a loaded machine more: asked again until then).
        self.assertEqual(self.second.delete(f"/v1beta1/{beacon.name()}", key=self.keys["secretKey"])[0], 200)
        deleted = time.monotonic()
        while True:
            status, found = self.first.post("/v1beta1/beaconinfo:getforobserved",
                                            {"observations": [beacon.observation(at=later)]}, key=self.keys["apiKey"])
            if found == {"beacons": []} or time.monotonic() - deleted > 5:
                break
            time.sleep(0.05)
        print(f"\n  deleted through the second instance: the first stopped resolving it after {time.monotonic() - deleted:.3f} s")
        self.assertEqual(found, {"beacons": []})

    def test_a_watch_on_one_sees_a_change_made_through_the_other_within_a_second(self):
        name = "beacons/3!0a0b0c0d"
        status, body = self.first.post("/v1beta1/beacons:register",
                                       {"advertisedId": {"type": "EDDYSTONE", "id": b64(bytes.fromhex("0a0b0c0d"))}},
                                       key=self.keys["secretKey"])
        self.assertEqual(status, 200, body)
        # The token from resolving through the first instance opens the watch on the second: it is
        # signed with the service key, which both share.
        token = self.first.watch_token(self.keys["apiKey"], heard(name))
        watch = self.second.watch(name, self.keys["apiKey"], namespaced_type="demo/slide", token=token)
        try:
            self.assertEqual(watch.status, 200)
            self.assertEqual(watch.next(), ("attachments", {"attachments": []}))
            for slide in range(1, 4):
                started = time.monotonic()
                self.first.post(f"/v1beta1/{name}/attachments", {"namespacedType": "demo/slide", "data": b64(b"slide %d" % slide)},
                                key=self.keys["secretKey"])
                event, data = watch.next(timeout=5)
                self.assertLess(time.monotonic() - started, 1.0)
                self.assertEqual(event, "attachments")
                self.assertEqual(unb64(data["attachments"][-1]["data"]), b"slide %d" % slide)
            # A change of a type the watch does not follow signals, but its list is the same: nothing
            # is sent (a watcher gets an event when what it follows changes) until the next slide.
            self.first.post(f"/v1beta1/{name}/attachments", {"namespacedType": "demo/event", "data": b64(b"e")},
                            key=self.keys["secretKey"])
            with self.assertRaises(AssertionError):
                watch.next(timeout=2)
            self.first.post(f"/v1beta1/{name}/attachments", {"namespacedType": "demo/slide", "data": b64(b"slide 4")},
                            key=self.keys["secretKey"])
            event, data = watch.next(timeout=5)
            self.assertEqual((event, len(data["attachments"])), ("attachments", 4))
        finally:
            watch.close()


if __name__ == "__main__":
    unittest.main()
