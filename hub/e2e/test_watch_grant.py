"""Reading a beacon by name needs having heard it (docs/venue-operator.md, "API": "Reading a beacon by name needs having
heard it"; hub/Sources/NearcastHub/api/BeaconReadGrant.swift), through real HTTP against real
`nearcast-hub serve` processes, on SQLite and on a real PostgreSQL:

- getforobserved answers each beacon it resolves with a `watchToken`;
- with the public key, `attachments:watch`, `GET /v1/shows/B` and `GET /v1/shows/B/events` need
  `?token=` with that beacon's token: none, an empty one, garbage, a forged one, one for another
  beacon or another project, or an expired one is a 403 naming `token`; the right one opens it;
- the secret key needs no token; a pass (the code on the presenter's screen) reads its own beacon
  only; a watchToken is neither a key nor a pass (it proves no presence: an EID up to an hour old
  resolves), and a pass is not a watchToken;
- an open watch outlives its token; a new one with the expired token is refused.

The hub has no clock a test can move (no option or environment for it in nearcast-hub serve), so the
expired tokens are made here: signed as the hub signs them (Presence.swift), with the key derived
from the service key in the test's database, after checking that a token made so with a future
expiry is accepted."""
import base64
import json
import sqlite3
import time
import unittest
import urllib.parse

from cryptography.hazmat.primitives import hashes, hmac
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from hubtest import (POSTGRES, Beacon, EventStream, ProjectOnAHub, b64, create_project, heard, pdf_deck, psql, unb64, uid_observation,
                     upload_deck)

# As test_present.py: a beacon clock at the start of a 128 s rotation period (exponent 7).
EPOCH_ALIGNED_CLOCK = 128 * 39_062


def base64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


class WatchGrantTests(ProjectOnAHub):
    def setUp(self):
        super().setUp()
        self.streams = []

    def tearDown(self):
        for stream in self.streams:
            stream.close()
        super().tearDown()

    # --- helpers ---
    def register_uid(self, uid: bytes, key=None) -> str:
        status, body = self.hub.post("/v1beta1/beacons:register", {"advertisedId": {"type": "EDDYSTONE", "id": b64(uid)}},
                                     key=key or self.secret)
        self.assertEqual(status, 200, body)
        return body["beaconName"]

    def register_eid(self) -> Beacon:
        beacon = Beacon(self.hub.service_public_key(), exponent=7, clock=EPOCH_ALIGNED_CLOCK)
        status, body = self.hub.post("/v1beta1/beacons:register", beacon.registration("main hall"), key=self.secret)
        self.assertEqual(status, 200, body)
        return beacon

    def attach(self, name, text):
        status, body = self.hub.post(f"/v1beta1/{name}/attachments", {"namespacedType": "demo/slide", "data": b64(text.encode())},
                                     key=self.secret)
        self.assertEqual(status, 200, body)

    def resolve(self, *observations, key=None):
        status, body = self.hub.post("/v1beta1/beaconinfo:getforobserved", {"observations": list(observations)},
                                     key=key or self.public)
        self.assertEqual(status, 200, body)
        return body["beacons"]

    def watch(self, name, key, token=None, in_header=False):
        if in_header:
            query = {"token": token} if token is not None else {}
            stream = EventStream(self.hub.port, f"/v1beta1/{name}/attachments:watch", key, in_header=True, query=query,
                                 connect=self.hub.connect)
        else:
            stream = self.hub.watch(name, key, token=token)
        self.streams.append(stream)
        return stream

    def show_events(self, beacon_id, key, token=None):
        stream = self.hub.show_events(beacon_id, key, token=token)
        self.streams.append(stream)
        return stream

    def get_show(self, beacon_id, key, token=None):
        query = "?" + urllib.parse.urlencode({"token": token}) if token is not None else ""
        return self.hub.get(f"/v1/shows/{beacon_id}{query}", key=key)

    def start_show(self, beacon: Beacon, deck=None) -> str:
        """A show of a 2-page deck (made once) on `beacon`, at page 1; the beacon's id (4!hex)."""
        if deck is None:
            status, made = upload_deck(self.hub.port, self.secret, pdf_deck(2))
            self.assertEqual(status, 201, made)
            deck = made["deck"]
        beacon_id = beacon.name()[len("beacons/"):]
        status, body = self.hub.request("PUT", f"/v1/shows/{beacon_id}", body={"deck": deck, "page": 1}, key=self.secret)
        self.assertEqual(status, 200, body)
        self.deck = deck
        return beacon_id

    def assertRefused(self, answer, why=""):
        """A 403 in the API's error shape whose message and field name `token`. `answer` is a
        (status, body) pair or an EventStream that was not opened."""
        if hasattr(answer, "status") and hasattr(answer, "body"):
            status, body = answer.status, json.loads(answer.body)
        elif hasattr(answer, "status"):
            self.fail(f"the stream was opened (status {answer.status}), not refused: {why}")
        else:
            status, body = answer
        self.assertEqual(status, 403, f"{why}: {body}")
        self.assertEqual(body["error"]["code"], 403, body)
        self.assertEqual(body["error"].get("field"), "token", f"{why}: {body}")
        self.assertIn("token", body["error"]["message"], body)
        return body["error"]["message"]

    def presence_key(self) -> bytes:
        """The key the hub signs passes (and so watchTokens) with, derived as Presence.swift does
        from the service key in the database."""
        query = "SELECT value FROM hub_settings WHERE name = 'service_ecdh_private_key'"
        if self.database.kind == "sqlite":
            with sqlite3.connect(self.database.url[len("sqlite:"):]) as connection:
                [(stored,)] = connection.execute(query).fetchall()
        else:
            stored = psql(self.database.url, query).strip()
        return HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=b"nearcast presence v1").derive(base64.b64decode(stored))

    def signed_token(self, beacon_name: str, expires_ms: int, project="demo") -> str:
        payload = f"{project}\n{beacon_name}\n{expires_ms}".encode()
        mac = hmac.HMAC(self.presence_key(), hashes.SHA256())
        mac.update(b"watch\n" + payload)
        return "ncwatch_" + base64url(payload) + "." + base64url(mac.finalize()[:16])

    # --- getforobserved ---
    def test_getforobserved_answers_a_watch_token_for_each_beacon_it_resolves(self):
        door = self.register_uid(b"\x01\x02\x03\x04")
        stage = self.register_uid(b"\x0a\x0b")
        box = self.register_eid()
        answered = self.resolve(heard(door), heard(stage), box.observation(), uid_observation(b"\x77\x77"))
        self.assertEqual([b["beaconName"] for b in answered], [door, stage, box.name()], "the unknown token is absent")
        tokens = [b.get("watchToken") for b in answered]
        for token in tokens:
            self.assertIsInstance(token, str)
            self.assertTrue(token)
        self.assertEqual(len(set(tokens)), 3, "each beacon has a token of its own")
        # Each opens its own beacon's watch.
        for beacon in answered:
            stream = self.watch(beacon["beaconName"], self.public, token=beacon["watchToken"])
            self.assertEqual(stream.status, 200, getattr(stream, "body", b""))
            self.assertEqual(stream.next(10)[0], "attachments")

    # --- attachments:watch ---
    def test_a_watch_with_the_public_key_needs_the_token_of_its_beacon(self):
        door = self.register_uid(b"\x01\x02\x03\x04")
        stage = self.register_uid(b"\x0a\x0b")
        self.attach(door, "slide 1")
        [door_token] = [b["watchToken"] for b in self.resolve(heard(door))]
        [stage_token] = [b["watchToken"] for b in self.resolve(heard(stage))]

        # The same name in another project, resolved with that project's public key.
        other = create_project(self.database.url, "other")
        self.assertEqual(self.register_uid(b"\x01\x02\x03\x04", key=other["secretKey"]), door)
        [other_token] = [b["watchToken"] for b in self.resolve(heard(door), key=other["apiKey"])]

        self.assertTrue(door_token.startswith("ncwatch_"), door_token)
        payload, mac = door_token[len("ncwatch_"):].split(".")
        tampered_payload = base64url(unb64(payload + "=" * (-len(payload) % 4)).replace(b"demo", b"demp"))
        for token, why in [(None, "no token"), ("", "an empty token"), ("nonsense", "garbage"),
                           ("ncpass_AAAA.BBBB", "a pass-shaped garbage token"),
                           ("ncwatch_" + tampered_payload + "." + mac, "a token whose payload was changed"),
                           ("ncpass_" + payload + "." + mac, "a watch token dressed as a pass"),
                           (door_token[:-2] + ("AA" if not door_token.endswith("AA") else "BB"), "a token whose signature was changed"),
                           (stage_token, "the token of another beacon"),
                           (other_token, "the token of the same name in another project")]:
            with self.subTest(why=why):
                self.assertRefused(self.watch(door, self.public, token=token), why)
        # The other project's key with this project's token: refused too.
        self.assertRefused(self.watch(door, other["apiKey"], token=door_token), "this project's token with another project's key")
        # A beacon nobody resolved: 403 with the public key (its existence is not told), 404 with the secret one.
        self.assertRefused(self.watch("beacons/3!00ff", self.public), "an unknown beacon")
        self.assertEqual(self.watch("beacons/3!00ff", self.secret).status, 404)

        # The right token opens it, and it streams.
        stream = self.watch(door, self.public, token=door_token)
        self.assertEqual(stream.status, 200)
        event, first = stream.next(10)
        self.assertEqual((event, [unb64(a["data"]) for a in first["attachments"]]), ("attachments", [b"slide 1"]))
        self.attach(door, "slide 2")
        event, second = stream.next(10)
        self.assertEqual((event, len(second["attachments"])), ("attachments", 2))
        # The key in X-Api-Key (as a presenter's page sends it) and the token in the query.
        in_header = self.watch(door, self.public, token=door_token, in_header=True)
        self.assertEqual(in_header.status, 200)
        self.assertEqual(in_header.next(10)[0], "attachments")
        # The other project's token opens the other project's beacon of that name.
        theirs = self.watch(door, other["apiKey"], token=other_token)
        self.assertEqual((theirs.status, theirs.next(10)), (200, ("attachments", {"attachments": []})))

    def test_the_secret_key_needs_no_token_and_a_pass_reads_only_its_own_beacon(self):
        door = self.register_uid(b"\x01\x02\x03\x04")
        stage = self.register_uid(b"\x0a\x0b")
        self.attach(door, "slide 1")
        for token in (None, "nonsense"):
            with self.subTest(token=token):
                stream = self.watch(door, self.secret, token=token)
                self.assertEqual(stream.status, 200)
                self.assertEqual(stream.next(10)[0], "attachments")

        # A watchToken is not a key (nor a pass: it proves no presence), only a grant beside one.
        [door_token] = [b["watchToken"] for b in self.resolve(heard(door))]
        self.assertEqual(self.watch(door, door_token).status, 403, "a watchToken used as the key")
        self.assertEqual(self.watch(stage, self.public, token=door_token).status, 403, "one beacon's token for another")

        # The pass from the code on the presenter's screen, likewise, for watches and shows.
        hall, side = self.register_eid(), self.register_eid()
        hall_id = self.start_show(hall)
        side_id = self.start_show(side, deck=self.deck)
        status, shown = self.get_show(hall_id, self.secret)
        self.assertEqual(status, 200, shown)
        status, joined = self.hub.post("/v1/presence", {"code": shown["code"]})
        self.assertEqual(status, 200, joined)
        sight_pass = joined["pass"]
        self.assertEqual(self.watch(hall.name(), sight_pass).status, 200)
        self.assertEqual(self.get_show(hall_id, sight_pass)[0], 200)
        follower = self.show_events(hall_id, sight_pass)
        self.assertEqual((follower.status, follower.next(10)[0]), (200, "show"))
        status, body = self.get_show(side_id, sight_pass)
        self.assertEqual(status, 403, body)
        self.assertIn(hall.name(), body["error"]["message"], "the refusal names the pass's own beacon")
        self.assertEqual(self.show_events(side_id, sight_pass).status, 403)
        self.assertEqual(self.watch(side.name(), sight_pass).status, 403)
        self.assertEqual(self.watch(door, sight_pass).status, 403)

    # --- shows ---
    def test_a_show_and_its_events_with_the_public_key_need_the_token_of_its_beacon(self):
        hall, side = self.register_eid(), self.register_eid()
        hall_id = self.start_show(hall)
        side_id = self.start_show(side, deck=self.deck)
        [hall_token] = [b["watchToken"] for b in self.resolve(hall.observation())]
        [side_token] = [b["watchToken"] for b in self.resolve(side.observation())]
        for token, why in [(None, "no token"), ("", "an empty token"), ("nonsense", "garbage"),
                           (hall_token[:-2] + ("AA" if not hall_token.endswith("AA") else "BB"), "a forged token"),
                           (side_token, "the token of another beacon")]:
            with self.subTest(why=why):
                self.assertRefused(self.get_show(hall_id, self.public, token=token), "GET show, " + why)
                self.assertRefused(self.show_events(hall_id, self.public, token=token), "show events, " + why)

        status, show = self.get_show(hall_id, self.public, token=hall_token)
        self.assertEqual(status, 200, show)
        self.assertEqual((show["beaconName"], show["page"]), (hall.name(), 1))
        self.assertNotIn("code", show, "the public key gets no presenter's fields")
        follower = self.show_events(hall_id, self.public, token=hall_token)
        self.assertEqual(follower.status, 200)
        self.assertEqual(follower.next(10)[1]["page"], 1)
        status, _ = self.hub.request("PUT", f"/v1/shows/{hall_id}", body={"deck": self.deck, "page": 2}, key=self.secret)
        self.assertEqual(status, 200)
        self.assertEqual(follower.until("show", lambda s: s["page"] == 2, timeout=10)["shownUpTo"], 2)

        # The secret key needs none.
        self.assertEqual(self.get_show(hall_id, self.secret)[0], 200)
        presenter = self.show_events(hall_id, self.secret)
        self.assertEqual((presenter.status, presenter.next(10)[0]), (200, "show"))
        # A valid token for a beacon with no show: the show is what is missing.
        idle = self.register_eid()
        [idle_token] = [b["watchToken"] for b in self.resolve(idle.observation())]
        self.assertEqual(self.get_show(idle.name()[len("beacons/"):], self.public, token=idle_token)[0], 404)

    # --- expiry ---
    def test_an_expired_token_is_refused_and_an_open_watch_outlives_its_token(self):
        door = self.register_uid(b"\x01\x02\x03\x04")
        now_ms = int(time.time() * 1000)
        made = self.signed_token(door, now_ms + 60_000)
        probe = self.watch(door, self.public, token=made)
        if probe.status != 200:
            self.skipTest(f"a token made here as Presence.swift signs them is refused ({probe.status} {probe.body!r}): "
                          "the signing changed, so expiry cannot be tested without a clock the test can move")
        self.assertEqual(probe.next(10)[0], "attachments")

        expired = self.signed_token(door, now_ms - 1_000)
        message = self.assertRefused(self.watch(door, self.public, token=expired), "an expired token")
        self.assertIn("expired", message)
        self.assertRefused(self.get_show(door[len("beacons/"):], self.public, token=expired), "an expired token on a show")
        self.assertRefused(self.watch(door, self.public, token=self.signed_token(door, now_ms + 60_000, project="other")),
                           "a genuine token for another project")

        # A token that expires in 3 s opens a watch; once it expired a new watch with it is
        # refused, and the one opened before still delivers changes.
        short = self.signed_token(door, int(time.time() * 1000) + 3_000)
        stream = self.watch(door, self.public, token=short)
        self.assertEqual((stream.status, stream.next(10)[0]), (200, "attachments"))
        deadline = time.monotonic() + 20
        while True:
            again = self.watch(door, self.public, token=short)
            if again.status == 403 or time.monotonic() > deadline:
                break
            again.close()
            time.sleep(0.25)
        self.assertRefused(again, "the short token after it expired")
        self.attach(door, "after the token expired")
        event, data = stream.next(10)
        self.assertEqual((event, [unb64(a["data"]) for a in data["attachments"]]), ("attachments", [b"after the token expired"]))

    # --- a watchToken as proof of presence ---
    def test_a_token_from_resolving_an_old_eid_does_not_prove_presence(self):
        # A reaction needs proof of presence: an EID of the current rotation period or the one
        # before (test_present.py). getforobserved resolves older EIDs too (a replay within the
        # window) and answers a watchToken, signed as a pass is: it must not prove more than the EID
        # it came from.
        hall = self.register_eid()
        self.start_show(hall)
        old = {"type": "EDDYSTONE_EID", "id": b64(hall.eid(hall.clock - 5 * 128))}
        status, direct = self.hub.post("/v1/reactions", {"observed": old, "reaction": "👏", "phone": "old-eid"}, key=self.public)
        self.assertEqual(status, 403, direct)
        [resolved] = self.resolve({"advertisedId": old})
        status, answer = self.hub.post("/v1/reactions", {"observed": {"type": "NEARCAST_PASS", "id": resolved["watchToken"]},
                                                         "reaction": "👏", "phone": "old-eid-token"}, key=self.public)
        self.assertEqual(status, 403, f"a reaction proved by the watchToken of an EID 5 rotation periods old: {status} {answer}")


class SQLiteWatchGrantTests(WatchGrantTests, unittest.TestCase):
    database_kind = "sqlite"


@unittest.skipUnless(POSTGRES, "NEARCAST_HUB_POSTGRES_URL is not set (tools/check/test-hub starts a server)")
class PostgresWatchGrantTests(WatchGrantTests, unittest.TestCase):
    database_kind = "postgres"


if __name__ == "__main__":
    unittest.main()
