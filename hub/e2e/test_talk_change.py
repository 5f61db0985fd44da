"""The talk-change bench, small (tools/bench/talk-change; its full runs are in docs/measurements.md,
"A venue's day"): a real hub's day runner changes a room's talk while 30 phones follow its show,
a third by ear (the public key and a watch token), a third with a pass earned by hearing, a third
by sight (the QR code's address, the typed code). Every phone gets the new talk at page 1 and
loads its image: none is dropped at the change, the sight-joined ones included. About 15 s, most
of it the wait for the talk's start."""
import json
import os
import subprocess
import sys
import unittest

import hubtest

BENCH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools", "bench", "talk-change")


class TalkChangeBench(unittest.TestCase):
    def test_every_phone_follows_a_talk_change_those_that_joined_by_sight_included(self):
        run = subprocess.run([sys.executable, BENCH, "--phones", "30", "--changes", "1", "--soon", "10", "--check", "--json",
                              "--hub-bin", hubtest.HUB], capture_output=True, text=True, timeout=180)
        self.assertEqual(run.returncode, 0, f"{run.stderr[-3000:]}\n{run.stdout[-3000:]}")
        figures = json.loads(run.stdout)
        self.assertEqual(figures["joined"]["failed"], 0, figures["joined"])
        self.assertEqual(figures["missed_reasons"], {})
        for kind in ("ear", "heard", "sight", "all"):
            with self.subTest(kind=kind):
                self.assertEqual(figures["event"][kind]["missed"], 0, figures["event"])
                self.assertEqual(figures["page"][kind]["missed"], 0, figures["page"])
        self.assertEqual(figures["kinds"], {"ear": 10, "heard": 10, "sight": 10})
        # The day runner looks once a second: a few seconds is a runner that stopped looking on
        # time (the 15 s), not a slow machine.
        self.assertLess(figures["page"]["all"]["max_s"], 5.0, figures["per_change"])
        event, page = figures["event"]["all"], figures["page"]["all"]
        print(f"\n  talk change -> 30 phones: event p50 {event['p50_s']:.2f} s, max {event['max_s']:.2f} s; "
              f"page loaded p50 {page['p50_s']:.2f} s, max {page['max_s']:.2f} s")


if __name__ == "__main__":
    unittest.main()
