"""A speaker's figures on a real hub process, on SQLite and PostgreSQL: a talk on now in Hall A,
its speaker's deck sent to the talk's address, the day runner putting it on the room's box, phones
that earned ids with the box's EID reacting on two slides, and the talk's address giving the
counts per slide and minute as JSON and CSV. What the router tests (TalkFiguresTests) cannot show:
the batches written by the running hub's 150 ms loop, and the SQL on PostgreSQL."""
import collections
import csv
import datetime
import io
import unittest

from hubtest import Beacon, ProjectOnAHub, pdf_deck, phone_id, poll
from test_present import EPOCH_ALIGNED_CLOCK, call


class SpeakerFigures(ProjectOnAHub):
    def test_reactions_on_two_slides_reach_the_speakers_figures(self):
        now = datetime.datetime.now(datetime.timezone.utc).replace(second=0, microsecond=0)
        day = (now - datetime.timedelta(hours=4)).date().isoformat()   # a CSV's day runs 04:00 to 03:59
        schedule = f"day,room,start,duration,title,speakers\n{day},Hall A,{now:%H:%M},30,Figures,Jane Doe\n"
        answer = call(self.hub, "PUT", "/v1/schedule?timeZone=UTC", raw=schedule.encode(), content_type="text/csv", key=self.secret)
        self.assertEqual(answer.status, 200, answer)
        beacon = Beacon(self.hub.service_public_key(), exponent=7, clock=EPOCH_ALIGNED_CLOCK)
        answer = call(self.hub, "POST", "/v1beta1/beacons:register", beacon.registration("Hall A"), key=self.secret)
        self.assertEqual(answer.status, 200, answer)
        talks = call(self.hub, "GET", "/v1/talks", key=self.secret).json["talks"]
        address = talks[0]["talk"]["uploadPath"]
        sent = call(self.hub, "POST", address, raw=pdf_deck(2), content_type="application/pdf")
        self.assertEqual(sent.status, 201, sent)
        deck, box = sent.json["deck"], beacon.name()[len("beacons/"):]
        # The day runner (once a second) puts the talk's own deck on the room's box.
        show = poll(lambda: call(self.hub, "GET", f"/v1/shows/{box}", key=self.secret),
                    lambda show: show.status == 200 and show.json["deck"] == deck, timeout=10)
        self.assertEqual((show.status, show.json.get("deck")), (200, deck), show)

        heard = {"type": "EDDYSTONE_EID", "id": beacon.observation()["advertisedId"]["id"]}
        phones = []
        for _ in range(2):
            status, phone = phone_id(self.hub, self.public, heard)
            self.assertEqual(status, 200, phone)
            phones.append(phone)

        def react(phone, value):
            answer = call(self.hub, "POST", "/v1/reactions", {"observed": heard, "reaction": value, "phone": phone}, key=self.public)
            self.assertEqual(answer.status, 202, answer)

        react(phones[0], "👏")
        react(phones[1], "❤️")
        # Counted before the page turns (the hub's batches go every 150 ms).
        poll(lambda: call(self.hub, "GET", address + "/reactions.json").json, lambda figures: figures["total"] == 2, timeout=5)
        self.assertEqual(call(self.hub, "PUT", f"/v1/shows/{box}", {"deck": deck, "page": 2}, key=self.secret).status, 200)
        react(phones[0], "👏")
        react(phones[1], "👏")

        figures = poll(lambda: call(self.hub, "GET", address + "/reactions.json").json, lambda figures: figures["total"] == 4,
                       timeout=5)
        self.assertEqual(figures["state"], "on")
        self.assertEqual([(slide["page"], slide["counts"]) for slide in figures["slides"]],
                         [(1, {"👏": 1, "❤️": 1}), (2, {"👏": 2})])
        self.assertEqual(sum(minute["total"] for minute in figures["timeline"]), 4)
        self.assertEqual(len(figures["timeline"]), 30)
        answer = call(self.hub, "GET", address + "/reactions.csv")
        self.assertEqual(answer.status, 200, answer)
        self.assertTrue(answer.headers["content-type"].startswith("text/csv"), answer)
        rows = list(csv.DictReader(io.StringIO(answer.data.decode())))
        by_slide = collections.Counter()
        for row in rows:   # a minute may have turned between two reactions: a row each
            by_slide[row["slide"], row["reaction"]] += int(row["count"])
        self.assertEqual(by_slide, {("1", "❤️"): 1, ("1", "👏"): 1, ("2", "👏"): 2})
        self.assertEqual({row["talk"] for row in rows}, {"Figures"})
        # An address the hub did not make: no figures.
        self.assertEqual(call(self.hub, "GET", address[:-2] + ("AA" if not address.endswith("AA") else "BB") + "/reactions.csv").status,
                         404)


class SQLiteSpeakerFigures(SpeakerFigures, unittest.TestCase):
    database_kind = "sqlite"


class PostgresSpeakerFigures(SpeakerFigures, unittest.TestCase):
    database_kind = "postgres"


if __name__ == "__main__":
    unittest.main()
