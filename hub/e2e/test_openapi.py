"""hub/openapi.yaml kept true: schemathesis (PyPI; tools/setup/install-deps installs it) runs every
operation of the document against a real `nearcast-hub serve --limits off` on a real PostgreSQL
(PostgresOpenAPITests; one database is enough to hold the document true, and each route's answers
on SQLite and in memory are hub/Tests' router tests), with the checks not_a_server_error,
status_code_conformance, content_type_conformance and response_schema_conformance:

- a project with data to reach: a UID beacon (the document's example name) and an EID beacon with
  heartbeats and attachments, a two-page deck shown on the EID beacon, an image reaction;
- generated requests (examples, coverage, fuzzing and stateful phases), the key in `X-Api-Key`
  (the secret key is refused in `?key=`: checked by hand below);
- the same with the seeded beacon, deck, attachment, image and sight code as the path's values,
  so the answers with data are checked too (deletes last, in a pass of their own);
- the public API key, which most operations refuse (403) and some take;
- answers generated requests rarely reach (a reaction with a heard EID or a pass, joining by the
  sight code, a page's 304, a 409, 413 and 415), built by hand and checked by schemathesis' checks;
- text holding U+0000 (valid JSON), which the hub must store or refuse, not answer with a 5xx;
- the two event streams (attachments:watch, a show's events), which never end and so are left out
  of schemathesis: requested directly, their first event's data checked against the document's
  schema, and their refusals against their documented statuses and the error schema;
- the document served by the hub at /openapi.yaml when the listener directory holds it (as
  tools/setup/build-web puts it there).

Each schemathesis run is bounded by NEARCAST_OPENAPI_EXAMPLES test cases per operation (default
25) and seeded with NEARCAST_OPENAPI_SEED (default 1; `random` for a fresh seed each run).
"""
import http.client
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import unittest
import urllib.parse

from hubtest import Beacon, Database, Hub, b64, create_project, pdf_deck, solve_work, unb64

TESTS = os.path.dirname(os.path.abspath(__file__))
SPEC = os.path.join(TESTS, "..", "openapi.yaml")
CHECKS = "not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance"
# Server-Sent Events: they never end, so they are requested directly (test_event_streams).
STREAMS = ("watchAttachments", "showEvents")
# Fetches an address of the request's choosing (a generated one could make it wait out its 30 s
# fetch timeout on each case): its answers are held by the router tests (ScheduleRefreshTests).
OUTBOUND = ("putScheduleSource",)
EXAMPLES = int(os.environ.get("NEARCAST_OPENAPI_EXAMPLES", "25"))
SEED = os.environ.get("NEARCAST_OPENAPI_SEED", "1")
# A clock at the start of a 128 s rotation period, as test_present uses: the EID and the sight
# code stay the same for 128 s.
EPOCH_ALIGNED_CLOCK = 128 * 39_062

# Loaded by schemathesis: deck uploads are `application/pdf`, some of them real PDFs.
HOOKS = f"""
import sys
sys.path.insert(0, {TESTS!r})
import schemathesis
from hypothesis import strategies as st
from hubtest import pdf_deck

schemathesis.openapi.media_type("application/pdf", st.one_of(
    st.sampled_from([pdf_deck(1, title="fuzz"), b"", b"%PDF-1.4\\n%%EOF\\n", b"not a pdf"]),
    st.binary(max_size=64)))
"""


def have_schemathesis() -> bool:
    """Schemathesis 4 (its CLI options and config file are 4.x's)."""
    try:
        import schemathesis
    except ImportError:
        return False
    return schemathesis.__version__.startswith("4.")


def png(width=4, height=4) -> bytes:
    import struct
    import zlib

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    rows = b"".join(b"\x00" + b"\xe6\x28\x28" * width for _ in range(height))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


def toml_string(value: str) -> str:
    return json.dumps(value)   # a JSON string is a TOML basic string for these values


class OpenAPITests:
    """One hub and its data for the class (schemathesis changes them as it goes)."""

    database_kind = None

    @classmethod
    def setUpClass(cls):
        if not have_schemathesis():
            raise unittest.SkipTest("schemathesis 4 is not installed (tools/setup/install-deps installs it)")
        cls.database = Database(cls.database_kind)
        cls.work = tempfile.mkdtemp(prefix="nearcast-openapi-")
        cls.hub = None
        try:
            cls.keys = create_project(cls.database.url, "demo")
            cls.secret, cls.public = cls.keys["secretKey"], cls.keys["apiKey"]
            # A listener directory as tools/setup/build-web leaves it, the document beside the pages.
            cls.listener = os.path.join(cls.work, "web")
            os.mkdir(cls.listener)
            for name, content in [("listen.html", b"<!doctype html><title>listen</title>\n"),
                                  ("present.html", b"<!doctype html><title>present</title>\n"),
                                  ("listener.js", b"\"use strict\";\n"),
                                  ("nearcast-modem.wasm", b"\x00asm\x01\x00\x00\x00")]:
                with open(os.path.join(cls.listener, name), "wb") as f:
                    f.write(content)
            shutil.copy(SPEC, os.path.join(cls.listener, "openapi.yaml"))
            cls.hub = Hub(cls.database.url, extra=("--limits", "off", "--listener", cls.listener))
            cls.seed()
        except BaseException:
            cls.tearDownClass()
            raise

    @classmethod
    def tearDownClass(cls):
        if cls.hub is not None:
            cls.hub.stop()
        cls.database.drop()
        shutil.rmtree(cls.work, ignore_errors=True)

    # --- data ---

    @classmethod
    def call(cls, method, path, body=None, key=None, raw=None, content_type=None):
        """(status, headers with lower-case names, body bytes) of one request."""
        connection = http.client.HTTPConnection("127.0.0.1", cls.hub.port, timeout=120)
        headers = {"X-Api-Key": key} if key else {}
        data = raw if raw is not None else (json.dumps(body).encode() if body is not None else None)
        if data is not None:
            headers["Content-Type"] = content_type or "application/json"
        try:
            connection.request(method, path, body=data, headers=headers)
            response = connection.getresponse()
            payload = response.read()
            return response.status, {k.lower(): v for k, v in response.getheaders()}, payload
        finally:
            connection.close()

    @classmethod
    def ok(cls, method, path, body=None, raw=None, content_type=None, status=200):
        code, _, payload = cls.call(method, path, body=body, key=cls.secret, raw=raw, content_type=content_type)
        assert code == status, f"{method} {path}: {code} {payload[:500]!r}"
        return json.loads(payload)

    @classmethod
    def seed(cls):
        """Beacons, attachments, a deck, a show, an image reaction and a schedule for the operations to reach:
        the values for the path's parameters. Made again by each test that needs them (a
        schemathesis run may delete what it finds)."""
        uid = "0102030405060708"   # the document's example beacon
        status, _, payload = cls.call("POST", "/v1beta1/beacons:register",
                                      {"advertisedId": {"type": "EDDYSTONE", "id": b64(bytes.fromhex(uid))},
                                       "description": "stage door"}, key=cls.secret)
        assert status in (200, 409), payload
        status, params = cls.hub.get("/v1beta1/eidparams")
        assert status == 200, params
        beacon = Beacon(unb64(params["serviceEcdhPublicKey"]), exponent=7, clock=EPOCH_ALIGNED_CLOCK)
        cls.ok("POST", "/v1beta1/beacons:register", beacon.registration("the hall"))
        eid = beacon.name()[len("beacons/"):]
        for name in ("3!" + uid, eid):
            cls.ok("POST", f"/v1beta1/beacons/{name}/heartbeat",
                   {"clockValue": EPOCH_ALIGNED_CLOCK, "status": "ok", "problems": ["speaker quiet"], "version": "0.1"})
            for kind, text in [("demo/slide", "slide 1"), ("demo/note", "a note")]:
                attached = cls.ok("POST", f"/v1beta1/beacons/{name}/attachments",
                                  {"namespacedType": kind, "data": b64(text.encode())})
        deck = cls.ok("POST", "/v1/decks?title=OpenAPI", raw=pdf_deck(2), content_type="application/pdf",
                      status=201)["deck"]
        cls.ok("PUT", "/v1/reactions/choices",
               {"enabled": True, "emoji": ["👏", "🎉"], "images": [{"name": "logo", "png": b64(png())}]})
        show = cls.ok("PUT", f"/v1/shows/{eid}", {"deck": deck, "page": 1})
        # A schedule for the rooms and the day to show; its room has no box, so the day runner
        # leaves the show above alone.
        cls.ok("PUT", "/v1/schedule?timeZone=UTC", raw=b"day,room,start,duration,title,speakers\n"
               b"2030-01-01,Hall B,10:00,60,Opening,Jane Doe\n2030-01-02,Hall B,10:00,30,Closing,\n", content_type="text/csv")
        return {"path.beacon": eid, "path.deck": deck, "path.page": 1,
                "path.attachment": attached["attachmentName"].rsplit("/", 1)[1], "path.name": "logo",
                "path.code": show["code"]}

    # --- schemathesis ---

    def schemathesis(self, name, key, parameters=None, include=(), exclude=(), examples=EXAMPLES,
                     phases="examples,coverage,fuzzing,stateful"):
        """Runs `st run` on the document against the hub; fails with its report if a check failed."""
        folder = tempfile.mkdtemp(prefix=f"st-{name}-", dir=self.work)
        hooks = os.path.join(folder, "hooks.py")
        with open(hooks, "w") as f:
            f.write(HOOKS)
        config = [f"hooks = {toml_string(hooks)}", "[generation]", 'database = "none"',
                  "[auth.openapi.ApiKeyHeader]", f"api_key = {toml_string(key)}"]
        if parameters:
            config.append("[parameters]")
            config += [f"{toml_string(k)} = {json.dumps(v)}" for k, v in parameters.items()]
        with open(os.path.join(folder, "schemathesis.toml"), "w") as f:
            f.write("\n".join(config) + "\n")
        command = [sys.executable, "-m", "schemathesis.cli", "--config-file", os.path.join(folder, "schemathesis.toml"),
                   "run", os.path.abspath(SPEC), "--url", f"http://127.0.0.1:{self.hub.port}",
                   "--checks", CHECKS, "--max-examples", str(examples), "--phases", phases,
                   "--workers", "1", "--request-timeout", "60", "--warnings", "off", "--no-color"]
        log = os.environ.get("NEARCAST_OPENAPI_LOG")   # a directory for each run's output and HAR file
        if log:
            command += ["--report", "har", "--report-har-path", os.path.join(log, f"{self.database_kind}-{name}.har")]
        if SEED != "random":
            command += ["--seed", SEED]
        for operation in include:
            command += ["--include-operation-id", operation]
        for operation in (*STREAMS, *OUTBOUND, *exclude):
            command += ["--exclude-operation-id", operation]
        started = time.monotonic()
        result = subprocess.run(command, cwd=folder, capture_output=True, text=True, timeout=600,
                                env=dict(os.environ, PYTHONPATH=TESTS, SCHEMATHESIS_HOOKS=""))
        elapsed = time.monotonic() - started
        if log:
            with open(os.path.join(log, f"{self.database_kind}-{name}.txt"), "w") as f:
                f.write(result.stdout + result.stderr)
        summary = [line for line in result.stdout.splitlines() if " generated" in line]
        print(f"\nopenapi: {name}: {summary[-1].strip() if summary else '?'} ({elapsed:.1f} s)", file=sys.stderr)
        if result.returncode != 0:
            self.fail(f"schemathesis ({name}) found the hub and hub/openapi.yaml disagreeing "
                      f"(exit {result.returncode}):\n{result.stdout[-20000:]}\n{result.stderr[-3000:]}")

    def test_generated_requests_with_the_secret_key(self):
        self.schemathesis("generated", self.secret)

    def test_requests_that_reach_the_seeded_data(self):
        values = self.seed()
        # Deletes, and replacing the reaction choices, last: they take the data away from the rest.
        last = ("putReactionChoices", "deleteAttachment", "batchDeleteAttachments", "deleteShow", "deleteDeck", "deleteBeacon")
        self.schemathesis("seeded", self.secret, values, exclude=last, phases="examples,coverage,fuzzing")
        values = self.seed()
        for operation in last:
            self.schemathesis(f"seeded {operation}", self.secret, values, include=(operation,), examples=5,
                              phases="examples,coverage,fuzzing")

    def test_generated_requests_with_the_public_key(self):
        self.schemathesis("public key", self.public, examples=5, phases="examples,coverage,fuzzing")

    # --- what schemathesis does not reach ---

    def check(self, method, path, expected, key=None, path_parameters=None, query=None, body=None, headers=None,
              media_type=None):
        """One request built by hand, sent and checked by schemathesis with the same checks; its status
        must be `expected`. Returns the response."""
        from schemathesis import checks
        from schemathesis.core.failures import FailureGroup
        operation = self.api_schema()[path][method]
        headers = dict(headers or {})
        if key:
            headers["X-Api-Key"] = key
        arguments = {"path_parameters": path_parameters or {}, "query": dict(query or {}), "headers": headers}
        if body is not None:
            arguments["body"] = body
            arguments["media_type"] = media_type or "application/json"
        case = operation.Case(**arguments)
        response = case.call(base_url=f"http://127.0.0.1:{self.hub.port}")
        try:
            case.validate_response(response, checks=[checks.not_a_server_error, checks.status_code_conformance,
                                                     checks.content_type_conformance, checks.response_schema_conformance])
        except FailureGroup as failure:   # each check that failed
            self.fail(f"{method} {path} {repr(arguments)[:400]}: {response.status_code} {response.content[:300]!r}:\n{failure}")
        self.assertEqual(response.status_code, expected, f"{method} {path} {repr(arguments)[:400]}: {response.content[:300]!r}")
        return response

    @classmethod
    def api_schema(cls):
        if getattr(cls, "_api_schema", None) is None:
            import schemathesis
            from hypothesis import strategies as st
            schemathesis.openapi.media_type("application/pdf", st.just(b""))   # raw bytes, as given
            cls._api_schema = schemathesis.openapi.from_path(os.path.abspath(SPEC))
        return cls._api_schema

    def test_answers_generated_requests_rarely_reach(self):
        """The answers that need data no generated request has: a reaction with a heard EID, a pass
        for the code on the screen, a page's 304, the public key's view of a show, a talk's
        figures at its speaker's address; and refusals (413, 415, 409)."""
        values = self.seed()
        eid, deck = values["path.beacon"], values["path.deck"]
        beacon = {"beacon": eid}
        # Proof of presence: the EID the beacon shows now (registered just now, in a 128 s period).
        observed = self.check("POST", "/v1beta1/beaconinfo:getforobserved", 200, key=self.public,
                              body={"observations": [{"advertisedId": {"type": "EDDYSTONE_EID", "id": self.heard_eid(eid)},
                                                      "timestampMs": int(time.time() * 1000)}],
                                    "namespacedTypes": ["demo/*"]}).json()
        self.assertEqual([b["beaconName"] for b in observed["beacons"]], ["beacons/" + eid])
        token = observed["beacons"][0]["watchToken"]
        heard = {"type": "EDDYSTONE_EID", "id": self.heard_eid(eid)}
        challenge = self.check("GET", "/v1/phones/challenge", 200, key=self.public).json()
        earned = self.check("POST", "/v1/phones", 200, key=self.public,
                            body={"challenge": challenge["challenge"], "nonce": solve_work(challenge["challenge"], challenge["bits"]),
                                  "observed": heard}).json()
        self.check("POST", "/v1/reactions", 202, key=self.public,
                   body={"observed": heard, "reaction": "👏", "phone": earned["phone"]})
        self.check("GET", "/v1/shows/{beacon}", 200, key=self.public, path_parameters=beacon, query={"token": token})
        self.check("GET", "/v1/shows/{beacon}", 403, key=self.public, path_parameters=beacon)
        self.check("GET", "/v1/shows/{beacon}", 200, key=self.secret, path_parameters=beacon)
        code = self.check("GET", "/v1/shows/{beacon}", 200, key=self.secret, path_parameters=beacon).json()["code"]
        joined = self.check("POST", "/v1/presence", 200, body={"code": code}).json()
        sighted = {"type": "NEARCAST_PASS", "id": joined["pass"]}
        challenge = self.check("GET", "/v1/phones/challenge", 200, key=joined["pass"]).json()
        earned = self.check("POST", "/v1/phones", 200, key=joined["pass"],
                            body={"challenge": challenge["challenge"], "nonce": solve_work(challenge["challenge"], challenge["bits"]),
                                  "observed": sighted}).json()
        self.check("POST", "/v1/reactions", 202, key=joined["pass"],
                   body={"observed": sighted, "reaction": "logo", "phone": earned["phone"]})
        self.check("GET", "/v1/shows/{beacon}", 200, key=joined["pass"], path_parameters=beacon)
        # A field check result with the public key and with a pass (no box), listed for the secret key.
        result = {"beaconName": "beacons/" + eid, "platform": "Android 14", "browser": "Chrome 131", "sampleRate": 48000,
                  "tones": [{"hz": 12000, "levelDb": -61.2, "snrDb": 31.5}],
                  "bands": [{"band": "high", "snrDb": 12.3, "decoded": True}], "verdict": "high"}
        self.check("POST", "/v1beta1/fieldchecks", 200, key=self.public, body=result)
        self.check("POST", "/v1beta1/fieldchecks", 200, key=joined["pass"], body=dict(result, beaconName=None))
        self.check("POST", "/v1beta1/fieldchecks", 404, key=self.public, body=dict(result, beaconName="beacons/3!ffff"))
        self.check("POST", "/v1beta1/fieldchecks", 413, key=self.public, body=dict(result, platform="x" * (17 * 1024)))
        listed = self.check("GET", "/v1beta1/fieldchecks", 200, key=self.secret, query={"beaconName": "beacons/" + eid}).json()
        self.assertEqual([c["verdict"] for c in listed["fieldChecks"]], ["high"])
        self.check("GET", "/v1beta1/fieldchecks", 403, key=self.public)
        # A visit's reach by ear with the public key, reported again with its receipt; one by the
        # code with a pass; read per box with the secret key.
        visit = {"beaconName": "beacons/" + eid, "platform": "Android 14", "browser": "Chrome 131", "joinedBy": "heard",
                 "firstTokenMs": 2300, "capture": {"sampleRate": 48000, "echoCancellation": False},
                 "bands": [{"band": "high", "levelDb": -55}], "bursts": {"detected": 3, "decoded": 2}}
        receipt = self.check("POST", "/v1/reach", 200, key=self.public, body=visit).json()["receipt"]
        self.check("POST", "/v1/reach", 200, key=self.public, body=dict(visit, receipt=receipt, bursts={"detected": 9, "decoded": 7}))
        self.check("POST", "/v1/reach", 200, key=joined["pass"], body=dict(visit, joinedBy="code", firstTokenMs=None))
        self.check("POST", "/v1/reach", 400, key=self.public, body=dict(visit, receipt="ncreach_x.y"))
        self.check("POST", "/v1/reach", 404, key=self.public, body=dict(visit, beaconName="beacons/3!ffff"))
        self.check("POST", "/v1/reach", 413, key=self.public, body=dict(visit, platform="x" * (9 * 1024)))
        reach = self.check("GET", "/v1/reach", 200, key=self.secret, query={"days": 7}).json()
        box = next(b for b in reach["boxes"] if b.get("beaconName") == "beacons/" + eid)
        # At least: generated requests may have reported for the same box (the visits counted here are hub/Tests').
        self.assertTrue(box["phones"] >= 2 and box["heard"] >= 1 and box["byCode"] >= 1, box)
        self.check("GET", "/v1/reach", 403, key=self.public)
        self.check("GET", "/v1/reach", 400, key=self.secret, query={"days": 0})
        self.check("GET", "/j/{code}", 302, path_parameters={"code": code})
        self.check("GET", "/v1/shows/{beacon}/qr.svg", 200, key=self.secret, path_parameters=beacon,
                   query={"base": "https://hub.example"})
        self.check("GET", "/v1/reactions/images/{name}", 200, key=self.public, path_parameters={"name": "logo"})
        # Pages: the audience sees only what was shown; an ETag answered again is a 304.
        page = {"deck": deck, "page": 1}
        image = self.check("GET", "/v1/decks/{deck}/pages/{page}", 200, key=self.public, path_parameters=page, query={"token": token})
        self.check("GET", "/v1/decks/{deck}/pages/{page}", 304, key=self.public, path_parameters=page, query={"token": token},
                   headers={"If-None-Match": image.headers["etag"][0]})
        self.check("GET", "/v1/decks/{deck}/pages/{page}", 403, key=self.public, path_parameters={"deck": deck, "page": 2},
                   query={"token": token})
        self.check("GET", "/v1/decks/{deck}/pages/{page}", 403, key=self.public, path_parameters=page)   # no token
        # The secret key in an address is refused, whatever it asks for.
        self.check("GET", "/v1/shows/{beacon}", 403, path_parameters=beacon, query={"key": self.secret})
        self.check("GET", "/v1/decks/{deck}/pages/{page}", 404, key=self.secret, path_parameters={"deck": deck, "page": 3})
        # A speaker's figures at their talk's address (the talk is in 2030: nothing counted yet).
        upload = {"token": self.ok("GET", "/v1/talks")["talks"][0]["talk"]["uploadPath"].rsplit("/", 1)[1]}
        self.check("GET", "/upload/{token}/reactions.json", 200, path_parameters=upload)
        self.check("GET", "/upload/{token}/reactions.csv", 200, path_parameters=upload)
        # A show on a UID beacon has no sight code to draw.
        uid = "3!0102030405060708"
        self.ok("PUT", f"/v1/shows/{uid}", {"deck": deck})
        self.check("GET", "/v1/shows/{beacon}/qr.svg", 409, key=self.secret, path_parameters={"beacon": uid})
        # Refusals of the body: too large, the wrong type.
        self.check("POST", "/v1beta1/beacons:register", 413, key=self.secret,
                   body={"advertisedId": {"type": "EDDYSTONE", "id": "AQ=="}, "description": "x" * (300 * 1024)})
        self.check("POST", "/v1/decks", 415, key=self.secret, body={"deck": "a PDF, as JSON"})
        self.check("POST", "/v1/decks", 400, key=self.secret, body=b"", media_type="application/pdf")
        self.check("POST", "/v1beta1/beacons:register", 409, key=self.secret,
                   body={"advertisedId": {"type": "EDDYSTONE", "id": b64(bytes.fromhex("0102030405060708"))}})

    def test_text_with_a_nul_character(self):
        """U+0000 (valid JSON text, and a valid query value) in text the hub stores is a 400 naming
        the field, on both databases: PostgreSQL's text cannot hold it (the hub answered 500) and
        SQLite's reads cut the text there (a description read back shorter than stored). Other
        control characters likewise; tabs and line breaks are text."""
        self.seed()
        refusals = [("a beacon's description", "description", lambda text: self.check(
                        "POST", "/v1beta1/beacons:register", 400, key=self.secret,
                        body={"advertisedId": {"type": "EDDYSTONE", "id": b64(b"\x0e\x0f")}, "description": text})),
                    ("a deck's title", "title", lambda text: self.check(
                        "POST", "/v1/decks", 400, key=self.secret, query={"title": text}, body=pdf_deck(1),
                        media_type="application/pdf"))]
        for what, field, send in refusals:
            for text in ("stage\u0000door", "bell\u0007", "c1\u0085"):
                with self.subTest(what, text=text):
                    error = send(text).json()["error"]
                    self.assertEqual(error["field"], field)
                    self.assertIn("control character U+", error["message"])
        answer = self.check("POST", "/v1beta1/beacons:register", 200, key=self.secret,
                            body={"advertisedId": {"type": "EDDYSTONE", "id": b64(b"\x0e\x10")},
                                  "description": "Hall A\tstage\ndoor"}).json()
        stored = self.check("GET", "/v1beta1/beacons/{beacon}", 200, key=self.secret,
                            path_parameters={"beacon": answer["beaconName"].split("/", 1)[1]}).json()
        self.assertEqual(stored["description"], "Hall A\tstage\ndoor")

    @staticmethod
    def heard_eid(beacon_id):
        """The EID a listener hears now of a beacon seeded here (its registration's EID: the seed's
        clock is at the start of a 128 s period)."""
        return b64(bytes.fromhex(beacon_id[2:]))

    # --- event streams and the served document ---

    def document(self):
        import yaml
        with open(SPEC) as f:
            return yaml.safe_load(f)

    def validate(self, document, ref, value):
        """Checks `value` against the schema `ref` (#/components/...) of the document."""
        import jsonschema_rs
        validator = jsonschema_rs.Draft4Validator({"$ref": ref, "components": document["components"]})
        errors = [f"{error.instance_path}: {error.message}" for error in validator.iter_errors(value)]
        self.assertEqual(errors, [], f"{value!r} against {ref}")

    def assert_documented_error(self, document, path, status, headers, payload):
        """The refusal's status is one the operation documents, in the error shape."""
        operation = document["paths"][path]["get"]
        self.assertIn(str(status), operation["responses"], f"GET {path} answered an undocumented {status}: {payload!r}")
        self.assertTrue(headers.get("content-type", "").startswith("application/json"), headers)
        self.validate(document, "#/components/schemas/Error", json.loads(payload))

    def first_event(self, path, query, key=None):
        """(status, content type, first event name, its data) of an event stream (`key` in X-Api-Key);
        the stream is then dropped."""
        connection = http.client.HTTPConnection("127.0.0.1", self.hub.port, timeout=30)
        try:
            connection.request("GET", path + "?" + urllib.parse.urlencode(query), headers={"X-Api-Key": key} if key else {})
            response = connection.getresponse()
            event, data = None, []
            while True:
                raw = response.fp.readline()
                self.assertTrue(raw, f"{path}: the stream ended before its first event")
                line = raw.decode().rstrip("\r\n")
                if line == "" and (event or data):
                    break
                if line.startswith("event:"):
                    event = line[6:].strip()
                elif line.startswith("data:"):
                    data.append(line[5:].strip())
            return response.status, response.getheader("Content-Type", ""), event, json.loads("\n".join(data))
        finally:
            connection.close()

    def test_event_streams(self):
        document = self.document()
        beacon = "3!0a0b0c0d"   # a beacon of this test's own: the schemathesis runs delete theirs
        self.ok("POST", "/v1beta1/beacons:register", {"advertisedId": {"type": "EDDYSTONE", "id": b64(bytes.fromhex("0a0b0c0d"))}})
        self.ok("POST", f"/v1beta1/beacons/{beacon}/attachments", {"namespacedType": "demo/slide", "data": b64(b"one")})
        deck = self.seed()["path.deck"]
        self.ok("PUT", f"/v1/shows/{beacon}", {"deck": deck, "page": 2})
        streams = [("/v1beta1/beacons/{beacon}/attachments:watch", "attachments", "#/components/schemas/AttachmentList"),
                   ("/v1/shows/{beacon}/events", "show", "#/components/schemas/Show")]
        for template, name, ref in streams:
            path = template.replace("{beacon}", beacon)
            with self.subTest(path=template):
                status, kind, event, data = self.first_event(path, {}, key=self.secret)
                self.assertEqual(status, 200)
                self.assertIn("text/event-stream", document["paths"][template]["get"]["responses"]["200"]["content"])
                self.assertTrue(kind.startswith("text/event-stream"), kind)
                self.assertEqual(event, name)
                self.validate(document, ref, data)
                # With the public key and a watchToken, as a listener follows it.
                token = self.hub.watch_token(self.public, {"advertisedId": {"type": "EDDYSTONE", "id": b64(bytes.fromhex("0a0b0c0d"))}})
                status, kind, event, data = self.first_event(path, {"key": self.public, "token": token})
                self.assertEqual((status, event), (200, name))
                self.validate(document, ref, data)
                # Refusals: no key, a bad key, the public key without a token, the secret key in the
                # address, a malformed and an unknown beacon.
                for query, key, target, expected in [({}, None, path, 401), ({"key": "ncsec_nobody"}, None, path, 403),
                                                     ({"key": self.public}, None, path, 403), ({"key": self.secret}, None, path, 403),
                                                     ({}, self.secret, template.replace("{beacon}", "5!zz"), 400),
                                                     ({}, self.secret, template.replace("{beacon}", "3!ffffffff"), 404)]:
                    status, headers, payload = self.call("GET", target + "?" + urllib.parse.urlencode(query), key=key)
                    self.assertEqual(status, expected, payload)
                    self.assert_documented_error(document, template, status, headers, payload)

    def test_the_hub_serves_the_document_beside_the_listener_page(self):
        status, headers, payload = self.call("GET", "/openapi.yaml")
        self.assertEqual(status, 200)
        self.assertTrue(headers["content-type"].startswith("application/yaml"), headers)
        with open(SPEC, "rb") as f:
            self.assertEqual(payload, f.read())
        import yaml
        served = yaml.safe_load(payload)
        self.assertTrue(served["openapi"].startswith("3.0."))
        # Every route the hub registers is in it (the controllers in hub/Sources/NearcastHub/controllers; the listener's files by name).
        for path in ["/v1beta1/eidparams", "/v1beta1/beacons:register", "/v1beta1/beacons", "/v1beta1/beacons/{beacon}",
                     "/v1beta1/beacons/{beacon}/heartbeat", "/v1beta1/beacons/{beacon}/attachments",
                     "/v1beta1/beacons/{beacon}/attachments/{attachment}", "/v1beta1/beacons/{beacon}/attachments:batchDelete",
                     "/v1beta1/beacons/{beacon}/attachments:watch", "/v1beta1/beaconinfo:getforobserved", "/v1beta1/fieldchecks", "/v1/reach",
                     "/v1/decks", "/v1/decks/{deck}", "/v1/decks/{deck}/pages/{page}", "/v1/shows/{beacon}",
                     "/v1/shows/{beacon}/qr.svg", "/v1/shows/{beacon}/events", "/v1/reactions/choices",
                     "/v1/reactions/images/{name}", "/v1/reactions", "/v1/presence", "/j/{code}", "/", "/healthz",
                     "/metrics", "/hub-reach.js", "/listen", "/present", "/listener-hub.json", "/openapi.yaml"]:
            self.assertIn(path, served["paths"])


class PostgresOpenAPITests(OpenAPITests, unittest.TestCase):
    database_kind = "postgres"


if __name__ == "__main__":
    unittest.main()
