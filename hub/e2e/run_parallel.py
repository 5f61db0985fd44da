#!/usr/bin/env python3
"""Runs the hub's Python tests a test class per process, several classes at a time.

    python3 run_parallel.py [--jobs N]

Most of these tests wait: for a hub to start, a browser to hear a fake microphone, a timeout to
pass (the whole suite keeps one core 43 % busy). Run one class after another they took 442 s on
two cores; two classes at a time use the second core for what the first one waits on, and a
third uses what both still wait on: one more than the cores (on this 2-core machine, 199 tests:
381 s wall two at a time, 285 s three at a time, every class passing; each class's own time rose
by about a tenth, 760 s to 845 s in all). Each class
is its own `python3 -m unittest -v MODULE.CLASS` process, so classes share nothing but the
PostgreSQL server (every test makes a database of its own), and every hub listens on a port the
kernel picks.

The longest classes start first, so the last one to finish is a short one: EXPECTED_SECONDS holds
what each took on the CI machine (the runner prints what they take now, to refresh it). A class
not in it counts as long, so a new one starts early rather than alone at the end.

Each class's output is printed whole when it ends (not interleaved), then a summary: classes and
tests run, each failed class's failures again (the tail of a long log is what a reader sees
first), and the wall time. Exits 1 if any class failed, 2 on bad arguments.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
import unittest

# Seconds each class took, one class after another, on the CI machine (2 cores): for the order.
EXPECTED_SECONDS = {
    "test_present_browser.PresentInTheBrowser": 129,
    "test_day.TheDayInTheBrowser": 86,
    "test_openapi.PostgresOpenAPITests": 84,
    "test_limits.HubLimitsTests": 56,
    "test_present_audience.TheAudiencesPhone": 55,
    "test_demo.TheDemoDay": 45,   # 10-70 s: it waits for the second room's next change, on a whole minute
    "test_hostile_room.HostileRoom": 40,
    "test_listener.BrowserDecoderMatchesTheNativeOne": 40,
    "test_listener.ListenerPageHearsTheBox": 36,
    "test_present.PostgresPresentTests": 30,
    "test_box.BoxPublishesThroughTheHub": 29,
    "test_api.PostgresAPITests": 23,
    "test_check_page.CheckPageInChromium": 22,
    "test_reach.TheRoomsReach": 21,
    "test_present_stage.PresentOnTheStage": 21,
    "test_api.SQLiteAPITests": 19,
    "test_security_headers.SecurityHeadersInChromium": 18,
    "test_venue_netns.HubAtAVenue": 18,
    "test_present_browser.PresentAcrossTwoHubs": 17,
    "test_balancer.HubsBehindHAProxy": 27,
    "test_presenter_doc.PresenterChapterAsWritten": 13,
    "test_status_page.StatusPageInChromium": 12,
    "test_renderer_limits.RendererLimits": 11,
    "test_watch_grant.PostgresWatchGrantTests": 9,
    "test_tls.ListenerPageOverHTTPS": 7,
    "test_tls.HubOverHTTPS": 7,
    "test_watch_grant.SQLiteWatchGrantTests": 6,
    "test_instances.TwoInstancesOnOnePostgres": 6,
    "test_listener.ListenerPageSaysWhyItIsNotListening": 5,
    "test_database_outage.DatabaseOutage": 5,
    "test_fieldchecks.PostgresFieldCheckTests": 5,
    "test_speaker_figures.PostgresSpeakerFigures": 3,
    "test_speaker_figures.SQLiteSpeakerFigures": 3,
    "test_demo.TheDemo": 12,
    "test_talk_change.TalkChangeBench": 16,
    "test_phones.PhonesBench": 30,
    "test_venue_rules.ThreeInstancesOneVenue": 16,
    "test_service.ServiceManagerContract": 1,
    "test_security_headers.SecurityHeadersOverHTTP": 1,
}
UNKNOWN_SECONDS = 60   # a class not measured yet: started early


def test_classes(directory):
    """MODULE.CLASS of every class with tests in directory's test_*.py, in discovery order."""
    classes = []

    def walk(suite):
        for item in suite:
            if isinstance(item, unittest.TestSuite):
                walk(item)
            else:
                if isinstance(item, unittest.loader._FailedTest):
                    raise SystemExit(f"run_parallel: cannot load {item.id()}: {item._exception}")
                name = f"{type(item).__module__}.{type(item).__name__}"
                if name not in classes:
                    classes.append(name)

    walk(unittest.defaultTestLoader.discover(directory, pattern="test_*.py", top_level_dir=directory))
    return classes


def summary_counts(output):
    """(tests run, failed or errored, skipped) from a unittest run's output."""
    ran = re.search(r"^Ran (\d+) tests? in", output, re.M)
    failed = re.search(r"^FAILED \((.*)\)$", output, re.M)
    bad = sum(int(n) for n in re.findall(r"(?:failures|errors)=(\d+)", failed.group(1))) if failed else 0
    skipped = re.search(r"skipped=(\d+)", output)
    return (int(ran.group(1)) if ran else 0, bad, int(skipped.group(1)) if skipped else 0)


def failure_report(output, limit=4000):
    """The failures and errors a unittest run's output ends with (from its first `FAIL:` or
    `ERROR:` block to its `Ran N tests` line), or its last lines when it has none (a crash); at
    most `limit` characters: its start (which test, which line) and its end (the message)."""
    match = re.search(r"^={20,}\n(?:FAIL|ERROR): .*?(?=^Ran \d+ tests? in)", output, re.M | re.S)
    text = match.group(0) if match else "\n".join(output.splitlines()[-40:])
    return text if len(text) <= limit else text[:limit * 3 // 8] + "\n[...]\n" + text[-limit * 5 // 8:]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--jobs", type=int, default=int(os.environ.get("NEARCAST_HUB_TEST_JOBS", 0)) or (os.cpu_count() or 2) + 1,
                        help="classes at a time (default: NEARCAST_HUB_TEST_JOBS, else the number of cores)")
    arguments = parser.parse_args()
    if arguments.jobs < 1:
        parser.error(f"--jobs must be at least 1, not {arguments.jobs}")

    directory = os.path.dirname(os.path.abspath(__file__))
    waiting = sorted(test_classes(directory), key=lambda name: -EXPECTED_SECONDS.get(name, UNKNOWN_SECONDS))
    total = len(waiting)
    print(f"run_parallel: {total} test classes, {arguments.jobs} at a time", flush=True)
    started_all = time.monotonic()
    running = {}   # Popen -> (class, output file, started)
    results = []   # (class, returncode, seconds, tests, bad, skipped)
    reports = []   # (class, its failures), printed again at the end where a reader of the log's tail sees them
    while waiting or running:
        while waiting and len(running) < arguments.jobs:
            name = waiting.pop(0)
            output = tempfile.TemporaryFile(mode="w+", encoding="utf-8", errors="replace")
            process = subprocess.Popen([sys.executable, "-W", "ignore", "-m", "unittest", "-v", name],
                                       cwd=directory, stdout=output, stderr=subprocess.STDOUT)
            running[process] = (name, output, time.monotonic())
        finished = None
        while finished is None:
            for process in running:
                if process.poll() is not None:
                    finished = process
                    break
            else:
                time.sleep(0.2)   # a poll interval: which of the running classes ended
        name, output, started = running.pop(finished)
        seconds = time.monotonic() - started
        output.seek(0)
        text = output.read()
        output.close()
        tests, bad, skipped = summary_counts(text)
        if finished.returncode != 0 and bad == 0:
            bad = 1   # it ended badly without a unittest summary (a crash, a failed import)
        results.append((name, finished.returncode, seconds, tests, bad, skipped))
        if finished.returncode != 0:
            reports.append((name, failure_report(text)))
        verdict = "ok" if finished.returncode == 0 else "FAILED"
        print(f"\n===== {name}: {verdict}, {tests} tests in {seconds:.1f} s ({len(results)}/{total}) =====", flush=True)
        sys.stdout.write(text)
        sys.stdout.flush()

    wall = time.monotonic() - started_all
    print("\nrun_parallel: each class's time (s):")
    for name, code, seconds, tests, bad, skipped in sorted(results, key=lambda r: -r[2]):
        print(f"  {seconds:6.1f}  {name}  {tests} tests" + (f", {bad} failed" if code else "") +
              (f", {skipped} skipped" if skipped else ""))
    tests = sum(r[3] for r in results)
    failed = [r[0] for r in results if r[1] != 0]
    serial = sum(r[2] for r in results)
    print(f"run_parallel: {tests} tests in {len(results)} classes, {arguments.jobs} at a time: "
          f"{wall:.0f} s wall ({serial:.0f} s one after another)")
    if failed:
        for name, report in reports:
            print(f"\n===== {name}: what failed (its whole output is above) =====\n{report.rstrip()}")
        print(f"run_parallel: FAILED: {', '.join(failed)}", flush=True)
        return 1
    print("run_parallel: all passed", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
