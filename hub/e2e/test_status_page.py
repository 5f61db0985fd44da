"""The operators' page in a real browser (Debian's Chromium, headless, through chromedriver):
the project's boxes, their last heartbeat and problems, and their attachments; the listener pages'
reach and the field check results summarised per box and kind of phone; the day of a schedule
imported, at 1440x900 and 1366x768.

NEARCAST_STATUS_SCREENSHOTS=DIR saves the day's hub-day-1440.png and hub-day-1366.png there."""
import datetime
import json
import os
import unittest

from hubtest import Beacon, Database, Hub, b64, chromium, create_project, have_chromium
from test_day import frab_day
from test_fieldchecks import DOOR, DOOR_UID, PATH, result

try:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait
except ImportError:  # tools/setup/install-deps installs it
    pass


@unittest.skipIf(not have_chromium(), "needs selenium and Debian's chromium")
class StatusPageInChromium(unittest.TestCase):
    def setUp(self):
        self.database = Database("sqlite")
        self.keys = create_project(self.database.url, "demo")
        self.hub = Hub(self.database.url)
        self.browser = chromium()

    def tearDown(self):
        self.browser.quit()
        self.hub.stop()
        self.database.drop()

    def test_the_page_shows_boxes_heartbeats_problems_and_attachments(self):
        secret = self.keys["secretKey"]
        beacon = Beacon(self.hub.service_public_key())
        self.assertEqual(self.hub.post("/v1beta1/beacons:register", beacon.registration("Main hall box"), key=secret)[0], 200)
        self.hub.post(f"/v1beta1/{beacon.name()}/attachments", {"namespacedType": "demo/slide", "data": b64(b"slide 3")}, key=secret)
        self.hub.post(f"/v1beta1/{beacon.name()}/heartbeat",
                      {"clockValue": beacon.clock, "status": "broadcasting audio+ble", "problems": ["bluetooth-power"]}, key=secret)
        self.hub.post("/v1beta1/beacons:register", {"advertisedId": {"type": "EDDYSTONE", "id": b64(b"\x01\x02")},
                                                    "description": "Side door"}, key=secret)

        self.browser.get(f"http://127.0.0.1:{self.hub.port}/")
        self.assertIn("Enter the project's secret key", self.browser.find_element(By.ID, "summary").text)
        self.browser.find_element(By.ID, "key").send_keys("ncsec_wrong")
        self.browser.find_element(By.CSS_SELECTOR, "#login button[type=submit]").click()
        WebDriverWait(self.browser, 10).until(lambda b: "not valid" in b.find_element(By.ID, "error").text)

        self.browser.find_element(By.ID, "key").send_keys(secret)
        self.browser.find_element(By.CSS_SELECTOR, "#login button[type=submit]").click()
        WebDriverWait(self.browser, 10).until(lambda b: len(b.find_elements(By.CSS_SELECTOR, "#boxes tbody tr")) == 2)
        self.assertNotIn(secret, self.browser.current_url, "the key never goes into the URL")
        rows = {row.get_attribute("data-beacon"): row.text for row in self.browser.find_elements(By.CSS_SELECTOR, "#boxes tbody tr")}
        main = rows[beacon.name()]
        for expected in ("Main hall box", "broadcasting audio+ble", "bluetooth-power", "demo/slide slide 3", "s ago"):
            self.assertIn(expected, main)
        side = rows["beacons/3!0102"]
        self.assertIn("Side door", side)
        self.assertIn("never", side)
        self.assertIn("2 boxes, 1 with problems", self.browser.find_element(By.ID, "summary").text)
        self.assertIn("1 hub instance serving", self.browser.find_element(By.ID, "summary").text)

        # A new attachment appears on the next refresh (every 5 s).
        self.hub.post(f"/v1beta1/{beacon.name()}/attachments", {"namespacedType": "demo/slide", "data": b64(b"slide 4")}, key=secret)
        WebDriverWait(self.browser, 15).until(lambda b: "slide 4" in b.find_element(By.ID, "boxes").text)
        # On a phone's width the boxes' table scrolls on its own; the page does not scroll sideways.
        self.browser.set_window_size(390, 844)
        widths = self.browser.execute_script("const d = document.documentElement; const t = document.getElementById('boxes');"
                                             " return [d.scrollWidth, d.clientWidth, t.scrollWidth, t.clientWidth];")
        self.assertLessEqual(widths[0], widths[1], f"the page is wider than the phone: {widths}")
        self.assertGreater(widths[2], widths[3], f"the table (wider than a phone) scrolls within itself: {widths}")
        self.browser.set_window_size(1100, 800)
        shot = os.environ.get("NEARCAST_HUB_SCREENSHOT")
        if shot:
            self.browser.set_window_size(1100, 520)
            self.browser.save_screenshot(shot)

    def open_with_the_door(self, secret):
        """Registers the door's box ("Main hall") and opens the page with the secret key."""
        status, _ = self.hub.post("/v1beta1/beacons:register", {"advertisedId": {"type": "EDDYSTONE", "id": b64(DOOR_UID)},
                                                                "description": "Main hall"}, key=secret)
        self.assertEqual(status, 200)
        self.browser.get(f"http://127.0.0.1:{self.hub.port}/")
        self.browser.find_element(By.ID, "key").send_keys(secret)
        self.browser.find_element(By.CSS_SELECTOR, "#login button[type=submit]").click()

    def test_the_field_checks_table_summarises_results_per_box_and_kind_of_phone(self):
        secret, public = self.keys["secretKey"], self.keys["apiKey"]
        self.open_with_the_door(secret)
        WebDriverWait(self.browser, 10).until(lambda b: "No field check results" in b.find_element(By.ID, "fieldchecks-none").text
                                              and b.find_element(By.ID, "fieldchecks-none").is_displayed())

        def band(name, snr, decoded):
            return {"band": name, "snrDb": snr, "decoded": decoded}
        # Three Pixels at the hall: high SNRs 4, 10, 30 (median 10), low 20, 25, 26 (median 25).
        for high, low, verdict in [(4, 20, "low"), (10, 25, "both"), (30, 26, "both")]:
            sent = result(bands=[band("high", high, high > 5), band("low", low, True)], verdict=verdict)
            self.assertEqual(self.hub.post(PATH, sent, key=public)[0], 200)
        # An iPhone at the hall, and a phone that resolved no box.
        self.assertEqual(self.hub.post(PATH, result(platform="iOS 17.5", browser="Safari 17",
                                                    bands=[band("low", 18, True)], verdict="low"), key=public)[0], 200)
        self.assertEqual(self.hub.post(PATH, result(beaconName=None, bands=[band("high", -2, False)], verdict="neither"),
                                       key=public)[0], 200)
        WebDriverWait(self.browser, 15).until(lambda b: len(b.find_elements(By.CSS_SELECTOR, "#fieldchecks tbody tr")) == 3)
        self.assertFalse(self.browser.find_element(By.ID, "fieldchecks-none").is_displayed())
        rows = {(row.get_attribute("data-beacon"), row.get_attribute("data-phone")): [cell.text for cell in row.find_elements(By.TAG_NAME, "td")]
                for row in self.browser.find_elements(By.CSS_SELECTOR, "#fieldchecks tbody tr")}
        headers = [th.text for th in self.browser.find_elements(By.CSS_SELECTOR, "#fieldchecks thead th")]
        self.assertEqual(headers, ["Box", "Phone", "Checks", "High band SNR", "High decoded", "Low band SNR", "Low decoded", "Verdict"])
        pixel = rows[(DOOR, "Android 14 · Chrome 131")]
        self.assertIn("Main hall", pixel[0])
        self.assertEqual(pixel[1:], ["Android 14 · Chrome 131", "3", "10.0 dB", "2 of 3", "25.0 dB", "3 of 3", "both (2 of 3)"])
        iphone = rows[(DOOR, "iOS 17.5 · Safari 17")]
        self.assertEqual(iphone[2:], ["1", "-", "-", "18.0 dB", "1 of 1", "low (1 of 1)"])
        nobox = rows[("", "Android 14 · Chrome 131")]
        self.assertIn("no box", nobox[0])
        self.assertEqual(nobox[2:], ["1", "-2.0 dB", "0 of 1", "-", "-", "neither (1 of 1)"])

    def test_the_rooms_reach_shows_each_boxs_phones_and_their_kinds_beside_the_field_checks(self):
        secret, public = self.keys["secretKey"], self.keys["apiKey"]
        self.open_with_the_door(secret)
        WebDriverWait(self.browser, 10).until(lambda b: b.find_element(By.ID, "reach-none").is_displayed())
        # Beside the field checks: just before them.
        self.assertTrue(self.browser.execute_script(
            "return document.getElementById('reach-section').nextElementSibling.id === 'fieldchecks-section'"))

        def visit(**changes):
            body = {"beaconName": DOOR, "platform": "Android 14", "browser": "Chrome 131", "joinedBy": "heard", "firstTokenMs": 2300,
                    "capture": {"sampleRate": 48000, "echoCancellation": False, "noiseSuppression": False},
                    "bands": [{"band": "high", "levelDb": -55}, {"band": "low", "levelDb": -80}],
                    "bursts": {"detected": 12, "decoded": 10}}
            body.update(changes)
            status, answer = self.hub.post("/v1/reach", {k: v for k, v in body.items() if v is not None}, key=public)
            self.assertEqual(status, 200, answer)
        # Two Pixels heard the hall's box; an iPhone whose browser kept echo cancellation on joined
        # by the code; a phone found no box.
        visit()
        visit()
        visit(platform="iOS 18", browser="Safari 18", joinedBy="code", firstTokenMs=None,
              capture={"sampleRate": 48000, "echoCancellation": True},
              bands=[{"band": "high", "levelDb": -90}, {"band": "low", "levelDb": -70}])
        visit(beaconName=None, joinedBy="none", firstTokenMs=None)
        WebDriverWait(self.browser, 15).until(lambda b: len(b.find_elements(By.CSS_SELECTOR, "#reach tbody tr")) == 5)
        self.assertFalse(self.browser.find_element(By.ID, "reach-none").is_displayed())
        headers = [th.text for th in self.browser.find_elements(By.CSS_SELECTOR, "#reach thead th")]
        self.assertEqual(headers, ["Box", "Phone", "Phones", "Heard", "By code", "First token", "Band levels", "Processing on"])
        rows = {(row.get_attribute("data-beacon"), row.get_attribute("data-phone")): [cell.text for cell in row.find_elements(By.TAG_NAME, "td")]
                for row in self.browser.find_elements(By.CSS_SELECTOR, "#reach tbody tr")}
        hall = rows[(DOOR, "")]
        self.assertIn("Main hall", hall[0])
        self.assertEqual(hall[1:], ["all phones", "3", "2", "1", "2.3 s", "high -67 dB, low -77 dB", "1 echo, 0 noise"])
        self.assertEqual(rows[(DOOR, "Android 14 · Chrome 131")][1:6], ["Android 14 · Chrome 131", "2", "2", "0", "2.3 s"])
        self.assertEqual(rows[(DOOR, "iOS 18 · Safari 18")][1:6], ["iOS 18 · Safari 18", "1", "0", "1", "-"])
        nobox = rows[("", "")]
        self.assertEqual(nobox[:6], ["(no box found)", "all phones", "1", "0", "0", "-"])
        choices = [o.text for o in self.browser.find_elements(By.CSS_SELECTOR, "#reach-days option")]
        self.assertEqual(choices, ["today", "the last 7 days", "the last 30 days"])

    def test_the_day_shows_each_rooms_talks_its_box_and_the_problems(self):
        secret = self.keys["secretKey"]
        hall, annex = Beacon(self.hub.service_public_key()), Beacon(self.hub.service_public_key(), clock=7_000_000)
        for beacon, name in [(hall, "Main hall"), (annex, "Annex")]:
            self.assertEqual(self.hub.post("/v1beta1/beacons:register", beacon.registration(name), key=secret)[0], 200)
        # The hall's box is online and a phone heard it; the annex's box never sent a heartbeat.
        self.assertEqual(self.hub.post(f"/v1beta1/{hall.name()}/heartbeat", {"clockValue": hall.clock, "status": "broadcasting"},
                                       key=secret)[0], 200)
        self.assertEqual(self.hub.post("/v1beta1/beaconinfo:getforobserved", {"observations": [hall.observation()]},
                                       key=self.keys["apiKey"])[0], 200)
        now = datetime.datetime.now(datetime.timezone.utc).replace(second=0, microsecond=0)

        def at(minutes):
            return now + datetime.timedelta(minutes=minutes)
        schedule = frab_day({
            "Main hall": [("Opening", at(-100), 60), ("Keeping time on stage", at(-30), 60), ("Closing", at(45), 45)],
            "Annex": [("Morning workshop", at(-90), 80), ("Lightning talks", at(20), 40)],
            "Side room": [("Poster session", at(-60), 180)],
        })
        status, imported = self.hub.request("PUT", "/v1/schedule?source=pretalx", key=secret, raw=json.dumps(schedule).encode())
        self.assertEqual(status, 200, imported)

        self.browser.get(f"http://127.0.0.1:{self.hub.port}/")
        self.browser.find_element(By.ID, "key").send_keys(secret)
        self.browser.find_element(By.CSS_SELECTOR, "#login button[type=submit]").click()
        WebDriverWait(self.browser, 10).until(lambda b: len(b.find_elements(By.CSS_SELECTOR, "#today .room")) == 3)
        self.assertTrue(self.browser.find_element(By.ID, "today-section").is_displayed())
        rooms = {row.get_attribute("data-room"): row.text for row in self.browser.find_elements(By.CSS_SELECTOR, "#today .room")}
        self.assertEqual(list(rooms), ["Main hall", "Annex", "Side room"])
        self.assertIn("box Main hall: online", rooms["Main hall"])
        self.assertIn("heard by phones", rooms["Main hall"])
        self.assertIn("0 following now", rooms["Main hall"])
        self.assertIn("box Annex: offline, no heartbeat yet", rooms["Annex"])
        self.assertIn("no box", rooms["Side room"])

        def talks(selector):
            return {block.find_element(By.TAG_NAME, "b").text: block.find_element(By.XPATH, "..").get_attribute("data-room")
                    for block in self.browser.find_elements(By.CSS_SELECTOR, f"#today {selector}")}
        self.assertEqual(talks(".talk.now"), {"Keeping time on stage": "Main hall", "Poster session": "Side room"})
        self.assertEqual(talks(".talk.past"), {"Opening": "Main hall", "Morning workshop": "Annex"})
        self.assertEqual(len(talks(".talk")), 6)
        problems = [item.text for item in self.browser.find_elements(By.CSS_SELECTOR, "#today-problems li")]
        self.assertIn("room Side room has no box: name a box Side room, or give it one (PUT /v1/rooms/NAME)", problems)
        self.assertIn("room Annex: its box Annex has not sent a heartbeat yet", problems)
        imported_line = self.browser.find_element(By.ID, "today-import").text
        for expected in ("from pretalx", "6 talks in 3 rooms", "changed 6 added"):
            self.assertIn(expected, imported_line)

        shots = os.environ.get("NEARCAST_STATUS_SCREENSHOTS")
        for width, height in [(1440, 900), (1366, 768)]:
            self.browser.set_window_size(width, height)
            # Every talk lies inside its room's row, and nothing makes the page scroll sideways.
            self.assertLessEqual(self.browser.execute_script("return document.documentElement.scrollWidth"),
                                 self.browser.execute_script("return window.innerWidth"), width)
            overflow = self.browser.execute_script("""
                return [...document.querySelectorAll('#today .talk')].filter(t => {
                  const row = t.parentElement.getBoundingClientRect(), box = t.getBoundingClientRect();
                  return box.left < row.left - 1 || box.right > row.right + 1; }).map(t => t.textContent);""")
            self.assertEqual(overflow, [], width)
            now_block = self.browser.find_element(By.CSS_SELECTOR, "#today .talk.now")
            self.assertGreater(now_block.size["width"], 60, "the talk on now is wide enough to read")
            if shots:
                os.makedirs(shots, exist_ok=True)
                self.browser.save_screenshot(os.path.join(shots, f"hub-day-{width}.png"))


if __name__ == "__main__":
    unittest.main()
