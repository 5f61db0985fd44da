#!/usr/bin/env python3
"""Writes pretalx-democon.xml from pretalx-democon.json: the same DemoCon schedule as a frab/pretalx
schedule.xml, element by element in the layout of pretalx's own template
(src/pretalx/agenda/templates/agenda/schedule.xml) and valid against voc/schedule's
validator/xsd/schedule.xml.xsd. No real XML export could be copied (see README.md), so this one is
derived from the real JSON export, and stays under its licence (EUPL-1.2).

    python3 democon-json-to-xml.py > pretalx-democon.xml
    xmllint --noout --schema schedule.xml.xsd pretalx-democon.xml   # the XSD from voc/schedule
"""
import json
import sys
from pathlib import Path
from xml.sax.saxutils import escape, quoteattr

here = Path(__file__).resolve().parent
schedule = json.loads((here / "pretalx-democon.json").read_text())["schedule"]
conference = schedule["conference"]
out = []
w = out.append
w("<?xml version='1.0' encoding='utf-8' ?>")
w("<!-- Derived from pretalx-democon.json (voc/schedule, EUPL-1.2) by democon-json-to-xml.py: modified, 2026-11-28. -->")
w("<schedule>")
w(f"    <version>{escape(schedule['version'])}</version>")
w("    <conference>")
for key in ("title", "acronym", "start", "end"):
    w(f"        <{key}>{escape(conference[key])}</{key}>")
w(f"        <days>{conference['daysCount']}</days>")
w(f"        <timeslot_duration>{conference['timeslot_duration']}</timeslot_duration>")
w(f"        <time_zone_name>{escape(conference['time_zone_name'])}</time_zone_name>")
w("    </conference>")
guids = {room["name"]: room["guid"] for room in conference["rooms"]}
for day in conference["days"]:
    w(f"    <day index='{day['index']}' date='{day['date']}' start='{day['day_start']}' end='{day['day_end']}'>")
    for name in [room["name"] for room in conference["rooms"]]:
        events = day["rooms"].get(name, [])
        w(f"        <room name={quoteattr(name)} guid='{guids[name]}'>")
        for event in events:
            w(f"            <event guid='{event['guid']}' id='{event['id']}'>")
            for key in ("room", "title", "subtitle", "type", "date", "start", "duration", "abstract", "slug", "track"):
                w(f"                <{key}>{escape(event[key] or '')}</{key}>")
            w("                <persons>")
            for person in event["persons"]:
                w(f"                    <person id='{person['id']}'>{escape(person['public_name'])}</person>")
            w("                </persons>")
            w(f"                <language>{escape(event['language'])}</language>")
            w(f"                <description>{escape(event['description'] or '')}</description>")
            w(f"                <recording><license>{escape(event['recording_license'])}</license>"
              f"<optout>{'true' if event['do_not_record'] else 'false'}</optout></recording>")
            w("                <links></links>")
            w("                <attachments></attachments>")
            w(f"                <url>{escape(event['url'])}</url>")
            w("            </event>")
        w("        </room>")
    w("    </day>")
w("</schedule>")
sys.stdout.write("\n".join(out) + "\n")
