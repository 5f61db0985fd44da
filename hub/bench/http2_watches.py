#!/usr/bin/env python3
"""HTTP/2 against HTTP/1.1 for a room of phones that each hold several watches, over HTTPS.

A phone's page holds an event stream per box it heard (attachments:watch) and one for the show.
Over HTTP/1.1 each stream is a TCP connection and a TLS handshake of its own (and a browser
allows only 6 per host); over HTTP/2 they share one connection. This bench starts the hub with
TLS (a test CA's certificate for hub.venue.test), registers W boxes, resolves them with the
public key (for their watch tokens), then runs P "phones" at once, each a curl process opening
the W watches in parallel (`--parallel`, HTTP/2 multiplexed or HTTP/1.1), and reports per
protocol: TCP connections to the hub, how long until a watch's answer started (p50/p99 of curl's
time_starttransfer over all watches), and the hub's resident memory per phone with every watch
open.

  hub/bench/http2_watches.py [--phones 100] [--watches 4] [--hold 6]

Uses hub/.build/release/nearcast-hub (or $NEARCAST_HUB_BIN), SQLite, `--limits off` (every phone
comes from 127.0.0.1).
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "e2e"))
os.environ.setdefault("NEARCAST_HUB_BIN", os.path.join(os.path.dirname(__file__), "..", ".build", "release", "nearcast-hub"))
from hubtest import Database, Hub, b64, create_project, rss_kib  # noqa: E402
from tlsproxy import NAME, TestCA  # noqa: E402



def established(port):
    """TCP connections established to the hub's port (from /proc/net/tcp, server side)."""
    count = 0
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(table) as f:
                next(f)
                for line in f:
                    fields = line.split()
                    local_port = int(fields[1].rsplit(":", 1)[1], 16)
                    if local_port == port and fields[3] == "01":
                        count += 1
        except FileNotFoundError:
            pass
    return count


def percentile(values, p):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def run(protocol, hub, ca, urls_per_phone, hold):
    flag = "--http2" if protocol == "HTTP/2" else "--http1.1"
    baseline = rss_kib(hub.process.pid)
    phones = []
    for urls in urls_per_phone:
        command = ["curl", "-s", "-N", flag, "--parallel", "--parallel-max", str(len(urls)), "--cacert", ca.path,
                   "--resolve", f"{NAME}:{hub.port}:127.0.0.1", "--max-time", str(hold),
                   "-w", "%{time_starttransfer} %{num_connects} %{http_code}\\n"]
        for url in urls:
            command += ["-o", "/dev/null", url]
        phones.append(subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True))
    # Every watch open: sample connections and memory in the middle of the hold.
    time.sleep(hold * 0.6)
    connections = established(hub.port)
    resident = rss_kib(hub.process.pid)
    starts, connects, statuses = [], 0, {}
    for phone in phones:
        out, _ = phone.communicate()
        for line in out.split("\n"):
            if not line.strip():
                continue
            start, connected, status = line.split()
            starts.append(float(start) * 1000)
            connects += int(connected)
            statuses[status] = statuses.get(status, 0) + 1
    return {"protocol": protocol, "connections": connections, "connects": connects, "statuses": statuses,
            "p50": statistics.median(starts), "p99": percentile(starts, 99), "kib_per_phone": (resident - baseline) / len(phones)}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--phones", type=int, default=100)
    parser.add_argument("--watches", type=int, default=4)
    parser.add_argument("--hold", type=int, default=6, help="seconds each phone keeps its watches open")
    arguments = parser.parse_args()

    scratch = tempfile.mkdtemp(prefix="nearcast-h2-")
    ca = TestCA(scratch)
    certificate, key, _ = ca.issue("hub")
    database = Database("sqlite")
    keys = create_project(database.url, "bench")
    hub = Hub(database.url, extra=["--tls-cert", certificate, "--tls-key", key, "--limits", "off"], tls=ca.client_context())
    try:
        observations = []
        for index in range(arguments.watches):
            token = bytes([0xB0, index])
            status, body = hub.post("/v1beta1/beacons:register", {"advertisedId": {"type": "EDDYSTONE", "id": b64(token)}},
                                    key=keys["secretKey"])
            assert status == 200, body
            status, body = hub.post(f"/v1beta1/{body['beaconName']}/attachments",
                                    {"namespacedType": "bench/slide", "data": b64(b"slide 1")}, key=keys["secretKey"])
            assert status == 200, body
            observations.append({"advertisedId": {"type": "EDDYSTONE", "id": b64(token)}})
        status, answer = hub.post("/v1beta1/beaconinfo:getforobserved", {"observations": observations, "namespacedTypes": ["*"]},
                                  key=keys["apiKey"])
        assert status == 200 and len(answer["beacons"]) == arguments.watches, answer
        base = f"https://{NAME}:{hub.port}/v1beta1"
        urls = [f"{base}/{beacon['beaconName']}/attachments:watch?key={keys['apiKey']}&token={beacon.get('watchToken', '')}"
                for beacon in answer["beacons"]]
        urls_per_phone = [urls for _ in range(arguments.phones)]
        print(f"http2_watches: {arguments.phones} phones x {arguments.watches} watches over HTTPS, held {arguments.hold} s "
              f"({os.environ['NEARCAST_HUB_BIN']})")
        print(f"{'protocol':<10} {'TCP conns':>9} {'connects':>9} {'first byte p50':>15} {'p99':>9} {'hub KiB/phone':>14}  answers")
        for protocol in ("HTTP/1.1", "HTTP/2"):
            result = run(protocol, hub, ca, urls_per_phone, arguments.hold)
            print(f"{result['protocol']:<10} {result['connections']:>9} {result['connects']:>9} {result['p50']:>12.1f} ms "
                  f"{result['p99']:>6.1f} ms {result['kib_per_phone']:>14.1f}  {result['statuses']}")
            time.sleep(2)   # let the closed connections go before the next run's baseline
    finally:
        hub.stop()
        database.drop()


if __name__ == "__main__":
    main()
