"""A simulated box publishes messages through a real hub: the real `nearcast run --board sim`
process and the real `nearcast-hub serve`, talking HTTP through curl. The box's audio is decoded
with `nearcast decode` and what it heard is resolved by getforobserved, as a phone would."""
import base64
import json
import os
import re
import signal
import subprocess
import tempfile
import time
import unittest

from hubtest import NEARCAST, Database, Hub, console, create_project, free_port, start_sim_box, unb64
from tlsproxy import TLSProxy


def retry_in(status):
    """The seconds until the hub link's next try, as the console's `status` says them; -1 without."""
    match = re.search(r"\(retry in (\d+) s\)", status)
    return int(match.group(1)) if match else -1


def decoded_eids(wav):
    result = subprocess.run([NEARCAST, "decode", wav, "--json"], capture_output=True, text=True, check=True)
    tokens = [json.loads(line) for line in result.stdout.splitlines() if line.strip()]
    return sorted({t["payload"] for t in tokens if t["kind"] == "eid"})


class BoxPublishesThroughTheHub(unittest.TestCase):
    def setUp(self):
        self.database = Database("sqlite")
        self.keys = create_project(self.database.url, "demo")
        self.port = free_port()
        self.hub = Hub(self.database.url, port=self.port)
        self.state = tempfile.mkdtemp(prefix="nearcast-box-")
        self.box = None

    def tearDown(self):
        if self.box and self.box.poll() is None:
            self.box.send_signal(signal.SIGTERM)
            self.box.wait(timeout=30)
        if self.hub:
            self.hub.stop()
        if self._outcome.success is False:
            if self.hub:
                print(self.hub.stderr())
            log = os.path.join(self.state, "box.log")
            if os.path.exists(log):
                print(open(log).read()[-6000:])
        self.database.drop()

    def start_box(self, *publish, duration=None, extra=(), hub_url=None):
        self.box = start_sim_box(self.state, hub_url or f"http://127.0.0.1:{self.port}", self.keys["secretKey"], publish,
                                 os.path.join(self.state, "box.log"),
                                 extra=(*extra, *(["--duration", str(duration)] if duration else [])))
        return self.box

    def box_log(self):
        with open(os.path.join(self.state, "box.log")) as f:
            return f.read()

    def observe(self, eids):
        status, body = self.hub.post("/v1beta1/beaconinfo:getforobserved",
                                     {"observations": [{"advertisedId": {"type": "EDDYSTONE_EID",
                                                                         "id": base64.b64encode(bytes.fromhex(e)).decode()}}
                                                       for e in eids],
                                      "namespacedTypes": ["*"]}, key=self.keys["apiKey"])
        self.assertEqual(status, 200, body)
        return body["beacons"]

    def wait_for(self, condition, timeout, what):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            value = condition()
            if value:
                return value
            time.sleep(0.25)
        self.fail(f"{what} did not happen in {timeout} s")

    def hub_texts(self):
        status, listed = self.hub.get("/v1beta1/beacons", key=self.keys["secretKey"])
        if status != 200 or not listed["beacons"]:
            return None
        name = listed["beacons"][0]["beaconName"]
        status, attachments = self.hub.get(f"/v1beta1/{name}/attachments", key=self.keys["secretKey"])
        return [unb64(a["data"]).decode() for a in attachments["attachments"]] if status == 200 else None

    def test_the_box_s_audio_resolves_to_its_message_through_the_hub(self):
        box = self.start_box("message:demo/slide:Slide 1", "direct:c0ffee", duration=8)
        self.assertEqual(box.wait(timeout=60), 0, self.box_log())
        log = self.box_log()
        self.assertIn("hub: derived the box's EID identity", log)
        self.assertIn("hub: registered the box", log)
        eids = decoded_eids(os.path.join(self.state, "audio.wav"))
        self.assertEqual(len(eids), 1, "one EID: the box's hub identity")
        [beacon] = self.observe(eids)
        self.assertEqual([(a["namespacedType"], unb64(a["data"])) for a in beacon["attachments"]], [("demo/slide", b"Slide 1")])
        # The heartbeat carried the box's state; the identity key never left the box.
        status, listed = self.hub.get("/v1beta1/beacons", key=self.keys["secretKey"])
        self.assertEqual(listed["beacons"][0]["heartbeat"]["status"], "broadcasting 2 publications")
        with open(os.path.join(self.state, "hub.json")) as f:
            identity_key = json.load(f)["identityKey"]
        self.assertNotIn(identity_key, self.hub.stderr())
        self.assertEqual(oct(os.stat(os.path.join(self.state, "hub.json")).st_mode & 0o777), "0o600")

        # A second start keeps the identity: the message is on air from the first burst, and
        # nothing is registered again.
        os.remove(os.path.join(self.state, "audio.wav"))
        box = self.start_box("message:demo/slide:Slide 1", duration=3)
        self.assertEqual(box.wait(timeout=60), 0)
        second = self.box_log()[len(log):]
        self.assertNotIn("derived", second)
        self.assertNotIn("registered", second)
        first_burst = subprocess.run([NEARCAST, "decode", os.path.join(self.state, "audio.wav"), "--json"],
                                     capture_output=True, text=True, check=True).stdout.splitlines()[0]
        self.assertEqual(json.loads(first_burst)["payload"], eids[0])
        self.assertLess(json.loads(first_burst)["offset_s"], 0.1)

    def test_changes_wait_while_the_hub_is_down_and_reach_it_when_it_is_back(self):
        self.start_box("message:demo/slide:Slide 1")
        self.wait_for(lambda: self.hub_texts() == ["Slide 1"], 30, "the first slide reaching the hub")
        self.hub.stop()
        self.hub = None
        reply = console(self.state, "publish message demo/slide Slide 2")
        self.assertIn("published 8: demo/slide \"Slide 2\"", reply)
        status = self.wait_for(lambda: (lambda s: s if "unreachable" in s else None)(console(self.state, "status")), 20,
                               "status saying the hub is unreachable")
        self.assertIn("message changes waiting to be sent", status)
        self.assertIn("retry in", status)
        # A few retries fail while it is down: the backoff (1, 2, 4, 8 s) shows a wait of 3 s or
        # more only after the third failure in a row.
        self.wait_for(lambda: retry_in(console(self.state, "status")) >= 3, 30,
                      "a third failed retry while the hub is down (status: retry in 3 s or more)")
        self.hub = Hub(self.database.url, port=self.port)
        started = time.monotonic()
        self.wait_for(lambda: self.hub_texts() == ["Slide 2"], 90, "the queued change reaching the restarted hub")
        print(f"\n  the queued change reached the restarted hub {time.monotonic() - started:.1f} s after it came back")
        self.wait_for(lambda: "in sync (1 message attached)" in console(self.state, "status"), 10, "status in sync")
        as_json = json.loads(next(line for line in console(self.state, "status --json").splitlines() if line.startswith("{")))
        self.assertEqual(as_json["hub"]["state"], "registered")
        self.assertTrue(as_json["hub"]["in_sync"])
        self.assertIsNone(as_json["hub"]["last_error"])
        # Unpublishing removes the message from the hub too.
        console(self.state, "unpublish 8")
        self.wait_for(lambda: self.hub_texts() == [], 30, "the unpublished message leaving the hub")

    def test_https_through_a_tls_proxy_checks_the_certificate(self):
        proxy = TLSProxy(self.port)
        try:
            # Without the venue's CA the box refuses the proxy's certificate, says why, and
            # broadcasts regardless.
            self.start_box("message:demo/slide:over TLS", "direct:c0ffee", hub_url=f"https://127.0.0.1:{proxy.port}")
            self.wait_for(lambda: "certificate" in self.box_log(), 30, "the certificate being refused")
            self.wait_for(lambda: "burst #3" in self.box_log(), 30, "broadcasting going on regardless")
            self.assertIn("SSL certificate problem", console(self.state, "status"))
            self.assertIsNone(self.hub_texts())
            self.box.send_signal(signal.SIGTERM)
            self.assertEqual(self.box.wait(timeout=30), 0)
            # With it (--hub-ca), everything goes through.
            self.start_box("message:demo/slide:over TLS", hub_url=f"https://127.0.0.1:{proxy.port}", extra=["--hub-ca", proxy.ca])
            self.wait_for(lambda: self.hub_texts() == ["over TLS"], 30, "the message reaching the hub through TLS")
            self.assertGreater(proxy.handshake_failures, 0)
        finally:
            proxy.close()

    def test_a_message_needs_a_hub_and_bad_hub_flags_are_refused(self):
        result = subprocess.run([NEARCAST, "run", "--board", "sim", "--state-dir", self.state, "--console", "none",
                                 "--duration", "1", "--publish", "message:demo/slide:x"], capture_output=True, text=True)
        self.assertNotEqual(result.returncode, 0)
        self.assertIn("through a hub", result.stderr + result.stdout)
        # From the config file (or saved settings), a message with no hub is skipped, not fatal.
        config = os.path.join(self.state, "nearcast.json5")
        with open(config, "w") as f:
            f.write('{ publications: ["message:demo/slide:x", "direct:c0ffee"] }')
        result = subprocess.run([NEARCAST, "run", "--board", "sim", "--state-dir", self.state, "--console", "none",
                                 "--duration", "2", "--config", config], capture_output=True, text=True)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn(f"error: {config}: publication 'message:demo/slide:x@both' skipped: a message is published through a hub",
                      result.stdout)
        self.assertIn("burst #1 audio direct c0ffee", result.stdout)
        for flags, expected in [(["--hub", "ftp://x"], "--hub-key"),
                                (["--hub", "ftp://x", "--hub-key", "k"], "http(s)://"),
                                (["--hub-key", "k"], "--hub URL"),
                                (["--publish", "message:slide:x", "--hub", "http://h", "--hub-key", "k"], "NAMESPACE/TYPE")]:
            with self.subTest(flags=flags):
                result = subprocess.run([NEARCAST, "run", "--board", "sim", "--state-dir", self.state, "--duration", "1", *flags],
                                        capture_output=True, text=True)
                self.assertEqual(result.returncode, 64, result.stderr)
                self.assertIn(expected, result.stderr)


if __name__ == "__main__":
    unittest.main()
