#!/usr/bin/env python3
"""How fast someone holding the public key can walk the 2-byte space of short direct tokens.

Starts a hub with the shipped limits on a fresh SQLite database, registers one 2-byte token at a
random place in the 65,536, then walks the space from A loopback addresses at once (127.0.5.x,
one thread each), 100 tokens a call (the most getforobserved takes), in a random order shared out
between them, each thread waiting out the Retry-After of every 429, for S seconds or until the
token is found. Reports the tokens tried a second once the budgets are spent (the rate a long
walk keeps), whether and when the token was found, and the expected time to find one token at
that rate (half the space). With the per-address budget alone, 31 addresses find a token in
0.29 s; the project's budget is what slows a walk (docs/venue-operator.md, Limits).

  hub/bench/token_walk.py [--addresses 31] [--seconds 60]

Uses $NEARCAST_HUB_BIN, else hub/.build/release/nearcast-hub, else the debug build.
"""
import argparse
import base64
import http.client
import json
import os
import random
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "e2e"))
for build in ("release", "debug"):
    candidate = os.path.join(HERE, "..", ".build", build, "nearcast-hub")
    if os.path.exists(candidate):
        os.environ.setdefault("NEARCAST_HUB_BIN", candidate)
        break
from hubtest import Database, Hub, create_project  # noqa: E402

SPACE = 65_536
PER_CALL = 100


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--addresses", type=int, default=31, help="loopback addresses walking at once (default 31)")
    parser.add_argument("--seconds", type=float, default=60.0, help="how long to walk (default 60)")
    arguments = parser.parse_args()

    database = Database("sqlite")
    keys = create_project(database.url, "walk")
    hub = Hub(database.url)
    try:
        secret = random.randrange(SPACE)
        status, body = hub.post("/v1beta1/beacons:register",
                                {"advertisedId": {"type": "EDDYSTONE", "id": base64.b64encode(secret.to_bytes(2, "big")).decode()}},
                                key=keys["secretKey"])
        assert status == 200, body
        order = list(range(SPACE))
        random.shuffle(order)
        calls = [order[i:i + PER_CALL] for i in range(0, SPACE, PER_CALL)]
        lock = threading.Lock()
        state = {"next": 0, "tried": [], "refused": 0, "found_at": None}
        started = time.monotonic()
        stop_at = started + arguments.seconds

        def walker(address):
            connection = http.client.HTTPConnection("127.0.0.1", hub.port, timeout=30, source_address=(address, 0))
            while time.monotonic() < stop_at and state["found_at"] is None:
                with lock:
                    if state["next"] >= len(calls):
                        return
                    batch = calls[state["next"]]
                    state["next"] += 1
                body = json.dumps({"observations": [{"advertisedId": {"type": "EDDYSTONE",
                                                                      "id": base64.b64encode(n.to_bytes(2, "big")).decode()}}
                                                    for n in batch]})
                while time.monotonic() < stop_at:
                    connection.request("POST", "/v1beta1/beaconinfo:getforobserved", body=body,
                                       headers={"X-Api-Key": keys["apiKey"], "Content-Type": "application/json"})
                    response = connection.getresponse()
                    answer = json.loads(response.read() or b"{}")
                    if response.status == 429:
                        with lock:
                            state["refused"] += 1
                        time.sleep(min(int(response.getheader("Retry-After", "1")), max(0.0, stop_at - time.monotonic())))
                        continue
                    with lock:
                        state["tried"].append((time.monotonic() - started, len(batch)))
                        if answer.get("beacons") and state["found_at"] is None:
                            state["found_at"] = time.monotonic() - started
                    break
            connection.close()

        threads = [threading.Thread(target=walker, args=(f"127.0.5.{1 + i}",)) for i in range(arguments.addresses)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        elapsed = time.monotonic() - started
        tried = sum(n for _, n in state["tried"])
        # The rate a long walk keeps: what was tried after the first quarter, when the bursts are spent.
        quarter = elapsed / 4
        late = sum(n for at, n in state["tried"] if at >= quarter)
        late_rate = late / (elapsed - quarter) if elapsed > quarter else 0.0
        print(f"token_walk: {arguments.addresses} addresses for {elapsed:.1f} s against the shipped limits: "
              f"{tried} of {SPACE} tokens tried, {state['refused']} calls refused (429)")
        if state["found_at"] is not None:
            print(f"token_walk: the token was found after {state['found_at']:.2f} s")
        else:
            print("token_walk: the token was not found")
        print(f"token_walk: after the first quarter, {late_rate:.1f} tokens a second")
        if late_rate > 0:
            remaining = max(0, SPACE / 2 - tried)
            print(f"token_walk: expected time to find one token (half the space) at that rate: "
                  f"{(elapsed + remaining / late_rate) / 60:.1f} minutes")
    finally:
        hub.stop()
        database.drop()


if __name__ == "__main__":
    main()
