"""tools/demo, as a newcomer runs it: the whole venue on this machine in one command.

Runs `tools/demo --dir DIR --port 0` with this checkout's debug builds (NEARCAST_BIN and
NEARCAST_HUB_BIN, so it builds nothing), reads the addresses it prints last, opens the
audience's address in headless Chromium as a phone whose microphone is the file the demo says
holds the first room's box's sound, and sees the phone follow the show the day started there: the
sample deck's first slide, then the second when the presenter turns the page. Then Ctrl-C
(SIGINT): the demo exits 0 and leaves no process of its own behind. A second run reuses the
folder: the same keys and the same deck.

TheDemoDay runs the demo's day compressed (`--talk-minutes 1`): both rooms have their box and
their talk, and in the second room, with nobody acting, the talk on now changes at the scheduled
minute, in `GET /v1/rooms` and on a phone that follows that room's box by ear, without
reloading."""
import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time
import unittest
import urllib.request
from datetime import datetime

from hubtest import HUB, NEARCAST, chromium, have_chromium
from test_listener import fake_microphone
from test_present_audience import emulate
from test_present_browser import shows, wait_for

DEMO = os.path.join(os.path.dirname(__file__), "..", "..", "tools", "demo")
ROOMS = ("Demo room", "Second room")   # the demo's rooms, each with a box named as it


def processes_naming(text):
    """Pids of the processes whose command line contains `text`."""
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                if text.encode() in f.read():
                    found.append(int(pid))
        except OSError:
            continue
    return found


class DemoRuns(unittest.TestCase):
    """Runs tools/demo in a folder of its own, and cleans up after it."""

    def setUp(self):
        self.work = tempfile.mkdtemp(prefix="nearcast-demo-")
        self.folder = os.path.join(self.work, "venue")
        self.browser = None
        self.demo = None

    def tearDown(self):
        if self.browser:
            self.browser.quit()
        if self.demo and self.demo.poll() is None:
            self.demo.kill()
            self.demo.wait()
        if self.demo:
            self.demo.stdout.close()
            self.demo.stderr.close()
        if self._outcome.success is False:
            for log in ("hub.log", "box.log", "box-second-room.log"):
                path = os.path.join(self.folder, log)
                if os.path.exists(path):
                    print(f"--- {log}\n" + open(path, errors="replace").read()[-2000:])
        shutil.rmtree(self.work, ignore_errors=True)

    def start_demo(self, *extra):
        """The demo started, and what it printed up to its last address (the Chromium command of
        each room's box): (stdout lines, seconds)."""
        env = dict(os.environ, NEARCAST_BIN=NEARCAST, NEARCAST_HUB_BIN=HUB)
        started = time.monotonic()
        self.demo = subprocess.Popen([DEMO, "--dir", self.folder, "--port", "0", *extra], stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True, env=env)
        lines, commands = [], 0
        while True:
            line = self.demo.stdout.readline()
            if not line:   # (the message read only then: reading stderr waits for its end)
                self.fail(f"the demo ended before printing its addresses: {self.demo.stderr.read()[-2000:]}")
            lines.append(line.rstrip("\n"))
            if "chromium --use-fake" in line:
                lines.append(self.demo.stdout.readline().strip())
                commands += 1
                if commands == len(ROOMS):
                    return lines, time.monotonic() - started

    def open_phone(self, microphone, audience):
        """A phone whose microphone hears what `microphone` holds now (a copy: the demo refreshes
        it) opening the audience's address; when it opened it (time.monotonic())."""
        heard = os.path.join(self.work, "heard.wav")
        shutil.copy(microphone, heard)
        self.browser = chromium(*fake_microphone(heard))
        emulate(self.browser, 390, 844)
        began = time.monotonic()
        self.browser.get(audience)
        return began

    def keys(self):
        """The venue's keys.json: the project's keys and the sample deck's id."""
        with open(os.path.join(self.folder, "keys.json")) as f:
            return json.load(f)

    def hub(self, base, path, key):
        """GET `path` on the demo's hub with `key`: its JSON."""
        request = urllib.request.Request(base + path, headers={"X-Api-Key": key})
        with urllib.request.urlopen(request, timeout=30) as answer:
            return json.load(answer)

    def stop_demo(self):
        """Ctrl-C: the demo exits 0, saying it stopped everything it started."""
        self.demo.send_signal(signal.SIGINT)
        self.assertEqual(self.demo.wait(timeout=60), 0)
        self.assertIn("stopped the boxes and the hub", self.demo.stderr.read())


class TheDemo(DemoRuns):
    def test_one_command_gives_a_show_that_a_phone_follows_and_ctrl_c_leaves_nothing(self):
        lines, seconds = self.start_demo()
        text = "\n".join(lines)
        audience = re.search(r"^\s+(http://127\.0\.0\.1:\d+/listen\?key=ncpub_\S+)$", text, re.M).group(1)
        presenter = re.search(r"^\s+(http://127\.0\.0\.1:\d+/present#key=ncsec_\S+)$", text, re.M).group(1)
        microphone = re.search(r"^\s+(/\S+/microphone\.wav)$", text, re.M).group(1)
        print(f"\n  tools/demo (built already): its addresses printed {seconds:.1f} s after it started")
        self.assertTrue(os.path.exists(microphone), microphone)
        keys = self.keys()
        self.assertIn(keys["secretKey"], presenter)

        # A phone given the box's sound opens the audience's address and follows the show.
        began = self.open_phone(microphone, audience)
        wait_for(shows(self.browser, 1), 60, "the sample deck's first slide on the phone", self.browser)
        print(f"  the audience's address to the first slide, by ear: {time.monotonic() - began:.1f} s")
        self.assertEqual(self.browser.find_element("id", "show-title").text, "Nearcast in five slides")

        # The presenter turns the page (what the presenter's address does on a key press).
        base = audience.split("/listen")[0]
        beacon = re.search(r"beacon=(\S+)$", presenter).group(1)
        request = urllib.request.Request(f"{base}/v1/shows/{beacon}", method="PUT",
                                         data=json.dumps({"deck": keys["deck"], "page": 2}).encode(),
                                         headers={"X-Api-Key": keys["secretKey"], "Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=30) as answer:
            self.assertEqual(answer.status, 200)
        wait_for(shows(self.browser, 2), 10, "the phone following the presenter to slide 2", self.browser)
        self.browser.quit()
        self.browser = None

        # Ctrl-C: everything it started stops, and it says so.
        ours = processes_naming(self.folder)
        self.assertGreaterEqual(len(ours), 3, "the hub and the two boxes run with the venue's folder in their command lines")
        self.stop_demo()
        left = [pid for pid in processes_naming(self.folder) if pid != os.getpid()]
        self.assertEqual(left, [], "no process of the demo's is left after Ctrl-C")

        # Again: the same folder, keys and deck; --duration ends it by itself.
        self.demo.stdout.close()
        self.demo.stderr.close()
        lines, _ = self.start_demo("--duration", "3")
        self.assertIn(keys["apiKey"], "\n".join(lines))
        self.assertEqual(self.demo.wait(timeout=60), 0)
        said = self.demo.stderr.read()
        self.assertIn(f"reusing {self.folder}", said)
        self.assertIn("imported the day: 7 talks in 2 rooms, 0 added", said, "a fresh day, the same talks")
        self.assertEqual(self.keys(), keys)

    def test_a_folder_that_is_not_a_venue_is_refused_naming_it(self):
        os.makedirs(self.folder)
        with open(os.path.join(self.folder, "keys.json"), "w") as f:
            f.write("{ not json")
        env = dict(os.environ, NEARCAST_BIN=NEARCAST, NEARCAST_HUB_BIN=HUB)
        done = subprocess.run([DEMO, "--dir", self.folder, "--port", "0", "--duration", "2"], capture_output=True, text=True,
                              env=env, timeout=60)
        self.assertNotEqual(done.returncode, 0)
        self.assertIn(f"{self.folder}/keys.json is not a demo venue's keys", done.stderr)
        self.assertEqual(processes_naming(self.folder), [], "nothing was started")
        self.assertEqual(open(os.path.join(self.folder, "keys.json")).read(), "{ not json", "the file is left as it was")


@unittest.skipIf(not have_chromium(), "needs selenium and Debian's chromium")
class TheDemoDay(DemoRuns):
    def test_the_talks_change_on_their_own_and_a_phone_in_the_second_room_follows_without_reloading(self):
        lines, _ = self.start_demo("--talk-minutes", "1")
        text = "\n".join(lines)
        audience = re.search(r"^\s+(http://127\.0\.0\.1:\d+/listen\?key=ncpub_\S+)$", text, re.M).group(1)
        microphone = re.search(r"^\s+(/\S+/microphone-second-room\.wav)$", text, re.M).group(1)
        base = audience.split("/listen")[0]
        keys = self.keys()
        self.assertRegex(text, re.compile(rf"^\s+{re.escape(base)}/$", re.M), "the operators' page's address")
        for room in ROOMS:
            first_talk = re.compile(rf"^\s+{room}\s+\d\d:\d\d-\d\d:\d\d  ", re.M)
            self.assertRegex(text, first_talk, f"{room}'s first talk in the day printed")

        # Both rooms have their box (each box named as its room) and a talk, now or next.
        rooms = self.hub(base, "/v1/rooms", keys["secretKey"])
        self.assertEqual([room["name"] for room in rooms["rooms"]], list(ROOMS), rooms)
        self.assertEqual(rooms["problems"], [], rooms)
        first = rooms["rooms"][0]
        self.assertEqual((first["now"]["title"], first["now"]["deck"]), ("Nearcast in five slides", keys["deck"]), first)
        self.assertTrue(all(room["beaconName"] for room in rooms["rooms"]), rooms)
        day = self.hub(base, "/v1/day", keys["secretKey"])
        self.assertEqual([(room["name"], room["box"]["online"]) for room in day["rooms"]], [(room, True) for room in ROOMS], day)

        # A phone in the second room: it hears that room's box and follows its show.
        talks = [t["talk"] for t in self.hub(base, "/v1/talks", keys["secretKey"])["talks"] if t["room"] == ROOMS[1]]
        titles = {talk["title"] for talk in talks} | {"Next: " + talk["title"] for talk in talks}
        began = self.open_phone(microphone, audience)
        title = lambda: self.browser.find_element("id", "show-title").text  # noqa: E731
        wait_for(lambda: title() in titles, 60, "the second room's talk on the phone", self.browser)
        print(f"  the audience's address to the second room's talk, by ear: {time.monotonic() - began:.1f} s")
        self.assertIn(ROOMS[1], self.browser.find_element("id", "show-room").text)
        self.browser.execute_script("window.nearcastTestMark = 'not reloaded'")

        # The room's next change, a talk's start or end, with nobody acting: what it is to be.
        at = lambda stamp: datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()  # noqa: E731
        changes = sorted([(at(t["start"]), t["title"], t["title"]) for t in talks] +
                         [(at(t["end"]), None, "Next: " + n["title"]) for t, n in zip(talks, talks[1:])])
        when, now_title, shown = next(change for change in changes if change[0] > time.time() + 1)
        before = title()
        self.assertNotEqual(before, shown)
        self.assertLess(when - time.time(), 65, "a change within the minute")
        # GET /v1/rooms and the phone, from the scheduled moment on.
        time.sleep(max(0.0, when - time.time()))
        second = self.hub(base, "/v1/rooms", keys["secretKey"])["rooms"][1]
        # After a talk's end (the change the test meets when the demo started late in its
        # minute), `now` is left out of the room's JSON, not null.
        self.assertEqual((second.get("now") or {}).get("title"), now_title, "GET /v1/rooms's talk on now at the scheduled minute")
        wait_for(lambda: title() == shown, 10, f"'{shown}' on the phone", self.browser)
        late = time.time() - when
        print(f"  the second room's talk change ({before!r} -> {shown!r}) -> the phone showing it: {late:.2f} s")
        self.assertEqual(self.browser.execute_script("return window.nearcastTestMark"), "not reloaded")
        self.assertTrue(self.browser.find_element("id", "show").is_displayed())
        self.browser.quit()
        self.browser = None
        self.stop_demo()


if __name__ == "__main__":
    unittest.main()
