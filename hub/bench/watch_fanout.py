#!/usr/bin/env python3
"""How long one change takes to reach every watcher of a beacon, and what resolves cost meanwhile.

Opens W attachment watches on one beacon (raw sockets, one thread, a selector), waits for each
one's first event, then changes the beacon's attachment (a 100 KiB one, as a slide's message
can be) and times (a) until every watcher has the new event, (b) getforobserved calls made by
another client during the delivery, and reports the hub's `nearcast_hub_watch_reads_total`
(reads of the attachments made for watchers) before and after: the watchers of a beacon share
one read and one encoding per change, so the counter moves once per change, not once per
watcher.

  hub/bench/watch_fanout.py [--watchers 2000] [--changes 5]

Uses hub/.build/release/nearcast-hub (or $NEARCAST_HUB_BIN), SQLite, `--limits off`.
"""
import argparse
import os
import re
import resource
import selectors
import socket
import statistics
import sys
import threading
import time
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "e2e"))
os.environ.setdefault("NEARCAST_HUB_BIN", os.path.join(os.path.dirname(__file__), "..", ".build", "release", "nearcast-hub"))
from hubtest import Database, Hub, b64, create_project  # noqa: E402


def watch_reads(port):
    text = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=30).read().decode()
    match = re.search(r"^nearcast_hub_watch_reads_total(?:\{\})? (\S+)$", text, re.M)
    return float(match.group(1)) if match else 0.0


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--watchers", type=int, default=2000)
    parser.add_argument("--changes", type=int, default=5)
    arguments = parser.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))

    database = Database("sqlite")
    keys = create_project(database.url, "bench")
    hub = Hub(database.url, extra=["--limits", "off"])
    try:
        token_id = b64(bytes([0xFA, 0x01]))
        status, beacon = hub.post("/v1beta1/beacons:register", {"advertisedId": {"type": "EDDYSTONE", "id": token_id}}, key=keys["secretKey"])
        assert status == 200, beacon
        name = beacon["beaconName"]
        big = os.urandom(100 * 1024)
        status, _ = hub.post(f"/v1beta1/{name}/attachments", {"namespacedType": "bench/slide", "data": b64(big)}, key=keys["secretKey"])
        assert status == 200
        observe = {"observations": [{"advertisedId": {"type": "EDDYSTONE", "id": token_id}}], "namespacedTypes": ["*"]}
        status, answer = hub.post("/v1beta1/beaconinfo:getforobserved", observe, key=keys["apiKey"])
        watch_token = answer["beacons"][0].get("watchToken", "")
        request = (f"GET /v1beta1/{name}/attachments:watch?key={keys['apiKey']}&token={watch_token} HTTP/1.1\r\n"
                   f"Host: hub\r\n\r\n").encode()

        selector = selectors.DefaultSelector()
        events = {}
        for index in range(arguments.watchers):
            s = socket.create_connection(("127.0.0.1", hub.port))
            s.sendall(request)
            s.setblocking(False)
            selector.register(s, selectors.EVENT_READ, index)
            events[index] = 0

        def pump(until_each, deadline):
            """Reads until every watcher has seen `until_each` attachment events; returns when."""
            done_at = None
            while time.monotonic() < deadline:
                for key, _ in selector.select(timeout=0.5):
                    try:
                        data = key.fileobj.recv(1 << 20)
                    except BlockingIOError:
                        continue
                    events[key.data] += data.count(b"event: attachments")
                if all(count >= until_each for count in events.values()):
                    done_at = time.monotonic()
                    break
            return done_at

        assert pump(1, time.monotonic() + 120), "not every watch opened"
        print(f"watch_fanout: {arguments.watchers} watchers of one beacon with a 100 KiB attachment "
              f"({os.environ['NEARCAST_HUB_BIN']})")
        deliveries, resolve_ms = [], []
        reads_before = watch_reads(hub.port)
        for change in range(arguments.changes):
            stop = threading.Event()

            def resolver():
                while not stop.is_set():
                    started = time.monotonic()
                    hub.post("/v1beta1/beaconinfo:getforobserved", observe, key=keys["apiKey"])
                    resolve_ms.append((time.monotonic() - started) * 1000)
            thread = threading.Thread(target=resolver)
            started = time.monotonic()
            hub.post(f"/v1beta1/{name}/attachments", {"namespacedType": "bench/slide", "data": b64(os.urandom(100 * 1024))},
                     key=keys["secretKey"])
            thread.start()
            done = pump(2 + change, time.monotonic() + 120)
            stop.set()
            thread.join()
            assert done, f"change {change}: not every watcher got it within 120 s"
            deliveries.append((done - started) * 1000)
        reads = watch_reads(hub.port) - reads_before
        print(f"one change to all {arguments.watchers} watchers: median {statistics.median(deliveries):.0f} ms, "
              f"max {max(deliveries):.0f} ms over {arguments.changes} changes")
        print(f"getforobserved meanwhile: {len(resolve_ms)} calls, median {statistics.median(resolve_ms):.1f} ms, "
              f"max {max(resolve_ms):.1f} ms")
        print(f"attachment reads for watchers: {reads:.0f} for {arguments.changes} changes")
        for key in list(selector.get_map().values()):
            key.fileobj.close()
    finally:
        hub.stop()
        database.drop()


if __name__ == "__main__":
    main()
