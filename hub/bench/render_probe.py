#!/usr/bin/env python3
"""Does a slow deck's render stop the hub? /healthz probed during it, then SIGTERM's time.

Starts `nearcast-hub serve` (SQLite, a fresh project), uploads a one-page PDF of RECTANGLES
filled rectangles (hub/e2e/test_renderer_limits.py's slow_pdf: 200,000 take pdftoppm about
70 s at 1,600 pixels on the build machine, 400,000 about 135 s), and probes /healthz every
0.25 s from another connection (a 2 s timeout: a probe past it is lost) for SECONDS or until
the upload is answered. Prints the probes' p50/p99/max and losses against a quiet baseline,
then either SIGTERMs the hub mid-render and times its exit (the default), or with --wait lets
the upload run to its answer (with the default 120 s deadline: the time to refusal).

  hub/bench/render_probe.py [--binary PATH] [--seconds 30] [--rectangles 200000] [--wait] [-- serve flags]

Uses hub/.build/debug/nearcast-hub (or $NEARCAST_HUB_BIN) unless --binary says.
"""
import argparse
import http.client
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "e2e"))
from test_renderer_limits import slow_pdf  # noqa: E402


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=os.environ.get(
        "NEARCAST_HUB_BIN", os.path.join(os.path.dirname(__file__), "..", ".build", "debug", "nearcast-hub")))
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--rectangles", type=int, default=200_000)
    parser.add_argument("--wait", action="store_true", help="let the upload run to its answer instead of SIGTERM")
    parser.add_argument("serve", nargs="*", help="more flags for serve (after --)")
    args = parser.parse_args()

    folder = tempfile.mkdtemp(prefix="render-probe-")
    database = f"sqlite:{folder}/hub.sqlite"
    keys = json.loads(subprocess.run([args.binary, "project", "create", "demo", "--db", database],
                                     capture_output=True, text=True, check=True).stdout)
    hub = subprocess.Popen([args.binary, "serve", "--listen", "127.0.0.1:0", "--db", database, *args.serve],
                           stdout=subprocess.PIPE, stderr=open(os.path.join(folder, "hub.log"), "w"), text=True)
    port = None
    while port is None:
        line = hub.stdout.readline()
        if not line:
            sys.exit(f"the hub did not start (its log: {folder}/hub.log)")
        if "serving http" in line:
            port = int(line.rsplit(":", 1)[1])

    def probe():
        """Seconds for one /healthz, None when it failed or took over 2 s."""
        started = time.monotonic()
        try:
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            connection.request("GET", "/healthz")
            response = connection.getresponse()
            response.read()
            connection.close()
            return time.monotonic() - started if response.status == 200 else None
        except OSError:
            return None

    quiet = [probe() for _ in range(20)]
    upload = {}

    def send():
        started = time.monotonic()
        try:
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
            connection.request("POST", "/v1/decks", body=slow_pdf(args.rectangles),
                               headers={"X-Api-Key": keys["secretKey"], "Content-Type": "application/pdf"})
            response = connection.getresponse()
            upload["answer"] = f"{response.status} {response.read()[:160].decode(errors='replace')}"
        except (OSError, http.client.HTTPException) as error:
            upload["answer"] = repr(error)
        upload["seconds"] = time.monotonic() - started

    thread = threading.Thread(target=send, daemon=True)
    thread.start()
    time.sleep(0.5)
    latencies, lost = [], 0
    end = time.monotonic() + args.seconds
    while time.monotonic() < end and thread.is_alive():
        latency = probe()
        if latency is None:
            lost += 1
        else:
            latencies.append(latency)
        time.sleep(0.25)

    def ms(seconds):
        return f"{seconds * 1000:.1f} ms"

    print(f"quiet /healthz: p50 {ms(statistics.median(quiet))}, max {ms(max(quiet))}")
    line = f"during the render: {len(latencies)} answered, {lost} lost"
    if latencies:
        ordered = sorted(latencies)
        line += (f"; p50 {ms(statistics.median(ordered))}, p99 {ms(ordered[max(0, int(len(ordered) * 0.99) - 1)])}, "
                 f"max {ms(ordered[-1])}")
    print(line)
    if thread.is_alive() and not args.wait:
        started = time.monotonic()
        hub.send_signal(signal.SIGTERM)
        try:
            hub.wait(timeout=300)
            print(f"SIGTERM during the render: the hub exited after {time.monotonic() - started:.2f} s")
        except subprocess.TimeoutExpired:
            print("SIGTERM during the render: no exit in 300 s (killed)")
            hub.kill()
        thread.join(10)
    else:
        thread.join()
        hub.send_signal(signal.SIGTERM)
        hub.wait()
    print(f"the upload: {upload.get('answer')} after {upload.get('seconds', 0):.1f} s")


if __name__ == "__main__":
    main()
