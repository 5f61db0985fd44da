"""Field check results (POST/GET /v1beta1/fieldchecks) through real HTTP on a real PostgreSQL:
what only PostgreSQL and a process show. A result is stored and read back field for field by
PostgreSQL's SQL, and the row holds nothing identifying (read from the database, with a real
User-Agent sent); the cap's OFFSET keeps the newest of each project, and the rate per project,
set in the hub's JSON5 config file, is a 429 counted on /metrics. The routes' contract (every bad
field a 400 naming it, key scopes, a box of another project) is hub/Tests' FieldCheckRouterTests,
in memory and in SQLite; the operators' page's table of results is driven in Chromium by
test_status_page.py."""
import json
import os
import sqlite3
import time
import unittest

from hubtest import Hub, ProjectOnAHub, b64, create_project, psql

PATH = "/v1beta1/fieldchecks"
DOOR_UID = bytes.fromhex("0a1b2c3d")
DOOR = "beacons/3!0a1b2c3d"


def result(**changes) -> dict:
    """A result as the check page sends it: a sweep of three tones, both bands measured."""
    body = {"beaconName": DOOR, "platform": "Android 14", "browser": "Chrome 131", "sampleRate": 48000,
            "tones": [{"hz": 12000, "levelDb": -61.2, "snrDb": 31.5}, {"hz": 16000, "levelDb": -64.0, "snrDb": 24.25},
                      {"hz": 19500, "levelDb": -80.5, "snrDb": 8.0}],
            "bands": [{"band": "high", "snrDb": 12.3, "decoded": True}, {"band": "low", "snrDb": 25.0, "decoded": True}],
            "verdict": "both"}
    body.update(changes)
    return body


class FieldCheckTests(ProjectOnAHub):
    def setUp(self):
        super().setUp()
        self.register(self.secret, DOOR_UID, "Main hall")

    def register(self, secret, uid, description):
        status, body = self.hub.post("/v1beta1/beacons:register",
                                     {"advertisedId": {"type": "EDDYSTONE", "id": b64(uid)}, "description": description}, key=secret)
        self.assertEqual(status, 200, body)
        return body["beaconName"]

    def listed(self, hub=None, query=""):
        status, body = (hub or self.hub).get(PATH + query, key=self.secret)
        self.assertEqual(status, 200, body)
        return body["fieldChecks"]

    def post(self, body, key=None, hub=None):
        return (hub or self.hub).post(PATH, body, key=key or self.public)

    def stored_rows(self) -> str:
        """Every value of every stored row, as text (straight from the database)."""
        query = "SELECT * FROM field_checks"
        if self.database.kind == "sqlite":
            with sqlite3.connect(self.database.url[len("sqlite:"):]) as connection:
                return repr(connection.execute(query).fetchall())
        return psql(self.database.url, query)

    def restart(self, **limits):
        """The hub again, with `limits` in its config file."""
        self.hub.stop()
        path = os.path.join(self.database.folder, "hub.json5")
        with open(path, "w") as f:
            f.write("{ limits: {" + "".join(f" {name}: {json.dumps(value)}," for name, value in limits.items()) + " } }\n")
        self.hub = Hub(self.database.url, extra=("--config", path))
        self.hubs.append(self.hub)

    def test_a_posted_result_is_stored_and_listed_with_its_fields(self):
        sent = result()
        status, body = self.post(sent)
        self.assertEqual(status, 200, body)
        check = body["fieldCheck"]
        self.assertRegex(check["id"], r"^[0-9a-f]{16}$")
        self.assertRegex(check["createTime"], r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")
        self.assertEqual({k: v for k, v in check.items() if k not in ("id", "createTime")}, sent)
        # A result without a box (the phone resolved none), with the secret key, one band only.
        status, second = self.post(result(beaconName=None, bands=[{"band": "low", "snrDb": -3.5, "decoded": False}],
                                          verdict="neither", sampleRate=44100, platform="iOS 17.5", browser="Safari 17"),
                                   key=self.secret)
        self.assertEqual(status, 200, second)
        self.assertNotIn("beaconName", second["fieldCheck"])
        listed = self.listed()
        self.assertEqual([c["id"] for c in listed], [second["fieldCheck"]["id"], check["id"]], "newest first")
        self.assertEqual(listed[1], check)
        self.assertEqual(listed[0], second["fieldCheck"])
        # ?beaconName= lists that box's only.
        self.assertEqual([c["id"] for c in self.listed(query="?beaconName=beacons/3!0a1b2c3d")], [check["id"]])
        self.assertEqual(self.listed(query="?beaconName=beacons/3!ffff"), [])
        # Anonymous rows: no address, key or user agent in the database.
        status, _ = self.hub.request("POST", PATH, result(), key=self.public,
                                     headers={"User-Agent": "Mozilla/5.0 (Linux; Android 14; Pixel 8) SecretAgent/1.0"})
        self.assertEqual(status, 200)
        rows = self.stored_rows()
        for secret in ("127.0.0.1", self.public, self.secret, "SecretAgent", "Pixel 8"):
            self.assertNotIn(secret, rows)
        self.assertIn("Android 14", rows)

    def test_the_cap_keeps_the_newest_of_each_project_and_the_rate_is_per_project(self):
        self.restart(fieldChecksKeptPerProject=3, fieldChecksPerMinutePerProject=6)
        other = create_project(self.database.url, "other")
        self.assertEqual(self.post(result(beaconName=None), key=other["apiKey"])[0], 200)
        ids = []
        for n in range(5):
            status, body = self.post(result(platform=f"Android {n}"))
            self.assertEqual(status, 200, body)
            ids.append(body["fieldCheck"]["id"])
            time.sleep(0.005)   # a millisecond of its own each: the order is the hub's clock's
        self.assertEqual([c["id"] for c in self.listed()], ids[:1:-1], "the three newest, newest first")
        status, body = self.hub.get(PATH, key=other["secretKey"])
        self.assertEqual(len(body["fieldChecks"]), 1, "another project's results are not this one's cap")
        # The sixth of the minute is the last: the seventh is a 429 with Retry-After, counted on /metrics.
        self.assertEqual(self.post(result())[0], 200)
        status, body, headers = self.hub.exchange("POST", PATH, result(), key=self.public)
        self.assertEqual(status, 429, body)
        self.assertGreaterEqual(int(headers["retry-after"]), 1)
        self.assertIn("field check", body["error"]["message"])
        self.assertEqual(self.post(result(beaconName=None), key=other["apiKey"])[0], 200, "the other project has its own rate")
        self.assertEqual(len(self.listed()), 3)
        metrics = self.hub.get("/metrics")[1]
        self.assertIn('nearcast_hub_limited_total{limit="field_checks"} 1', metrics)


class PostgresFieldCheckTests(FieldCheckTests, unittest.TestCase):
    database_kind = "postgres"


if __name__ == "__main__":
    unittest.main()
