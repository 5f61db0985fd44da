"""docs/presenter.md's "From a PDF to a room of phones", run as written, gives a following phone.

The commands are read from the chapter's shell blocks, not copied here, so the chapter cannot
drift from what works. Only what a test machine cannot have is replaced: the binaries' paths, the
public address and its certificate (the hub listens on a loopback port over HTTP), the key the
first command printed, a PDF for `slides.pdf`, and, for the box, the simulated board
(`--board sim --state-dir DIR --console none --duration 10`: a WAV file is its speaker). Nothing
is added to the box's command: a box given a hub must be found by phones without a `--publish`.

The phone is the box's own decoder (`nearcast decode`, the code the listener page runs in
WebAssembly) on the box's audio, then the listener page's calls: resolve what it heard with the
public key (getforobserved), read and follow the show with the watch token it got. The presenter
sees it follow, and is told why while it does not."""
import base64
import json
import os
import re
import shlex
import shutil
import subprocess
import tempfile
import unittest

from hubtest import HUB, NEARCAST, Hub, pdf_deck

CHAPTER = os.path.join(os.path.dirname(__file__), "..", "..", "docs", "presenter.md")
SECTION = "## From a PDF to a room of phones"


def chapter_commands():
    """The shell commands of the chapter's first section, comments and `\\` continuations joined."""
    text = open(CHAPTER, encoding="utf-8").read()
    section = text[text.index(SECTION):]
    section = section[:section.index("\n## ", 1)]
    commands = []
    for block in re.findall(r"```sh\n(.*?)```", section, re.S):
        for line in block.replace("\\\n", " ").splitlines():
            line = line.split("  #", 1)[0].strip()
            if line:
                commands.append(line)
    return commands


class PresenterChapterAsWritten(unittest.TestCase):
    def setUp(self):
        self.work = tempfile.mkdtemp(prefix="nearcast-presenter-doc-")
        self.hub = None
        self.box_log = os.path.join(self.work, "box.log")

    def tearDown(self):
        if self.hub:
            if self._outcome.success is False:
                print(self.hub.stderr()[-3000:])
            self.hub.stop()
        if self._outcome.success is False and os.path.exists(self.box_log):
            print(open(self.box_log).read()[-3000:])
        shutil.rmtree(self.work, ignore_errors=True)

    def run_hub_command(self, words):
        """A `nearcast-hub` command of the chapter in the hub's working directory (the default
        SQLite file is there, as on the hub's machine): its JSON answer."""
        done = subprocess.run([HUB, *words[1:]], cwd=self.work, capture_output=True, text=True, timeout=120)
        self.assertEqual(done.returncode, 0, f"{' '.join(words)}: {done.stderr}")
        return json.loads(done.stdout)

    def test_the_chapters_commands_give_a_following_phone(self):
        commands = chapter_commands()
        hub_commands = [shlex.split(c) for c in commands if c.startswith("nearcast-hub ")]
        box_commands = [shlex.split(c) for c in commands if c.startswith("nearcast run ")]
        self.assertEqual([c[:3] for c in hub_commands[:2]], [["nearcast-hub", "project", "create"], ["nearcast-hub", "deck", "add"]],
                         commands)
        self.assertEqual(len(box_commands), 1, commands)

        keys = self.run_hub_command(hub_commands[0])
        with open(os.path.join(self.work, "slides.pdf"), "wb") as f:
            f.write(pdf_deck(4))
        deck = self.run_hub_command(hub_commands[1])["deck"]
        serve = [c for c in commands if "nearcast-hub serve" in c]
        self.assertEqual(len(serve), 1, commands)
        # The hub as served there, on a loopback port and without the venue's certificate.
        self.hub = Hub("sqlite:" + os.path.join(self.work, "nearcast-hub.sqlite"))
        url = f"http://127.0.0.1:{self.hub.port}"

        box = box_commands[0]
        self.assertNotIn("--publish", box, "the chapter's box needs nothing more than its hub")
        arguments = [NEARCAST, *box[1:]]
        arguments[arguments.index("--hub") + 1] = url
        arguments[arguments.index("--hub-key") + 1] = keys["secretKey"]
        arguments += ["--board", "sim", "--state-dir", os.path.join(self.work, "box"), "--console", "none", "--duration", "10"]
        with open(self.box_log, "w") as log:
            done = subprocess.run(arguments, stdout=log, stderr=subprocess.STDOUT, timeout=120)
        self.assertEqual(done.returncode, 0, open(self.box_log).read()[-2000:])

        # The presenter picks the deck and the room's box and starts.
        status, listed = self.hub.get("/v1beta1/beacons", key=keys["secretKey"])
        self.assertEqual((status, len(listed["beacons"])), (200, 1), listed)
        beacon = listed["beacons"][0]["beaconName"].removeprefix("beacons/")
        if "--name" in box:
            self.assertEqual(listed["beacons"][0]["description"], box[box.index("--name") + 1],
                             "the presenter finds the room's box by the name it was given")
        status, show = self.hub.request("PUT", f"/v1/shows/{beacon}", {"deck": deck, "page": 1}, key=keys["secretKey"])
        self.assertEqual(status, 200, show)
        self.assertEqual(show["followers"], 0)
        self.assertEqual(show["reach"], {"state": "waiting", "message": "Waiting for the first phones… 0 following."},
                         "a show just started counts its first phones")

        # A phone hears the box...
        decoded = subprocess.run([NEARCAST, "decode", "--json", os.path.join(self.work, "box", "audio.wav")],
                                 capture_output=True, text=True, timeout=120)
        heard = [json.loads(line) for line in decoded.stdout.splitlines() if line.strip()]
        eids = {token["payload"] for token in heard if token.get("kind") == "eid"}
        self.assertEqual(len(eids), 1, f"the box broadcasts one EID: {heard[:3]}")
        eid = bytes.fromhex(eids.pop())
        observation = {"advertisedId": {"type": "EDDYSTONE_EID", "id": base64.b64encode(eid).decode()}}
        # ...resolves it with the public key, as the listener page does...
        token = self.hub.watch_token(keys["apiKey"], observation)
        status, show = self.hub.get(f"/v1/shows/{beacon}?token={token}", key=keys["apiKey"])
        self.assertEqual((status, show["deck"], show["page"]), (200, deck, 1), show)
        # ...and follows: the presenter sees it.
        follower = self.hub.show_events(beacon, keys["apiKey"], token=token)
        try:
            event, data = follower.next(timeout=10)
            self.assertEqual((event, data["deck"]), ("show", deck))
            status, show = self.hub.get(f"/v1/shows/{beacon}", key=keys["secretKey"])
            self.assertEqual((show["followers"], show["reach"]["state"]), (1, "waiting"), show)
            self.assertEqual(show["reach"]["message"], "Waiting for the first phones… 1 following.")
        finally:
            follower.close()


if __name__ == "__main__":
    unittest.main()
