"""Field check results (POST/GET /v1beta1/fieldchecks) through real HTTP on a real PostgreSQL (its
SQL: the cap's OFFSET, the rows read back; in memory and SQLite the same contract is
hub/Tests' FieldCheckRouterTests): what the check page sends is stored
and listed for the secret key; every bad field is a 400 naming it and stores nothing; a named box
must be one of the project's; the kept rows are capped per project, the writes rate-limited per
project; nothing identifying is stored. (The operators' page's table of them is driven in Chromium
by test_status_page.py.)"""
import copy
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
        # ?beaconName= lists that box's only; a malformed name is a 400 naming it.
        self.assertEqual([c["id"] for c in self.listed(query="?beaconName=beacons/3!0a1b2c3d")], [check["id"]])
        self.assertEqual(self.listed(query="?beaconName=beacons/3!ffff"), [])
        status, error = self.hub.get(PATH + "?beaconName=3!0a1b2c3d", key=self.secret)
        self.assertEqual((status, error["error"]["field"]), (400, "beaconName"), error)
        # Anonymous rows: no address, key or user agent in the database.
        status, _ = self.hub.request("POST", PATH, result(), key=self.public,
                                     headers={"User-Agent": "Mozilla/5.0 (Linux; Android 14; Pixel 8) SecretAgent/1.0"})
        self.assertEqual(status, 200)
        rows = self.stored_rows()
        for secret in ("127.0.0.1", self.public, self.secret, "SecretAgent", "Pixel 8"):
            self.assertNotIn(secret, rows)
        self.assertIn("Android 14", rows)

    def test_every_bad_field_is_a_400_naming_it_and_stores_nothing(self):
        status, kept = self.post(result())
        self.assertEqual(status, 200, kept)
        tones = result()["tones"]

        def tone(index, **changes):
            changed = copy.deepcopy(tones)
            changed[index].update(changes)
            return {"tones": changed}

        high, low = {"band": "high", "snrDb": 10, "decoded": True}, {"band": "low", "snrDb": 10, "decoded": False}
        cases = [
            ({"beaconName": "3!0a1b2c3d"}, "beaconName"),
            ({"beaconName": "beacons/3!0A1B"}, "beaconName"),
            ({"beaconName": 7}, "beaconName"),
            ({"platform": ""}, "platform"),
            ({"platform": "   "}, "platform"),
            ({"platform": "x" * 65}, "platform"),
            ({"platform": "Android\n14"}, "platform"),
            ({"platform": "Android\u000014"}, "platform"),
            ({"platform": None}, "platform"),
            ({"browser": "b" * 65}, "browser"),
            ({"browser": "Chrome\t131"}, "browser"),
            ({"sampleRate": 22050}, "sampleRate"),
            ({"sampleRate": "48000"}, "sampleRate"),
            ({"sampleRate": 48000.5}, "sampleRate"),
            ({"tones": []}, "tones"),
            ({"tones": tones * 14}, "tones"),
            (tone(2, hz=999), "tones[2].hz"),
            (tone(1, hz=24000.5), "tones[1].hz"),
            (tone(0, levelDb=11), "tones[0].levelDb"),
            (tone(0, levelDb=-201), "tones[0].levelDb"),
            (tone(2, snrDb=200.1), "tones[2].snrDb"),
            (tone(1, snrDb="loud"), "tones[1].snrDb"),
            (tone(0, snrDb=None), "tones[0].snrDb"),
            ({"bands": []}, "bands"),
            ({"bands": [high, low, high]}, "bands"),
            ({"bands": [high, dict(high, snrDb=3)]}, "bands[1].band"),
            ({"bands": [dict(high, band="mid")]}, "bands[0].band"),
            ({"bands": [low, dict(high, snrDb=-100.5)]}, "bands[1].snrDb"),
            ({"bands": [dict(low, decoded="yes")]}, "bands[0].decoded"),
            ({"verdict": "maybe"}, "verdict"),
            ({"verdict": "HIGH"}, "verdict"),
        ]
        for changes, field in cases:
            with self.subTest(field=field, changes=repr(changes)[:80]):
                status, body = self.post(result(**changes))
                self.assertEqual(status, 400, body)
                self.assertEqual(body["error"]["field"], field, body)
                self.assertEqual(body["error"]["status"], "INVALID_ARGUMENT")
        # Missing fields, and bodies that are not an object.
        for missing in ("platform", "browser", "sampleRate", "tones", "bands", "verdict"):
            body = result()
            del body[missing]
            with self.subTest(missing=missing):
                status, error = self.post(body)
                self.assertEqual((status, error["error"]["field"]), (400, missing), error)
        status, error = self.hub.post(PATH, raw=b"{not json", key=self.public)
        self.assertEqual((status, error["error"]["field"]), (400, "(body)"), error)
        # Over 16 KiB: 413 before it is read.
        status, error = self.post(result(platform="x" * (17 * 1024)))
        self.assertEqual((status, error["error"]["field"]), (413, "(body)"), error)
        self.assertEqual(self.listed(), [kept["fieldCheck"]], "nothing stored by a bad request, nothing lost")

    def test_keys_the_public_key_cannot_list_and_a_box_must_be_the_projects(self):
        self.assertEqual(self.hub.get(PATH, key=self.public)[0], 403)
        self.assertEqual(self.hub.get(PATH)[0], 401)
        self.assertEqual(self.post(result(), key="ncpub_nobody")[0], 403)
        self.assertEqual(self.hub.post(PATH, result())[0], 401)
        # A well-formed name the project has not registered.
        status, error = self.post(result(beaconName="beacons/3!ffffffff"))
        self.assertEqual((status, error["error"]["field"]), (404, "beaconName"), error)
        self.assertIn("not a beacon of this project", error["error"]["message"])
        # Another project's box is as unknown as none.
        other = create_project(self.database.url, "other")
        theirs = self.register(other["secretKey"], bytes.fromhex("77665544"), "their box")
        status, error = self.post(result(beaconName=theirs))
        self.assertEqual((status, error["error"]["field"]), (404, "beaconName"), error)
        self.assertEqual(self.post(result(beaconName=theirs), key=other["apiKey"])[0], 200)
        # A deleted box takes no new results.
        self.assertEqual(self.hub.delete(f"/v1beta1/{DOOR}", key=self.secret)[0], 200)
        self.assertEqual(self.post(result())[0], 404)
        self.assertEqual(self.listed(), [], "each project sees its own results only")
        status, body = self.hub.get(PATH, key=other["secretKey"])
        self.assertEqual([c["beaconName"] for c in body["fieldChecks"]], [theirs])

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
