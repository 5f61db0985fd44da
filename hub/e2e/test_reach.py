"""The rooms' reach from real pages (issue 51): the listener page in Debian's Chromium, headless,
tells a real hub on PostgreSQL what each visit heard (POST /v1/reach), and GET /v1/reach counts it
per box.

A simulated box on the hub, its audio through the bench's room A; a show on it:

- a phone whose fake microphone hears the box follows the show by ear, and shows up in
  /v1/reach under the box: one phone, heard, with its first token's time, its browser and
  platform as the page names them (phone-kind.js), its capture rate and the browser's processing
  off, both bands' levels and its decoder's counts; the page says in one line what it sends;
- a phone whose microphone hears nothing joins by the code on the presenter's screen and counts
  as `byCode` (two phones, still one heard);
- the heard phone reloaded is the same visit (its receipt kept in the tab): still two phones;
- the rows in the database hold counts, no id and no address.

The routes' contract (every bad field, receipts, the medians, the days kept) is hub/Tests'
ReachRouterTests, in memory and in SQLite."""
import os
import re
import unittest

from hubtest import have_chromium, psql
from test_listener import WEB, fake_microphone
from test_present_browser import PresentTests, shows, wait_for

try:
    from selenium.webdriver.common.by import By
except ImportError:  # tools/setup/install-deps installs it
    pass


@unittest.skipIf(not have_chromium(), "needs selenium and Debian's chromium")
@unittest.skipUnless(os.path.exists(os.path.join(WEB, "nearcast-modem.wasm")), "needs the page: tools/setup/build-web")
class TheRoomsReach(PresentTests, unittest.TestCase):
    database_kind = "postgres"
    hub_count = 1
    pages = 2

    def reach(self):
        status, body = self.hubs[0].get("/v1/reach", key=self.secret)
        self.assertEqual(status, 200, body)
        return {box.get("beaconName", ""): box for box in body["boxes"]}

    def box(self):
        return self.reach().get("beacons/" + self.beacon, {})

    def url(self, path):
        return f"http://127.0.0.1:{self.hubs[0].port}{path}"

    @staticmethod
    def reports(browser):
        return int(browser.find_element(By.TAG_NAME, "body").get_attribute("data-reach-reports") or 0)

    def test_a_phone_by_ear_shows_up_with_its_browser_and_one_by_the_code_counts_as_by_code(self):
        microphone, self.beacon = self.record_the_box()
        status, show = self.hubs[0].request("PUT", f"/v1/shows/{self.beacon}", {"deck": self.deck, "page": 1}, key=self.secret)
        self.assertEqual(status, 200, show)

        ear = self.browser(*fake_microphone(microphone))
        ear.get(self.url(f"/listen?key={self.public}"))
        wait_for(shows(ear, 1), 60, "the show followed by ear", ear)
        note = ear.find_element(By.ID, "reach-note")
        self.assertTrue(note.is_displayed(), "the page says what it sends")
        self.assertIn("anonymously", note.text)
        kind = ear.execute_async_script(
            "const done = arguments[arguments.length - 1];"
            "import(new URL('phone-kind.js', location.href).href).then((m) => m.phoneKind()).then(done, (e) => done(String(e)));")
        self.assertRegex(kind["browser"], r"^Chrom(e|ium) \d+$")
        self.assertEqual(kind["platform"], "Linux")
        box = wait_for(lambda: (lambda b: b if b.get("heard") == 1 else None)(self.box()), 30, "the phone counted as heard", ear)
        self.assertEqual((box["phones"], box["byCode"]), (1, 0), box)
        self.assertEqual(box["joined"], {"heard": 1, "code": 0, "qr": 0, "none": 0})
        self.assertGreater(box["medianFirstTokenMs"], 0, box)
        print(f"\nreach: the phone by ear, first token {box['medianFirstTokenMs']} ms after its microphone started (the histogram's median)")
        self.assertEqual(box["byBrowser"], [{"browser": kind["browser"], "platform": kind["platform"], "phones": 1, "heard": 1,
                                             "byCode": 0, "medianFirstTokenMs": box["medianFirstTokenMs"]}])
        self.assertEqual(box["capture"]["echoCancellationOn"] + box["capture"]["noiseSuppressionOn"], 0, box)
        self.assertEqual(sum(box["capture"]["sampleRates"].values()), 1, box)
        self.assertEqual([band["band"] for band in box["bands"]], ["high", "low"], box)
        self.assertGreaterEqual(box["bursts"]["decoded"], 1, box)
        self.assertGreaterEqual(box["bursts"]["detected"], box["bursts"]["decoded"], box)

        deaf = self.browser(*fake_microphone(self.silent_microphone()))
        deaf.get(self.url(f"/listen?key={self.public}"))
        form = deaf.find_element(By.ID, "join-by-code")
        wait_for(form.is_displayed, 15, "the code offered", deaf)
        status, shown = self.hubs[0].get(f"/v1/shows/{self.beacon}", key=self.secret)
        self.assertEqual(status, 200, shown)
        deaf.find_element(By.ID, "code").send_keys(shown["code"])
        deaf.find_element(By.ID, "code-join").click()
        wait_for(shows(deaf, 1), 20, "the show after the code", deaf)
        box = wait_for(lambda: (lambda b: b if b.get("byCode") == 1 else None)(self.box()), 30, "the phone counted by code", deaf)
        self.assertEqual((box["phones"], box["heard"]), (2, 1), box)
        self.assertEqual(box["joined"], {"heard": 1, "code": 1, "qr": 0, "none": 0})
        self.assertEqual(box["byBrowser"][0]["byCode"], 1, box)

        # A reload is the same visit: its report takes the earlier one back.
        sent = self.reports(ear)
        self.assertGreaterEqual(sent, 1)
        ear.refresh()
        wait_for(shows(ear, 1), 60, "the show followed again after the reload", ear)
        wait_for(lambda: self.reports(ear) >= 1, 30, "the reloaded page's report", ear)
        box = self.box()
        self.assertEqual((box["phones"], box["heard"], box["byCode"]), (2, 1, 1), box)

        # The rows: counts under the box, the kind of phone and the way in; nothing else.
        columns = psql(self.database.url, "SELECT column_name FROM information_schema.columns "
                                          "WHERE table_name = 'reach_counts' ORDER BY ordinal_position").split()
        self.assertEqual(columns[:6], ["project", "day", "beacon_name", "browser", "platform", "joined_by"])
        rows = psql(self.database.url, "SELECT * FROM reach_counts")
        self.assertEqual(len(rows.splitlines()), 2, rows)   # heard and code: one kind of phone, two ways in
        for text in ("127.0.0.1", self.public, "ncpass_", "ncph_", "Mozilla", "HeadlessChrome"):
            self.assertNotIn(text, rows)
        self.assertTrue(all(re.fullmatch(r"-?\d+", value) for row in rows.splitlines() for value in row.split("|")[6:]), rows)


if __name__ == "__main__":
    unittest.main()
