"""The operators' page in a real browser (Debian's Chromium, headless, through chromedriver):
the project's boxes, their last heartbeat and problems, and their attachments."""
import os
import unittest

from hubtest import Beacon, Database, Hub, b64, chromium, create_project, have_chromium

try:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait
except ImportError:  # tools/install-deps installs it
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

        # A new attachment appears on the next refresh (every 5 s).
        self.hub.post(f"/v1beta1/{beacon.name()}/attachments", {"namespacedType": "demo/slide", "data": b64(b"slide 4")}, key=secret)
        WebDriverWait(self.browser, 15).until(lambda b: "slide 4" in b.find_element(By.ID, "boxes").text)
        shot = os.environ.get("NEARCAST_HUB_SCREENSHOT")
        if shot:
            self.browser.set_window_size(1100, 520)
            self.browser.save_screenshot(shot)


if __name__ == "__main__":
    unittest.main()
