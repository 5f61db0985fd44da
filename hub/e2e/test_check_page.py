"""The field check page (/check, web/page/check.html) in a real browser: Debian's Chromium,
headless, with a fake microphone fed from what a phone would hear of a box playing its check
signal (`audio sweep`): the box's burst of its registered direct token, then the field check's
sequence (`nearcast encode --field-check`), through one of the bench's rooms, and for the second
phone through the bench's steep phone low-pass at 17.5 kHz (`nearcast bench channel
--phone-cutoff`). The page must measure it with the WebAssembly build of the box's analyser and
decoder, name the box, say which band to use, plot the 19 tones, and send the result to the hub
when the user ticks the box; the hub then lists it for the operators."""
import os
import shutil
import subprocess
import tempfile
import unittest

from hubtest import NEARCAST, Database, Hub, b64, chromium, create_project, have_chromium
from test_listener import WEB, fake_microphone, read_wav, wait_until, write_pcm16

try:
    from selenium.webdriver.common.by import By
except ImportError:  # tools/setup/install-deps installs it
    pass

TOKEN = "c0ffee42"


def box_playing_the_check(work, name, phone_cutoff=None):
    """The fake microphone's file: a burst of TOKEN and the check's sequence, 48 kHz, through room-a."""
    burst, sequence = os.path.join(work, "burst.wav"), os.path.join(work, "sequence.wav")
    subprocess.run([NEARCAST, "encode", "--payload", TOKEN, "--out", burst], check=True, capture_output=True)
    subprocess.run([NEARCAST, "encode", "--field-check", "--out", sequence], check=True, capture_output=True)
    rate, burst_samples = read_wav(burst)
    _, sequence_samples = read_wav(sequence)
    gap = [0.0] * (rate // 2)
    box = os.path.join(work, f"{name}-box.wav")
    write_pcm16(box, rate, burst_samples + gap + sequence_samples + gap)
    received = os.path.join(work, f"{name}-received.wav")
    command = [NEARCAST, "bench", "channel", "--condition", "room-a", "--seed", "3", box, received]
    if phone_cutoff:
        command += ["--phone-cutoff", str(phone_cutoff)]
    subprocess.run(command, check=True, capture_output=True)
    rate, samples = read_wav(received)
    microphone = os.path.join(work, f"{name}.wav")
    write_pcm16(microphone, rate, samples)
    return microphone


@unittest.skipIf(not have_chromium(), "needs selenium and Debian's chromium")
@unittest.skipUnless(os.path.exists(os.path.join(WEB, "check.html")), "needs the pages: tools/setup/build-web")
class CheckPageInChromium(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.work = tempfile.mkdtemp(prefix="nearcast-check-")
        cls.database = Database("sqlite")
        cls.keys = create_project(cls.database.url, "demo")
        cls.hub = Hub(cls.database.url, extra=("--listener", WEB))
        status, body = cls.hub.post("/v1beta1/beacons:register",
                                    {"advertisedId": {"type": "EDDYSTONE", "id": b64(bytes.fromhex(TOKEN))},
                                     "description": "Hall A box"}, key=cls.keys["secretKey"])
        assert status == 200, body
        cls.beacon_name = body["beaconName"]

    @classmethod
    def tearDownClass(cls):
        cls.hub.stop()
        cls.database.drop()
        shutil.rmtree(cls.work, ignore_errors=True)

    def setUp(self):
        self.browser = None

    def tearDown(self):
        if self.browser:
            if self._outcome.success is False:
                print("state:", self.browser.find_element(By.ID, "state").text)
                print("console:", [entry["message"] for entry in self.browser.get_log("browser")])
            self.browser.quit()

    def check(self, microphone):
        """Opens /check with `microphone`, starts it, and waits for its first verdict."""
        self.browser = chromium(*fake_microphone(microphone))
        self.browser.set_window_size(390, 844)
        self.browser.get(f"http://127.0.0.1:{self.hub.port}/check?key={self.keys['apiKey']}")
        start = wait_until(lambda: self.browser.find_element(By.ID, "start").is_displayed() and
                           self.browser.find_element(By.ID, "start"), 30, "the start button")
        start.click()
        verdict = wait_until(lambda: self.browser.find_element(By.ID, "verdict").get_attribute("data-verdict"), 60,
                             "a verdict")
        bands = {line.get_attribute("data-band"): line for line in
                 self.browser.find_elements(By.CSS_SELECTOR, "#bands-heard div")}
        return verdict, bands

    def test_the_page_is_served_with_the_isolation_headers(self):
        status, headers = self.hub.headers("GET", "/check?key=" + self.keys["apiKey"])
        self.assertEqual(status, 200)
        self.assertEqual(headers.get("cross-origin-embedder-policy"), "require-corp")
        self.assertIn("text/html", headers.get("content-type"))

    def test_a_flat_microphone_hears_both_bands_names_the_box_and_sends_its_result(self):
        verdict, bands = self.check(box_playing_the_check(self.work, "flat"))
        browser = self.browser
        self.assertEqual(verdict, "both")
        self.assertEqual(browser.find_element(By.ID, "verdict").text, "This phone hears both bands.")
        for name in ("high", "low"):
            self.assertEqual(bands[name].get_attribute("data-decoded"), "true", bands[name].text)
            self.assertGreater(float(bands[name].get_attribute("data-snr-db")), 20, bands[name].text)
        self.assertEqual(len(browser.find_elements(By.CSS_SELECTOR, "#plot circle")), 19)
        wait_until(lambda: "Hall A box" in browser.find_element(By.ID, "box").text, 30, "the box named")
        self.assertEqual(browser.find_element(By.ID, "platform").text, "Linux")
        browser_name = browser.find_element(By.ID, "browser").text
        self.assertRegex(browser_name, r"^Chrom(e|ium) \d+$")

        # Nothing is sent until the user ticks the box.
        send = browser.find_element(By.ID, "send")
        self.assertFalse(send.is_enabled())
        status, listed = self.hub.get("/v1beta1/fieldchecks", key=self.keys["secretKey"])
        self.assertEqual((status, listed["fieldChecks"]), (200, []))
        browser.find_element(By.ID, "consent").click()
        send.click()
        wait_until(lambda: browser.find_element(By.ID, "send-state").get_attribute("data-sent") == "true", 20,
                   "the result sent")
        status, listed = self.hub.get("/v1beta1/fieldchecks", key=self.keys["secretKey"])
        self.assertEqual(status, 200, listed)
        [stored] = listed["fieldChecks"]
        self.assertEqual((stored["verdict"], stored.get("beaconName"), stored["platform"], stored["browser"]),
                         ("both", self.beacon_name, "Linux", browser_name))
        self.assertIn(stored["sampleRate"], (44100, 48000))   # Chromium's fake microphone runs at 44.1 kHz
        self.assertEqual([tone["hz"] for tone in stored["tones"]], list(range(12000, 21001, 500)))
        self.assertEqual({band["band"]: band["decoded"] for band in stored["bands"]}, {"high": True, "low": True})
        browser.save_screenshot(os.path.join(self.work, "check-flat.png"))

    def test_a_microphone_low_passed_at_17_5_khz_is_told_to_use_the_low_band(self):
        verdict, bands = self.check(box_playing_the_check(self.work, "low-passed", phone_cutoff=17500))
        self.assertEqual(verdict, "low")
        self.assertIn("Set the box to low or both", self.browser.find_element(By.ID, "advice").text)
        self.assertEqual(bands["high"].get_attribute("data-decoded"), "false", bands["high"].text)
        self.assertLess(float(bands["high"].get_attribute("data-snr-db")), 10, bands["high"].text)
        self.assertEqual(bands["low"].get_attribute("data-decoded"), "true", bands["low"].text)
        self.assertGreater(float(bands["low"].get_attribute("data-snr-db")), 20, bands["low"].text)
        shot = os.environ.get("NEARCAST_CHECK_SCREENSHOT")
        if shot:   # for a look at the page: the result section at a phone's width
            self.browser.set_window_size(390, 1400)
            self.browser.find_element(By.ID, "result").screenshot(shot)
