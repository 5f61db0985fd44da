"""A venue's day in real browsers: Debian's Chromium, headless, through WebDriver, in real time.

A simulated box named "Hall A" (`nearcast run --board sim --name "Hall A"`) registers with a real
hub; a schedule in frab's JSON (the format pretalx exports) is imported through `PUT /v1/schedule`
with two talks in Hall A, the second starting about a minute after the import. The hub's day
runner puts the first talk's title card on the box at once; a phone whose fake microphone hears
the box follows it, and a phone that joined by the code on the screen (the QR code's address,
hearing nothing) follows it too. At the second talk's start both move to it without reloading,
each keeping its place (the phone that joined by sight keeps its pass), and the room line names the
room. The time from the talk's scheduled start to each phone showing it is printed (the day
runner looks once a second; docs/measurements.md has the figure)."""
import datetime
import json
import math
import os
import shutil
import signal
import tempfile
import time
import unittest
import uuid

from hubtest import Database, Hub, chromium, create_project, have_chromium, start_sim_box
from test_listener import WEB, fake_microphone, through_room, write_pcm16

try:
    from selenium.webdriver.common.by import By
except ImportError:  # tools/setup/install-deps installs it
    pass

ROOM = "Hall A"
LEAD_S = 75   # from the import to the second talk's start: time for the phones to hear the box and follow


def frab_schedule(room, talks):
    """A frab/pretalx `schedule.json` of one day in `room`; `talks` are (title, start, minutes), UTC."""
    return frab_day({room: talks})


def frab_day(rooms):
    """A frab/pretalx `schedule.json` of one day; `rooms` maps each room's name to its talks,
    (title, start, minutes), UTC."""
    first = min(start for talks in rooms.values() for _, start, _ in talks)
    day = (first - datetime.timedelta(hours=4)).date().isoformat()   # pretalx's days run 04:00 to 03:59

    def event(room, title, start, minutes):
        return {"guid": str(uuid.uuid5(uuid.NAMESPACE_URL, "nearcast-test/" + title)), "id": abs(hash(title)) % 100_000,
                "title": title, "room": room, "date": start.isoformat(), "start": start.strftime("%H:%M"),
                "duration": f"{minutes // 60:02d}:{minutes % 60:02d}", "type": "talk",
                "persons": [{"public_name": "Jane Doe"}]}
    return {"schedule": {"version": "test", "conference": {
        "acronym": "day", "title": "A day of talks", "start": day, "end": day, "daysCount": 1, "timeslot_duration": "00:05",
        "time_zone_name": "UTC", "rooms": [{"name": room, "guid": str(uuid.uuid5(uuid.NAMESPACE_URL, room))} for room in rooms],
        "days": [{"index": 1, "date": day,
                  "day_start": (first - datetime.timedelta(hours=1)).isoformat(),
                  "day_end": (first + datetime.timedelta(hours=2)).isoformat(),
                  "rooms": {room: [event(room, *talk) for talk in talks] for room, talks in rooms.items()}}]}}}


def wait_for(condition, timeout, what, *browsers):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            value = condition()
        except Exception:  # an element replaced while read: try again
            value = None
        if value:
            return value
        time.sleep(0.05)
    detail = "".join(f"\n--- {b.current_url}\n{b.execute_script('return document.body.innerText')[:1500]}" for b in browsers)
    raise AssertionError(f"{what} did not happen in {timeout} s{detail}")


@unittest.skipIf(not have_chromium(), "needs selenium and Debian's chromium")
@unittest.skipUnless(os.path.exists(os.path.join(WEB, "listen.html")), "needs the pages: tools/setup/build-web")
class TheDayInTheBrowser(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.work = tempfile.mkdtemp(prefix="nearcast-day-")
        cls.database = Database("sqlite")
        keys = create_project(cls.database.url, "demo")
        cls.secret, cls.public = keys["secretKey"], keys["apiKey"]
        cls.hub = Hub(cls.database.url, extra=("--listener", WEB))
        cls.browsers = []

    @classmethod
    def tearDownClass(cls):
        for browser in cls.browsers:
            browser.quit()
        cls.hub.stop()
        cls.database.drop()
        shutil.rmtree(cls.work, ignore_errors=True)

    def browser(self, *flags):
        browser = chromium(*flags)
        browser.set_window_size(420, 860)
        self.browsers.append(browser)
        return browser

    def record_the_box(self):
        """The box named as the room, run for 8 s, its audio through a room: a microphone that hears
        its EID of now (accepted for at least one more rotation period, 128 s), and its beacon id."""
        state, log = os.path.join(self.work, "box"), os.path.join(self.work, "box.log")
        box = start_sim_box(state, f"http://127.0.0.1:{self.hub.port}", self.secret, [], log,
                            ("--exponent", "7", "--duration", "8", "--name", ROOM))
        try:
            self.assertEqual(box.wait(timeout=90), 0, open(log).read()[-3000:])
        finally:
            if box.poll() is None:
                box.send_signal(signal.SIGTERM)
                box.wait(timeout=30)
        microphone = os.path.join(self.work, "room-a.wav")
        through_room(os.path.join(state, "audio.wav"), microphone)
        status, listed = self.hub.get("/v1beta1/beacons", key=self.secret)
        self.assertEqual(status, 200, listed)
        return microphone, listed["beacons"][0]["beaconName"].removeprefix("beacons/")

    def test_phones_follow_from_talk_to_talk_without_reloading(self):
        microphone, beacon = self.record_the_box()
        change = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0) + datetime.timedelta(seconds=LEAD_S)
        schedule = frab_schedule(ROOM, [("Talk one", change - datetime.timedelta(minutes=2), 2), ("Talk two", change, 10)])
        status, imported = self.hub.request("PUT", "/v1/schedule", key=self.secret, raw=json.dumps(schedule).encode())
        self.assertEqual(status, 200, imported)
        self.assertEqual((imported["rooms"], imported["talks"]), (1, 2), imported)
        status, rooms = self.hub.get("/v1/rooms", key=self.secret)
        self.assertEqual(rooms["rooms"][0]["beaconName"], "beacons/" + beacon, rooms)
        self.assertEqual(rooms["problems"], [], rooms)
        # The day runner puts the first talk on the box within a second or two.
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            status, show = self.hub.get(f"/v1/shows/{beacon}", key=self.secret)
            if status == 200:
                break
            time.sleep(0.2)
        self.assertEqual(status, 200, show)
        self.assertEqual(show["title"], "Talk one", show)
        # A phone that hears the box, and one that joined by the QR code's address and hears nothing.
        hearing = self.browser(*fake_microphone(microphone))
        hearing.get(f"http://127.0.0.1:{self.hub.port}/listen?key={self.public}")
        silence = os.path.join(self.work, "silence.wav")
        write_pcm16(silence, 48_000, [1e-4 * math.sin(i) for i in range(48_000 * 2)])
        seeing = self.browser(*fake_microphone(silence))
        seeing.get(f"http://127.0.0.1:{self.hub.port}{show['joinPath']}")
        phones = [hearing, seeing]
        title = lambda browser: browser.find_element(By.ID, "show-title").text  # noqa: E731
        for phone in phones:
            wait_for(lambda: title(phone) == "Talk one", 50, "the first talk on the phone", phone)
            self.assertIn(ROOM, phone.find_element(By.ID, "show-room").text)
            phone.execute_script("window.nearcastTestMark = 'not reloaded'")
        left = change.timestamp() - time.time()
        self.assertGreater(left, 1, "the phones took too long to follow for the talk change to be seen")
        # The talk change: each phone's time from the scheduled start to showing the new talk.
        seen = {}
        deadline = time.time() + left + 20
        while len(seen) < len(phones) and time.time() < deadline:
            for index, phone in enumerate(phones):
                if index not in seen and title(phone) == "Talk two":
                    seen[index] = time.time() - change.timestamp()
            time.sleep(0.02)
        self.assertEqual(len(seen), len(phones), f"phones on the second talk: {seen}")
        for phone in phones:
            self.assertEqual(phone.execute_script("return window.nearcastTestMark"), "not reloaded")
            self.assertTrue(phone.find_element(By.ID, "show").is_displayed())
            self.assertFalse(phone.find_element(By.ID, "join-by-code").is_displayed(), "no code asked for")
        print(f"\n  talk change -> phone showing the new talk: by ear {seen[0]:.2f} s, by sight {seen[1]:.2f} s")


if __name__ == "__main__":
    unittest.main()
