#!/usr/bin/env python3
"""Resolves per second and latency of nearcast-hub's getforobserved with many registered beacons.

Registers N Eddystone-EID beacons (default 10,000) through the API, each with an attachment,
then drives POST /v1beta1/beaconinfo:getforobserved with wrk on loopback: every request observes
one random beacon's current EID, so every answer is a resolve through the EID table, a read of
the beacon and of its attachments. Reports requests/s, p50/p99 latency (wrk --latency), errors,
and the hub's resident memory before and after its EID table is built.

  hub/bench/load.py --db sqlite|postgres [--beacons 10000] [--seconds 20] [--connections 16]

The hub runs with `serve --limits off`: wrk sends everything from 127.0.0.1, far past the
per-address request rate (200/s by default), and this measures raw throughput, not the limits
(hub/e2e/test_limits.py tests those).

Uses the hub built in hub/.build/release (swift build -c release --package-path hub), or
$NEARCAST_HUB_BIN; postgres needs $NEARCAST_HUB_POSTGRES_URL (tools/setup/postgres-test-server).
"""
import argparse
import concurrent.futures
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "e2e"))
os.environ.setdefault("NEARCAST_HUB_BIN", os.path.join(os.path.dirname(__file__), "..", ".build", "release", "nearcast-hub"))
import hubtest  # noqa: E402
from hubtest import Beacon, Database, Hub, b64, create_project, rss_kib  # noqa: E402



def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--db", choices=["sqlite", "postgres"], default="sqlite")
    parser.add_argument("--beacons", type=int, default=10_000)
    parser.add_argument("--seconds", type=int, default=20)
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument("--threads", type=int, default=2)
    arguments = parser.parse_args()

    database = Database(arguments.db)
    keys = create_project(database.url, "bench")
    hub = Hub(database.url, extra=("--limits", "off"))   # one address, raw throughput (the docstring)
    try:
        service = hub.service_public_key()
        rss_empty = rss_kib(hub.process.pid)
        started = time.monotonic()
        beacons = [Beacon(service, exponent=10, clock=random.randrange(1_000_000, 2_000_000_000)) for _ in range(arguments.beacons)]

        def register(beacon):
            status, body = hub.post("/v1beta1/beacons:register", beacon.registration("bench"), key=keys["secretKey"])
            if status != 200:
                raise RuntimeError(f"register: {status} {body}")
            status, body = hub.post(f"/v1beta1/{beacon.name()}/attachments",
                                    {"namespacedType": "bench/slide", "data": b64(b"slide 1")}, key=keys["secretKey"])
            if status != 200:
                raise RuntimeError(f"attach: {status} {body}")

        with concurrent.futures.ThreadPoolExecutor(8) as pool:
            list(pool.map(register, beacons))
        registration_seconds = time.monotonic() - started
        print(f"load: registered {len(beacons)} beacons with an attachment each in {registration_seconds:.1f} s", file=sys.stderr)

        # Bodies observing random beacons; the first request builds this instance's EID table.
        bodies = tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False)
        sample = random.sample(beacons, min(2_000, len(beacons)))
        for beacon in sample:
            bodies.write(json.dumps({"observations": [beacon.observation()], "namespacedTypes": ["*"]}) + "\n")
        bodies.close()
        rss_before_table = rss_kib(hub.process.pid)
        warm = time.monotonic()
        status, answer = hub.post("/v1beta1/beaconinfo:getforobserved",
                                  {"observations": [sample[0].observation()], "namespacedTypes": ["*"]}, key=keys["apiKey"])
        table_build_seconds = time.monotonic() - warm
        assert status == 200 and answer["beacons"][0]["beaconName"] == sample[0].name(), answer
        health = hub.get("/healthz")[1]
        rss_table = rss_kib(hub.process.pid)
        for beacon in sample[:50]:   # spot check: every sampled beacon resolves to itself
            status, answer = hub.post("/v1beta1/beaconinfo:getforobserved",
                                      {"observations": [beacon.observation()], "namespacedTypes": ["*"]}, key=keys["apiKey"])
            assert [b["beaconName"] for b in answer["beacons"]] == [beacon.name()], answer

        environment = dict(os.environ, NEARCAST_BODIES=bodies.name, NEARCAST_API_KEY=keys["apiKey"])
        run = subprocess.run(["wrk", "--latency", f"-t{arguments.threads}", f"-c{arguments.connections}", f"-d{arguments.seconds}s",
                              "-s", os.path.join(os.path.dirname(__file__), "observe.lua"), f"http://127.0.0.1:{hub.port}"],
                             capture_output=True, text=True, env=environment, check=True)
        output = run.stdout
        rps = float(re.search(r"Requests/sec:\s+([\d.]+)", output).group(1))
        latency = dict(re.findall(r"^\s+(50|99)%\s+([\d.]+\w+)", output, re.M))
        errors = re.search(r"Non-2xx or 3xx responses: (\d+)", output)
        socket_errors = re.search(r"Socket errors: (.*)", output)
        result = {
            "database": arguments.db, "beacons": len(beacons), "eid_table_entries": int(health["eidTableEntries"]),
            "registration_s": round(registration_seconds, 1), "table_build_s": round(table_build_seconds, 2),
            "hub_rss_kib_at_start": rss_empty, "hub_rss_kib_before_table": rss_before_table, "hub_rss_kib_with_table": rss_table, "hub_rss_kib_after_load": rss_kib(hub.process.pid),
            "connections": arguments.connections, "seconds": arguments.seconds,
            "resolves_per_s": rps, "p50": latency.get("50"), "p99": latency.get("99"),
            "non_2xx": int(errors.group(1)) if errors else 0, "socket_errors": socket_errors.group(1) if socket_errors else None,
        }
        print(json.dumps(result))
        os.unlink(bodies.name)
        if result["non_2xx"]:
            sys.exit(f"load: {result['non_2xx']} requests failed")
    finally:
        hub.stop()
        database.drop()


if __name__ == "__main__":
    main()
