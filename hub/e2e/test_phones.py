"""The phones bench, small (tools/bench/phones with nearcast-hub-phones; its full runs, 1,000 and
10,000 phones over four instances, are in docs/measurements.md, "A room of phones"): two hub
instances on PostgreSQL behind HAProxy, 300 phones arriving over 5 s (half by ear, a quarter with
a pass by hearing, a quarter by the code on the screen), each earning its phone id and following
the show. The phones by sight come 3 s after their turn and the code's share is 100 % here: the
code's cap counts the phones that earned an id by hearing, and in a storm's first second that count
lags the passes given (a phone by sight is refused; the full runs count those refusals). Every
phone follows, none is refused, every phone sees each of the presenter's three
page turns, and every reaction from 100 of them is accepted and nearly all are drawn on the
presenter's stream. Then an instance is lost (--kill-one): the second hub gets SIGKILL while the
100 react and the page is turned at once through HAProxy; the turn is answered 200, the phones
whose stream ended reopen it as EventSource does (3 s later, none refused: an EventSource given
an error status stops for good), every phone holds the new page within 10 s, and the show counts
each reaction answered 202 around the kill (and at most once those whose answer was lost with
the hub: HAProxy does not send a POST to another hub).
Behaviour only: the timings are the bench's to report. About 23 s (release or debug builds, a quiet machine)."""
import json
import os
import subprocess
import sys
import unittest

import hubtest

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
BENCH = os.path.join(ROOT, "tools", "bench", "phones")
# The load tool beside the hub under test (tools/check/test-hub builds every product of hub/).
PHONES = os.environ.get("NEARCAST_HUB_PHONES_BIN", os.path.join(os.path.dirname(os.path.abspath(hubtest.HUB)), "nearcast-hub-phones"))


@unittest.skipUnless(hubtest.POSTGRES, "NEARCAST_HUB_POSTGRES_URL is not set (tools/check/test-hub starts a server)")
class PhonesBench(unittest.TestCase):
    def test_every_phone_follows_sees_every_page_turn_its_reactions_reach_the_presenter_and_it_survives_an_instance_killed(self):
        run = subprocess.run([sys.executable, BENCH, "--phones", "300", "--instances", "2", "--postgres", hubtest.POSTGRES,
                              "--hub-bin", hubtest.HUB, "--phones-bin", PHONES, "--pages", "5", "--code-share", "100",
                              "--json", "--check", "--kill-one",
                              "--", "--arrival-seconds", "5", "--sight-delay", "3", "--turns", "3", "--turn-pause", "0.5", "--reacting", "100",
                              "--reaction-seconds", "4", "--reactions-per-phone", "0.5", "--settle", "1",
                              "--kill-after", "1", "--kill-reaction-seconds", "4", "--back-timeout", "10"],
                             capture_output=True, text=True, timeout=240)
        self.assertEqual(run.returncode, 0, f"{run.stderr[-3000:]}\n{run.stdout[-3000:]}")
        report = json.loads(run.stdout)
        join = report["join"]
        self.assertEqual((join["following"], join["failed"]), (300, 0), join)
        self.assertEqual((join["refusals"], join["connectionErrors"]), ({}, {}), join)
        self.assertEqual(report["setup"]["kinds"], {"ear": 150, "heard": 75, "sight": 75})
        # Every instance holds some of them (the balancer spreads them) and counts them.
        self.assertEqual(sum(instance["followers"] for instance in report["memory"]), 300, report["memory"])
        self.assertTrue(all(instance["followers"] > 0 for instance in report["memory"]), report["memory"])
        turns = report["turns"]
        self.assertEqual([turn["status"] for turn in turns["perTurn"]], [200, 200, 200])
        self.assertEqual([turn["latency"]["n"] for turn in turns["perTurn"]], [300, 300, 300], turns)
        self.assertEqual(turns["missed"], 0)
        reactions = report["reactions"]
        self.assertGreater(reactions["sent"], 50, reactions)
        self.assertEqual(reactions["refused"], {}, reactions)
        self.assertEqual(reactions["accepted"], reactions["sent"])
        # The presenter's screen draws a fair share per phone of each 150 ms batch (at most 24), so
        # at 50 a second nearly all are drawn; each drawn one is matched to the POST that sent it.
        self.assertGreater(reactions["drawn"], 0.9 * reactions["accepted"], reactions)
        self.assertEqual(reactions["matched"], reactions["drawn"], reactions)

        kill = report["kill"]
        self.assertTrue(kill["killed"], kill)
        self.assertEqual((kill["instance"], kill["page"], kill["turnStatus"], kill["followers"]), ("hub 2", 5, 200, 300), kill)
        # The killed hub held some of the phones (the balancer spread them); each came back.
        self.assertGreater(kill["streamsLost"], 0, kill)
        self.assertEqual((kill["neverBack"], kill["back"]["n"], kill["backLost"]["n"]), (0, 300, kill["streamsLost"]), kill)
        self.assertGreaterEqual(kill["reopened"], kill["streamsLost"], kill)
        self.assertEqual(kill["refusals"], {}, kill)
        # Nothing acknowledged is lost and nothing counted twice: the show counts each 202, and
        # of the reactions whose answer was lost with the hub (no answer, or HAProxy's 502 when
        # its retries also failed: each tap carries its key, so HAProxy sends it to another hub)
        # at most each once, as the dying hub may have counted them.
        reacted = kill["reactions"]
        self.assertGreater(reacted["accepted"], 20, reacted)
        self.assertEqual(reacted["fateUnknown"], sum(reacted["otherAnswers"].get(name, 0) for name in ("no answer", "HTTP 502")), reacted)
        self.assertEqual(reacted["sent"], reacted["accepted"] + sum(reacted["otherAnswers"].values()), reacted)
        self.assertGreaterEqual(reacted["counted"], reacted["accepted"], reacted)
        self.assertLessEqual(reacted["counted"], reacted["accepted"] + reacted["fateUnknown"], reacted)
        # Before the kill no stream was lost; after it, those of the killed hub, each reopened.
        self.assertEqual({name: report["streams"][name] for name in ("lost", "revoked", "ended")},
                         {"lost": kill["streamsLost"], "revoked": 0, "ended": 0}, report["streams"])
        print(f"\n  300 phones over 2 instances: page turn p99 {turns['latency']['p99Ms']} ms, "
              f"reactions -> presenter p99 {reactions['sentToPresenter']['p99Ms']} ms; one instance killed: "
              f"{kill['streamsLost']} streams lost, all back on the new page within {kill['back']['maxMs'] / 1000:.2f} s, "
              f"{kill['reactions']['accepted']} reactions answered 202 and counted")


if __name__ == "__main__":
    unittest.main()
