"""The listener page (web/, built by tools/setup/build-web) in a real browser: Debian's Chromium,
headless, driven through WebDriver, with a fake microphone fed from a WAV file.

A simulated box publishes a message through a real hub; its audio, passed through one of the
bench's rooms (`nearcast bench channel --condition room-a`), is the page's microphone. The page
must decode it with the WebAssembly build of the box's own decoder, have the hub resolve it and
show the message in `#heard`, and follow a change the presenter makes on the box's console. The
decoder itself is compared with `nearcast decode` on the bench's conditions (decode.html). The
phone-id worker's nonces are checked with hashlib, for challenges of every length modulo 64.

NEARCAST_WEB_DIR is the page's directory (default: .build/web at the repository's top)."""
import array
import base64
import functools
import hashlib
import http.server
import json
import math
import os
import random
import shutil
import signal
import struct
import subprocess
import tempfile
import threading
import time
import unittest

from hubtest import (NEARCAST, Database, Hub, b64, chromium, console, console_answers, create_project, have_chromium,
                     pdf_deck, start_sim_box, upload_deck)

try:
    from selenium.webdriver.common.by import By
except ImportError:  # tools/setup/install-deps installs it
    pass

WEB = os.environ.get("NEARCAST_WEB_DIR", os.path.join(os.path.dirname(__file__), "..", "..", ".build", "web"))


# --- WAV files ---------------------------------------------------------------------------------

def read_wav(path):
    """(rate, samples as floats) of a mono 16-bit PCM or 32-bit float WAV file."""
    data = open(path, "rb").read()
    assert data[:4] == b"RIFF" and data[8:12] == b"WAVE", f"{path}: not a WAV file"
    offset, fmt = 12, None
    while offset + 8 <= len(data):
        chunk, size = data[offset:offset + 4], struct.unpack_from("<I", data, offset + 4)[0]
        body = data[offset + 8:offset + 8 + size]
        if chunk == b"fmt ":
            fmt = struct.unpack_from("<HHIIHH", body)
        elif chunk == b"data":
            tag, channels, rate, _, _, bits = fmt
            assert channels == 1, f"{path}: {channels} channels"
            samples = array.array("f" if (tag, bits) == (3, 32) else "h")
            samples.frombytes(body[:len(body) - len(body) % samples.itemsize])
            scale = 1.0 if samples.typecode == "f" else 1 / 32768
            return rate, [s * scale for s in samples]
        offset += 8 + size + (size & 1)
    raise AssertionError(f"{path}: no data chunk")


def write_pcm16(path, rate, samples):
    """Chromium's fake microphone reads 16-bit PCM; louder than full scale is scaled down, not clipped."""
    peak = max(1e-9, max(abs(s) for s in samples))
    gain = min(1.0, 0.9 / peak)
    pcm = array.array("h", (int(round(s * gain * 32767)) for s in samples))
    with open(path, "wb") as f:
        f.write(b"RIFF" + struct.pack("<I", 36 + 2 * len(pcm)) + b"WAVE")
        f.write(b"fmt " + struct.pack("<IHHIIHH", 16, 1, 1, rate, 2 * rate, 2, 16))
        f.write(b"data" + struct.pack("<I", 2 * len(pcm)) + pcm.tobytes())


def through_room(source, target, condition="room-a", seed=2):
    """`source` through one of the bench's channel conditions, as 16-bit PCM."""
    received = target + ".float.wav"
    subprocess.run([NEARCAST, "bench", "channel", "--condition", condition, "--seed", str(seed), source, received],
                   check=True, capture_output=True)
    rate, samples = read_wav(received)
    write_pcm16(target, rate, samples)
    os.remove(received)


# Each field of `nearcast decode --json` with the decimals it is printed with: two decoders that
# computed the same value may still print it one unit apart in the last place (JavaScript's
# toFixed and the box's formatter round a value that sits on a half differently).
PRINTED_DECIMALS = {"offset_s": 6, "sync": 3, "snr_db": 1, "time_scale_ppm": 0, "tonal_share": 3}


def same_bursts(first, second):
    """Whether two `--json` token lists are the same tokens, in order, with the same figures
    (up to one unit in the last printed place)."""
    if len(first) != len(second):
        return False
    for a, b in zip(first, second):
        if (a["payload"], a["kind"], a["band"], a["format"], a["copies"]) != (b["payload"], b["kind"], b["band"], b["format"], b["copies"]):
            return False
        if any(abs(a[field] - b[field]) > 1.01 * 10 ** -decimals for field, decimals in PRINTED_DECIMALS.items()):
            return False
    return True


def native_decode(path):
    result = subprocess.run([NEARCAST, "decode", path, "--json"], capture_output=True, text=True, check=True)
    return [json.loads(line) for line in result.stdout.splitlines() if line.strip()]


# --- A static file server, for the page served somewhere other than the hub ----------------------

class StaticPage:
    """`directory` over HTTP on loopback, with the isolation headers the page needs."""

    def __init__(self, directory, isolated=True):
        class Handler(http.server.SimpleHTTPRequestHandler):
            extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map,
                              ".wasm": "application/wasm", ".js": "text/javascript"}

            def end_headers(self):
                if isolated:
                    self.send_header("Cross-Origin-Opener-Policy", "same-origin")
                    self.send_header("Cross-Origin-Embedder-Policy", "require-corp")
                super().end_headers()

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Handler, directory=directory))
        self.port = self.server.server_port
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self):
        self.server.shutdown()
        self.server.server_close()


# --- The page --------------------------------------------------------------------------------

def fake_microphone(wav):
    return ("--use-fake-ui-for-media-stream", "--use-fake-device-for-media-stream",
            f"--use-file-for-fake-audio-capture={wav}", "--autoplay-policy=no-user-gesture-required")


def open_details(browser):
    """Opens the page's "Details" (closed for the audience): the diagnostics these tests read."""
    details = browser.find_element(By.ID, "details")
    if details.get_attribute("open") is None:
        details.find_element(By.TAG_NAME, "summary").click()


def heard_lines(browser):
    return [line for line in browser.find_element(By.ID, "heard").text.splitlines() if line.strip()]


def message_texts(browser):
    """The messages the person holding the phone reads, outside Details."""
    return [item.text for item in browser.find_elements(By.CSS_SELECTOR, "#message-list > li")]


# Records what the page asks the hub for: the types each resolve names, every event stream opened
# and every other request's address.
RECORD_REQUESTS = """
    window.__asked = { resolves: [], watches: [], requests: [] };
    const realFetch = window.fetch;
    window.fetch = (url, options) => {
      if (String(url).includes("getforobserved")) window.__asked.resolves.push(JSON.parse(options.body).namespacedTypes);
      else window.__asked.requests.push(String(url));
      return realFetch(url, options);
    };
    const RealEventSource = window.EventSource;
    window.EventSource = function (url, init) {
      window.__asked.watches.push(String(url));
      return new RealEventSource(url, init);
    };
    window.EventSource.CLOSED = RealEventSource.CLOSED;"""


def wait_until(condition, timeout, what, browser=None):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.1)
    detail = ""
    if browser is not None:
        detail = (f"\nstate: {browser.find_element(By.ID, 'state').text!r}"
                  f"\nhearing: {browser.find_element(By.ID, 'hearing').get_attribute('textContent')!r}"
                  f"\nheard: {heard_lines(browser)!r}\ntokens: {browser.find_element(By.ID, 'tokens').text!r}"
                  f"\nconsole: {[entry['message'] for entry in browser.get_log('browser')]}")
    raise AssertionError(f"{what} did not happen in {timeout} s{detail}")


class HubAndRecordedBox:
    """For a test class: one hub on SQLite serving the page, a project named `project`, and
    `microphone`: a simulated box's 8 s publishing `publications` through the hub (an EID too),
    passed through the bench's room A."""

    project = "demo"
    publications = []

    @classmethod
    def setUpClass(cls):
        cls.work = tempfile.mkdtemp(prefix="nearcast-listener-")
        cls.state = os.path.join(cls.work, "box")
        cls.database = Database("sqlite")
        cls.keys = create_project(cls.database.url, cls.project)
        cls.hub = Hub(cls.database.url, extra=("--listener", WEB))
        cls.box = None
        cls.run_box("--duration", "8").wait(timeout=60)
        cls.microphone = os.path.join(cls.work, "room-a.wav")
        through_room(os.path.join(cls.state, "audio.wav"), cls.microphone)

    @classmethod
    def run_box(cls, *extra):
        cls.box = start_sim_box(cls.state, f"http://127.0.0.1:{cls.hub.port}", cls.keys["secretKey"],
                                cls.publications, os.path.join(cls.work, "box.log"), extra)
        return cls.box

    @classmethod
    def tearDownClass(cls):
        if cls.box and cls.box.poll() is None:
            cls.box.send_signal(signal.SIGTERM)
            cls.box.wait(timeout=30)
        cls.hub.stop()
        cls.database.drop()
        shutil.rmtree(cls.work, ignore_errors=True)


@unittest.skipIf(not have_chromium(), "needs selenium and Debian's chromium")
@unittest.skipUnless(os.path.exists(os.path.join(WEB, "nearcast-modem.wasm")), "needs the page: tools/setup/build-web")
class ListenerPageHearsTheBox(HubAndRecordedBox, unittest.TestCase):
    """One hub and one box's recording for every test: the box publishes `demo/slide Slide 1`
    (an EID through the hub) and a direct token c0ffee, for 8 s."""

    publications = ["message:demo/slide:Slide 1", "direct:c0ffee"]

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.native = native_decode(cls.microphone)

    def setUp(self):
        self.browser = None

    def tearDown(self):
        if self.browser:
            self.browser.quit()
        if self._outcome.success is False:
            print(self.hub.stderr()[-4000:])
            with open(os.path.join(self.work, "box.log")) as f:
                print(f.read()[-4000:])

    def hub_lines(self):
        """What the hub holds for the box now, as the page shows it (another test may have changed it)."""
        status, listed = self.hub.get("/v1beta1/beacons", key=self.keys["secretKey"])
        self.assertEqual(status, 200, listed)
        name = listed["beacons"][0]["beaconName"]
        status, attachments = self.hub.get(f"/v1beta1/{name}/attachments", key=self.keys["secretKey"])
        self.assertEqual(status, 200, attachments)
        return [f"{a['namespacedType']} {base64.b64decode(a['data']).decode()}" for a in attachments["attachments"]]

    def open_page(self, url, microphone=None):
        self.browser = chromium(*fake_microphone(microphone or self.microphone))
        self.browser.get(url)
        open_details(self.browser)
        return self.browser

    def test_the_recording_holds_the_box_s_eid_and_direct_token(self):
        # What the page is fed, checked with the native decoder first (so a failure below is the page's).
        kinds = {(t["kind"], t["payload"]) for t in self.native}
        self.assertIn(("direct", "c0ffee"), kinds)
        self.assertEqual(len([k for k in kinds if k[0] == "eid"]), 1, kinds)

    def test_the_page_served_by_the_hub_shows_the_message_and_follows_the_presenter(self):
        browser = self.open_page(f"http://127.0.0.1:{self.hub.port}/listen?key={self.keys['apiKey']}")
        self.assertEqual(self.hub_lines(), ["demo/slide Slide 1"], "the box's message, as this test starts")
        wait_until(lambda: heard_lines(browser) == ["demo/slide Slide 1"], 60, "the message showing", browser)
        first_ms = float(browser.find_element(By.ID, "heard").get_attribute("data-first-message-ms"))
        # The audience reads words; the rate is in Details.
        self.assertEqual(browser.find_element(By.ID, "state").text, "Listening for the room…")
        self.assertRegex(browser.find_element(By.ID, "hearing").text, r"^Listening at (48\.0|44\.1) kHz$")
        self.assertGreater(float(browser.find_element(By.ID, "band-level").get_attribute("data-db")), -110)
        wait_until(lambda: "direct c0ffee" in browser.find_element(By.ID, "tokens").text, 30, "the direct token", browser)
        self.assertIn("not known to the hub", browser.find_element(By.ID, "tokens").text)

        # The presenter moves to the next slide on the box's console: the box updates the hub,
        # the hub's watch tells the page.
        self.run_box()
        # The box up again and its hub link in sync (the socket file alone may be the last run's),
        # so the time below is the change's alone.
        wait_until(lambda: "in sync" in (console_answers(self.state) or ""), 30, "the restarted box's console saying the hub is in sync")
        changed = time.monotonic()
        self.assertIn('demo/slide "Slide 2"', console(self.state, "publish message demo/slide Slide 2"))
        wait_until(lambda: heard_lines(browser) == ["demo/slide Slide 2"], 30, "the page following the change", browser)
        box_to_page = time.monotonic() - changed

        # An operator adds a message through the hub's API: the watch alone carries it.
        status, listed = self.hub.get("/v1beta1/beacons", key=self.keys["secretKey"])
        self.assertEqual(status, 200, listed)
        name = listed["beacons"][0]["beaconName"]
        added = time.monotonic()
        status, _ = self.hub.post(f"/v1beta1/{name}/attachments", {"namespacedType": "demo/note", "data": b64("Break at 15:00".encode())},
                                  key=self.keys["secretKey"])
        self.assertEqual(status, 200)
        wait_until(lambda: "demo/note Break at 15:00" in heard_lines(browser), 10, "the operator's message", browser)
        hub_to_page = time.monotonic() - added
        stats = browser.find_element(By.ID, "stats")
        shot = os.environ.get("NEARCAST_LISTENER_SCREENSHOT")
        if shot:
            browser.set_window_size(480, 760)
            browser.save_screenshot(shot)
        print(f"\nlistener: first message {first_ms / 1000:.2f} s after the page opened; console change on the page "
              f"after {box_to_page:.2f} s, hub change after {hub_to_page:.2f} s; decoder "
              f"{stats.get_attribute('data-decode-ms-per-audio-second')} ms CPU per audio second "
              f"over {stats.get_attribute('data-audio-seconds')} s")

    def test_resolves_carry_no_attachments_and_one_watch_per_box_brings_its_messages(self):
        # A beacon's attachments may be big (100 KiB each): the page never asks for them when it
        # resolves (it resolves often), and follows each box's messages through one watch, which
        # sends them once per change. Record what the page asks the hub for.
        self.browser = chromium(*fake_microphone(self.microphone))
        self.browser.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": RECORD_REQUESTS})
        browser = self.browser
        browser.get(f"http://127.0.0.1:{self.hub.port}/listen?key={self.keys['apiKey']}")
        asked = lambda: browser.execute_script("return window.__asked")  # noqa: E731
        wait_until(lambda: len(asked()["resolves"]) >= 2, 60, "the page resolving what it hears", browser)
        self.assertEqual([types for types in asked()["resolves"]], [[]] * len(asked()["resolves"]), "no attachments asked for")
        texts = [line.split(" ", 1)[1] for line in self.hub_lines()]
        wait_until(lambda: message_texts(browser) == texts, 30, "the messages, with Details closed", browser)
        self.assertIsNone(browser.find_element(By.ID, "details").get_attribute("open"))
        self.assertEqual(len([url for url in asked()["watches"] if "attachments:watch" in url]), 1, "one watch for the one box")
        open_details(browser)
        wait_until(lambda: heard_lines(browser) == self.hub_lines(), 30, "the messages in Details, with their types", browser)

    def test_the_page_served_elsewhere_resolves_through_the_hub_named_in_its_address(self):
        static = StaticPage(WEB)
        try:
            browser = self.open_page(f"http://127.0.0.1:{static.port}/listen.html?key={self.keys['apiKey']}"
                                     f"&hub=http://127.0.0.1:{self.hub.port}")
            expected = self.hub_lines()
            wait_until(lambda: heard_lines(browser) == expected, 60, f"{expected} showing", browser)
            # The watch, cross-origin too: an attachment added now appears, and goes again.
            status, listed = self.hub.get("/v1beta1/beacons", key=self.keys["secretKey"])
            name = listed["beacons"][0]["beaconName"]
            status, added = self.hub.post(f"/v1beta1/{name}/attachments",
                                          {"namespacedType": "demo/room", "data": b64("Hall B".encode())}, key=self.keys["secretKey"])
            self.assertEqual(status, 200, added)
            wait_until(lambda: "demo/room Hall B" in heard_lines(browser), 10, "the added attachment", browser)
            self.assertEqual(self.hub.delete(f"/v1beta1/{added['attachmentName']}", key=self.keys["secretKey"])[0], 200)
            wait_until(lambda: heard_lines(browser) == expected, 10, "the removed attachment going", browser)
            self.assertEqual(browser.find_element(By.ID, "state").get_attribute("data-state"), "listening")
        finally:
            static.stop()

    def test_without_a_hub_the_page_shows_the_tokens_it_hears(self):
        static = StaticPage(WEB)
        try:
            browser = self.open_page(f"http://127.0.0.1:{static.port}/listen.html")
            wait_until(lambda: "direct c0ffee" in browser.find_element(By.ID, "tokens").text, 60, "the direct token", browser)
            self.assertIn("no hub", browser.find_element(By.ID, "hearing").text)
            self.assertEqual(heard_lines(browser), [])
        finally:
            static.stop()

    def test_a_microphone_that_passes_nothing_in_the_band_is_reported(self):
        tone = os.path.join(self.work, "tone-1khz.wav")
        write_pcm16(tone, 48_000, [0.3 * math.sin(2 * math.pi * 1000 * i / 48_000) for i in range(48_000 * 2)])
        browser = self.open_page(f"http://127.0.0.1:{self.hub.port}/listen?key={self.keys['apiKey']}", microphone=tone)
        wait_until(lambda: "No sound reaches this page at 18.5–20 kHz" in browser.find_element(By.ID, "hearing").text, 30,
                   "the silent-band warning", browser)
        # The audience is told in words, and offered the code at once (the page knows it hears nothing).
        self.assertEqual(browser.find_element(By.ID, "state").get_attribute("data-state"), "join")
        self.assertTrue(browser.find_element(By.ID, "join-by-code").is_displayed())
        self.assertIn("No sound from the room's box reaches this phone's microphone", browser.find_element(By.ID, "code-why").text)

    def test_a_listener_directory_without_the_page_is_refused_at_start(self):
        empty = tempfile.mkdtemp(prefix="nearcast-no-page-", dir=self.work)
        for directory, says in [(empty, "lacks listen.html, listener.js, nearcast-modem.wasm"),
                                (os.path.join(self.work, "absent"), "is not a directory")]:
            result = subprocess.run([self.hub.binary, "serve", "--listen", "127.0.0.1:0", "--db", self.database.url,
                                     "--listener", directory], capture_output=True, text=True, timeout=60)
            self.assertNotEqual(result.returncode, 0)
            self.assertIn(f"--listener {directory}", result.stderr)
            self.assertIn(says, result.stderr)

    def test_the_hub_serves_the_page_with_isolation_headers_and_refuses_unknown_files(self):
        for path, kind in [("/listen?key=x", "text/html"), ("/listener-worker.js", "text/javascript"),
                           ("/nearcast-modem.wasm", "application/wasm"), ("/decode.html", "text/html")]:
            status, headers = self.hub.headers("GET", path)
            self.assertEqual(status, 200, path)
            self.assertTrue(headers["content-type"].startswith(kind), (path, headers))
            self.assertEqual(headers["cross-origin-opener-policy"], "same-origin")
            self.assertEqual(headers["cross-origin-embedder-policy"], "require-corp")
        for path in ("/listen/../../etc/passwd", "/../web/page/listener.js", "/hubtest.py", "/listen.html/x"):
            self.assertEqual(self.hub.headers("GET", path)[0], 404, path)
        # A page served elsewhere may call the API: the preflight of getforobserved is answered.
        status, headers = self.hub.headers("OPTIONS", "/v1beta1/beaconinfo:getforobserved",
                                           {"Origin": "https://pages.example", "Access-Control-Request-Method": "POST",
                                            "Access-Control-Request-Headers": "content-type"})
        self.assertLess(status, 300)
        self.assertEqual(headers.get("access-control-allow-origin"), "*")
        self.assertIn("POST", headers.get("access-control-allow-methods", ""))
        # Only the API: another site's page may not read the hub's metrics or health.
        for path in ("/metrics", "/healthz", "/listen"):
            status, headers = self.hub.headers("GET", path, {"Origin": "https://pages.example"})
            self.assertNotIn("access-control-allow-origin", headers, path)


@unittest.skipIf(not have_chromium(), "needs selenium and Debian's chromium")
@unittest.skipUnless(os.path.exists(os.path.join(WEB, "nearcast-modem.wasm")), "needs the page: tools/setup/build-web")
class ListenerPageShowsTheRoomsMessages(HubAndRecordedBox, unittest.TestCase):
    """A box of the project `web` with no show publishes an event's text and a link through the
    hub: the person holding the phone reads them, Details closed, as what they are."""

    EVENT = 'Doors close at 19:30 <b>sharp</b> <img src=x onerror="document.title=\'injected\'"> & bring a pen'
    LINK = "https://example.org/programme?day=2&room=a"
    project = "web"
    publications = [f"message:web/event:{EVENT}", f"message:web/link:See {LINK}."]

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        status, listed = cls.hub.get("/v1beta1/beacons", key=cls.keys["secretKey"])
        assert status == 200 and len(listed["beacons"]) == 1, listed
        cls.beacon = listed["beacons"][0]["beaconName"].removeprefix("beacons/")

    def setUp(self):
        self.browser = chromium(*fake_microphone(self.microphone))
        self.browser.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": RECORD_REQUESTS})

    def tearDown(self):
        if self._outcome.success is False:
            print(self.browser.execute_script("return document.body.innerText")[:3000])
            print(self.hub.stderr()[-3000:])
        self.browser.quit()
        self.assertIn(self.hub.delete(f"/v1/shows/{self.beacon}", key=self.keys["secretKey"])[0], (200, 404))

    def open_page(self):
        self.browser.get(f"http://127.0.0.1:{self.hub.port}/listen?key={self.keys['apiKey']}")
        return self.browser

    def test_the_box_s_messages_show_as_text_and_links_and_the_page_says_it_heard_the_room(self):
        browser = self.open_page()
        wait_until(lambda: len(message_texts(browser)) == 2, 60, "the box's two messages", browser)
        self.assertIsNone(browser.find_element(By.ID, "details").get_attribute("open"), "Details stays closed")
        self.assertTrue(browser.find_element(By.ID, "messages").is_displayed())
        self.assertTrue(browser.execute_script("return document.getElementById('messages').closest('details') === null"))
        # Text as text: the markup in it is shown as written, never made into elements.
        self.assertEqual(message_texts(browser), [self.EVENT, f"See {self.LINK}."])
        self.assertEqual(browser.find_elements(By.CSS_SELECTOR, "#message-list b, #message-list img"), [])
        self.assertNotEqual(browser.title, "injected")
        # A link as a link: the address alone (not the sentence's full stop), opening elsewhere.
        links = browser.find_elements(By.CSS_SELECTOR, "#message-list a")
        self.assertEqual([(a.get_attribute("href"), a.text) for a in links], [(self.LINK, self.LINK)])
        self.assertEqual(links[0].get_attribute("rel"), "noopener noreferrer")
        # The page heard the room: the code is still offered (for a show on another screen), but
        # never with the claim that this phone has not heard the room.
        form = browser.find_element(By.ID, "join-by-code")
        wait_until(form.is_displayed, 30, "the code offered once the page has listened 8 s", browser)
        time.sleep(1.5)   # the page's once-a-second check runs again
        self.assertNotIn("has not heard the room", browser.execute_script("return document.body.innerText"))
        self.assertEqual(browser.find_element(By.ID, "state").get_attribute("data-state"), "listening")

    def test_a_show_that_starts_later_is_learnt_by_resolving_again_and_never_asked_for_before(self):
        browser = self.open_page()
        asked = lambda: browser.execute_script("return window.__asked")  # noqa: E731
        wait_until(lambda: message_texts(browser), 60, "the box's messages", browser)
        # The box has no show: the page resolves what it hears again while it hears it, and asks
        # the hub for no show until a resolve says there is one.
        wait_until(lambda: len(asked()["resolves"]) >= 3, 90, "the page resolving the box again", browser)
        self.assertEqual([url for url in asked()["requests"] + asked()["watches"] if "/v1/shows/" in url], [],
                         "no show asked for while the box has none")
        status, created = upload_deck(self.hub.port, self.keys["secretKey"], pdf_deck(2), "Later")
        self.assertEqual(status, 201, created)
        status, show = self.hub.request("PUT", f"/v1/shows/{self.beacon}", {"deck": created["deck"], "page": 1},
                                        key=self.keys["secretKey"])
        self.assertEqual(status, 200, show)
        wait_until(lambda: browser.find_element(By.ID, "slide").get_attribute("data-page") == "1", 60,
                   "the phone following the show that started", browser)
        self.assertEqual(browser.find_element(By.ID, "state").get_attribute("data-state"), "following")
        self.assertEqual(len(message_texts(browser)), 2, "the messages stay beside the show")


@unittest.skipIf(not have_chromium(), "needs selenium and Debian's chromium")
@unittest.skipUnless(os.path.exists(os.path.join(WEB, "nearcast-modem.wasm")), "needs the page: tools/setup/build-web")
class ListenerPageSaysWhyItIsNotListening(unittest.TestCase):
    """Each reason the page cannot listen is said in words, and marked as a problem."""

    def setUp(self):
        self.browser = None
        self.static = None

    def tearDown(self):
        if self.browser:
            self.browser.quit()
        if self.static:
            self.static.stop()

    def says(self, expected, *flags, prefs=None, isolated=True):
        self.static = StaticPage(WEB, isolated=isolated)
        self.browser = chromium(*flags, prefs=prefs)
        self.browser.get(f"http://127.0.0.1:{self.static.port}/listen.html")
        state = lambda: self.browser.find_element(By.ID, "state")  # noqa: E731
        wait_until(lambda: expected in state().text, 20, f"the page saying {expected!r}", self.browser)
        self.assertEqual(state().get_attribute("data-state"), "problem")

    def test_a_denied_microphone(self):
        self.says("Microphone permission was denied", "--use-fake-device-for-media-stream",
                  prefs={"profile.default_content_setting_values.media_stream_mic": 2})

    @unittest.skipIf(any(name.startswith("pcmC") and name.endswith("c") for name in
                         (os.listdir("/dev/snd") if os.path.isdir("/dev/snd") else [])),
                     "this machine has a capture device, which Chromium would open")
    def test_no_microphone(self):
        # Headless Chromium without a fake device, on a machine with no capture device.
        self.says("No microphone was found", "--use-fake-ui-for-media-stream")

    def test_a_page_served_without_the_isolation_headers(self):
        self.says("not cross-origin isolated", *fake_microphone("/dev/null"), isolated=False)


@unittest.skipIf(not have_chromium(), "needs selenium and Debian's chromium")
@unittest.skipUnless(os.path.exists(os.path.join(WEB, "nearcast-modem.wasm")), "needs the page: tools/setup/build-web")
class BrowserDecoderMatchesTheNativeOne(unittest.TestCase):
    """decode.html (the WebAssembly decoder in Chromium) against `nearcast decode` on the same
    files: single bursts through the bench's conditions, at 48 and 44.1 kHz, in the high band
    and (the last three) the low band, and a file of both bands alternating."""

    conditions = [("clean", "high"), ("white-28", "high"), ("white-28-44k", "high"), ("room-a", "high"),
                  ("room-a-44k", "high"), ("room-b", "high"), ("room-a-walking", "high"), ("room-a-side", "high"),
                  ("clean", "low"), ("room-a", "low"), ("white-28-44k", "low")]

    def test_the_browser_decodes_what_the_native_decoder_decodes(self):
        work = tempfile.mkdtemp(prefix="nearcast-parity-")
        static = StaticPage(WEB)
        browser = chromium()
        try:
            browser.get(f"http://127.0.0.1:{static.port}/decode.html")
            compared = found = 0

            def compare(received, what):
                native = native_decode(received)
                summary = browser.find_element(By.ID, "summary")
                browser.execute_script("arguments[0].removeAttribute('data-done')", summary)
                browser.find_element(By.ID, "file").send_keys(os.path.abspath(received))
                wait_until(lambda: summary.get_attribute("data-done"), 60, f"decoding {received}")
                self.assertIsNone(summary.get_attribute("data-error"), summary.text)
                lines = [line for line in browser.find_element(By.ID, "decoded").text.splitlines() if line]
                browser_tokens = [json.loads(line) for line in lines]
                self.assertTrue(same_bursts(browser_tokens, native), f"{what}:\n{browser_tokens}\n{native}")
                return native

            for index, (condition, band) in enumerate(self.conditions):
                rate = 44_100 if condition.endswith("44k") else 48_000
                for seed in (1, 2):
                    token = f"{0x5EED0000 + 16 * index + seed:08x}{index:02x}{seed:02x}c0de"
                    sent = os.path.join(work, f"{condition}-{band}-{seed}-sent.wav")
                    received = os.path.join(work, f"{condition}-{band}-{seed}.wav")
                    subprocess.run([NEARCAST, "encode", "--payload", token, "--kind", "eid", "--rate", str(rate), "--band", band,
                                    "--out", sent], check=True, capture_output=True)
                    subprocess.run([NEARCAST, "bench", "channel", "--condition", condition, "--seed", str(seed), sent, received],
                                   check=True, capture_output=True)
                    native = compare(received, f"{condition} in the {band} band, seed {seed}")
                    self.assertTrue(all(burst["band"] == band for burst in native), f"{condition}: {native}")
                    compared += 1
                    found += len(native)
            self.assertGreaterEqual(found, compared - 2, "the conditions are ones the modem decodes, nearly always")

            # Both bands in one file, alternating as `run --band both` sends them.
            mixed, rate = [], 48_000
            for index, band in enumerate(["high", "low", "high", "low"]):
                sent = os.path.join(work, f"mixed-{index}.wav")
                subprocess.run([NEARCAST, "encode", "--payload", f"b0{index:02x}", "--band", band, "--out", sent],
                               check=True, capture_output=True)
                rate, samples = read_wav(sent)
                mixed += [0.0] * (rate // 2) + samples
            write_pcm16(os.path.join(work, "mixed.wav"), rate, mixed + [0.0] * (rate // 2))
            native = compare(os.path.join(work, "mixed.wav"), "both bands alternating")
            self.assertEqual([(burst["payload"], burst["band"]) for burst in native],
                             [("b000", "high"), ("b001", "low"), ("b002", "high"), ("b003", "low")])
        finally:
            browser.quit()
            static.stop()
            shutil.rmtree(work, ignore_errors=True)


@unittest.skipIf(not have_chromium(), "needs selenium and Debian's chromium")
@unittest.skipUnless(os.path.exists(os.path.join(WEB, "phone-id-worker.js")), "needs the page: tools/setup/build-web")
class PhoneIdWorkerDoesTheHubsWork(unittest.TestCase):
    """phone-id-worker.js (its own SHA-256: the challenge's blocks hashed once, one block a try)
    against hashlib, as the hub checks a nonce (PhoneIDs.leadingZeroBits): challenges of every
    length modulo 64 (where the counter and the padding fall differs), a multi-byte one, and a few
    at 18 bits, past the counter's first 65,536 tries."""

    PAGE = '<!doctype html><meta charset="utf-8"><title>phone-id worker</title>'

    def test_every_nonce_does_the_work_in_at_most_64_characters(self):
        page = tempfile.mkdtemp(prefix="nearcast-phone-id-worker-")
        shutil.copy(os.path.join(WEB, "phone-id-worker.js"), page)
        with open(os.path.join(page, "index.html"), "w") as out:
            out.write(self.PAGE)
        static = StaticPage(page)
        browser = chromium()
        alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_."
        rng = random.Random(50)
        cases = [("".join(rng.choice(alphabet) for _ in range(length)), 10) for length in range(0, 140)]
        cases += [("ncchal_é€" + "x" * 90, 12), ("", 0)]
        cases += [("ncchal_" + "".join(rng.choice(alphabet) for _ in range(length)), 18) for length in (93, 101, 150, 40, 60, 77, 120, 133)]
        try:
            browser.set_script_timeout(120)
            browser.get(f"http://127.0.0.1:{static.port}/index.html")
            results = browser.execute_async_script("""
                const [cases, done] = arguments;
                const one = ([challenge, bits]) => new Promise((resolve) => {
                  const worker = new Worker("phone-id-worker.js");
                  worker.onmessage = (event) => { worker.terminate(); resolve(event.data); };
                  worker.onerror = (event) => { worker.terminate(); resolve({ error: event.message || "failed" }); };
                  worker.postMessage({ challenge, bits });
                });
                (async () => { const out = []; for (const c of cases) out.push(await one(c)); done(out); })();""", cases)
        finally:
            browser.quit()
            static.stop()
            shutil.rmtree(page, ignore_errors=True)
        past_first_range = 0
        for (challenge, bits), result in zip(cases, results):
            with self.subTest(length=len(challenge.encode()), bits=bits):
                self.assertNotIn("error", result)
                nonce = result["nonce"]
                self.assertLessEqual(len(nonce), 64)
                digest = hashlib.sha256((challenge + "\n" + nonce).encode()).digest()
                self.assertGreaterEqual(256 - int.from_bytes(digest, "big").bit_length(), bits, nonce)
                self.assertGreaterEqual(result["tries"], 1)
                past_first_range += result["tries"] > 65_536
        self.assertGreaterEqual(past_first_range, 1, "at 18 bits a run goes past 65,536 tries, nearly always")


if __name__ == "__main__":
    unittest.main()
