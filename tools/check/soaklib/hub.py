"""The hub's side of the soak: the private PostgreSQL (tools/setup/postgres-test-server), the
`nearcast-hub serve` process on it and requests to it, and the two kinds of clients that lean on
it: the crowd resolving three EID beacons every second, and a watch on the box's beacon."""
import csv
import http.client
import json
import os
import queue
import re
import select
import shutil
import subprocess
import tempfile
import threading
import time

from hubtest import Beacon, EventStream, b64, unb64  # hub/e2e (cryptography: tools/setup/install-deps)

from .run import SetupError, describe_exit, stop_process

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
PG_TOOL = os.path.join(REPO, "tools", "setup", "postgres-test-server")
MESSAGE_TYPE = "soak/slide"   # what the box publishes and the hub is read for


class Postgres:
    def __init__(self, run):
        self.run = run
        self.dir = self.url = None
        self.running = False

    def start(self):
        self.dir = tempfile.mkdtemp(prefix="nearcast-soak-pg-")
        result = subprocess.run([PG_TOOL, "start", self.dir], capture_output=True, text=True, timeout=180)
        if result.returncode != 0:
            raise SetupError(f"tools/setup/postgres-test-server start failed: {result.stderr.strip()}")
        self.url = result.stdout.strip().splitlines()[-1]
        self.running = True
        self.run.note(f"PostgreSQL at {self.url} (cluster in {self.dir})")

    def pause(self):
        result = subprocess.run([PG_TOOL, "pause", self.dir], capture_output=True, text=True, timeout=120)
        self.running = False
        if result.returncode != 0:
            raise RuntimeError(f"tools/setup/postgres-test-server pause failed: {result.stderr.strip()}")

    def resume(self):
        # On the same port and data directory: tools/setup/postgres-test-server remembers them.
        result = subprocess.run([PG_TOOL, "resume", self.dir], capture_output=True, text=True, timeout=120)
        if result.returncode != 0:
            raise RuntimeError(f"tools/setup/postgres-test-server resume failed: {result.stderr.strip()}")
        self.running = True

    def stop(self):
        """Stops the cluster for good, its log kept as postgres.log."""
        if not self.dir:
            return
        try:
            shutil.copy(os.path.join(self.dir, "server.log"), os.path.join(self.run.out, "postgres.log"))
        except OSError:
            pass
        subprocess.run([PG_TOOL, "stop", self.dir], capture_output=True, timeout=120)


class Hub:
    def __init__(self, run, postgres):
        self.run = run
        self.postgres = postgres
        self.binary = run.args.hub_bin
        self.process = None
        self.port = None
        self.down_expected = False
        self.starts = 0
        self.keys = None

    def create_project(self):
        result = subprocess.run([self.binary, "project", "create", "soak", "--db", self.postgres.url],
                                capture_output=True, text=True, timeout=120)
        if result.returncode != 0:
            raise SetupError(f"nearcast-hub project create failed: {result.stderr.strip()}")
        self.keys = json.loads(result.stdout)

    def log(self, text):
        with open(os.path.join(self.run.out, "hub.log"), "ab") as log:
            log.write(f"=== soak {self.run.stamp()}: {text}\n".encode())

    def start(self, port=0, tries=6):
        for attempt in range(tries):
            self.log(f"starting nearcast-hub serve on 127.0.0.1:{port}")
            log = open(os.path.join(self.run.out, "hub.log"), "ab")
            process = subprocess.Popen([self.binary, "serve", "--listen", f"127.0.0.1:{port}", "--db", self.postgres.url,
                                        "--limits", "off"], stdout=subprocess.PIPE, stderr=log, stdin=subprocess.DEVNULL)
            log.close()
            served = self.read_served_port(process)
            if served:
                with self.run.lock:
                    self.process, self.port = process, served
                    self.starts += 1
                threading.Thread(target=self.drain, args=(process.stdout,), daemon=True).start()
                return process
            process.wait()
            self.log(f"nearcast-hub serve did not start ({describe_exit(process.returncode)})")
            if not self.run.wait(1 + attempt):
                break
        raise RuntimeError(f"nearcast-hub serve did not start on port {port} in {tries} tries (hub.log)")

    def read_served_port(self, process):
        descriptor = process.stdout.fileno()
        pending = b""
        deadline = time.monotonic() + 60
        with open(os.path.join(self.run.out, "hub.log"), "ab") as log:
            while time.monotonic() < deadline:
                ready, _, _ = select.select([descriptor], [], [], 0.5)
                if ready:
                    chunk = os.read(descriptor, 65536)
                    log.write(chunk)
                    pending += chunk
                    match = re.search(rb"nearcast-hub: serving http://127\.0\.0\.1:(\d+)", pending)
                    if match:
                        return int(match.group(1))
                    if not chunk:
                        return None
                elif process.poll() is not None:
                    return None
        process.kill()
        return None

    def drain(self, stream):
        with open(os.path.join(self.run.out, "hub.log"), "ab") as log:
            for chunk in iter(lambda: os.read(stream.fileno(), 65536), b""):
                log.write(chunk)
                log.flush()
        stream.close()

    def stop(self):
        stop_process(self.process)

    def request(self, method, path, body=None, key=None, timeout=10):
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        try:
            headers = {"X-Api-Key": key} if key else {}
            data = None
            if body is not None:
                data = json.dumps(body).encode()
                headers["Content-Type"] = "application/json"
            connection.request(method, path, body=data, headers=headers)
            response = connection.getresponse()
            payload = response.read()
            kind = response.getheader("Content-Type", "")
            return response.status, (json.loads(payload) if "json" in kind else payload.decode(errors="replace"))
        finally:
            connection.close()

    def texts(self, name):
        """The texts of the soak/slide attachments of beacon `name` on the hub, or None."""
        try:
            status, body = self.request("GET", f"/v1beta1/{name}/attachments?namespacedType={MESSAGE_TYPE}",
                                        key=self.keys["secretKey"], timeout=5)
        except (OSError, http.client.HTTPException, ValueError):
            return None
        if status != 200:
            return None
        return sorted(unb64(a["data"]).decode(errors="replace") for a in body.get("attachments", [])
                      if a.get("namespacedType") == MESSAGE_TYPE)


class Crowd:
    """Threads that each resolve, every second, the current EIDs of three beacons the soak
    registers itself (with attachments), with the project's public key."""

    def __init__(self, run, hub, size):
        self.run = run
        self.hub = hub
        self.beacons = []           # (beacon, registered at, its attachment's text)
        self.results = []           # (t, thread, ok, why)
        self.counts = [0, 0]        # answered, failed since the last sample
        self.ok_times = [[] for _ in range(size)]

    def register_beacons(self):
        status, params = self.hub.request("GET", "/v1beta1/eidparams")
        service = unb64(params["serviceEcdhPublicKey"])
        secret = self.hub.keys["secretKey"]
        for index in range(3):
            beacon = Beacon(service, exponent=10)
            status, body = self.hub.request("POST", "/v1beta1/beacons:register",
                                            beacon.registration(f"soak crowd beacon {index + 1}"), key=secret)
            registered = time.time()
            if status != 200:
                raise SetupError(f"registering a crowd beacon: HTTP {status} {body}")
            text = f"probe {index + 1}"
            status, body = self.hub.request("POST", f"/v1beta1/{beacon.name()}/attachments",
                                            {"namespacedType": "soak/probe", "data": b64(text.encode())}, key=secret)
            if status != 200:
                raise SetupError(f"attaching to a crowd beacon: HTTP {status} {body}")
            self.beacons.append((beacon, registered, text))

    def member(self, index):
        next_at = time.monotonic()
        while not self.run.stop.is_set():
            ok, why = self.resolve()
            t = self.run.t()
            with self.run.lock:
                self.counts[0 if ok else 1] += 1
                if ok:
                    self.ok_times[index].append(t)
                else:
                    self.results.append((t, index, False, why))
            next_at += 1.0
            if next_at < time.monotonic():
                next_at = time.monotonic() + 1.0
            self.run.wait(next_at - time.monotonic())

    def resolve(self):
        now = time.time()
        observations = [{"advertisedId": {"type": "EDDYSTONE_EID",
                                          "id": b64(beacon.eid(at=beacon.clock + int(now - registered)))}}
                        for beacon, registered, _ in self.beacons]
        try:
            status, body = self.hub.request("POST", "/v1beta1/beaconinfo:getforobserved",
                                            {"observations": observations, "namespacedTypes": ["*"]},
                                            key=self.hub.keys["apiKey"], timeout=5)
        except (OSError, http.client.HTTPException, ValueError) as error:
            return False, f"{type(error).__name__}: {error}"
        if status != 200:
            return False, f"HTTP {status}: {str(body)[:120]}"
        found = {b["beaconName"]: [unb64(a["data"]).decode() for a in b.get("attachments", [])] for b in body["beacons"]}
        want = {beacon.name(): [text] for beacon, _, text in self.beacons}
        if found != want:
            return False, f"resolved {found}, expected {want}"
        return True, ""

    def write_failures(self, path):
        with open(path, "w", newline="") as f:
            writer = csv.writer(f)
            writer.writerow(["t_s", "thread", "why"])
            for t, index, _, why in self.results:
                writer.writerow([f"{t:.1f}", index, why])


class Watch:
    """An attachments:watch kept open on the box's beacon with the secret key, reconnecting when
    it drops (watch.csv)."""

    def __init__(self, run, hub, box):
        self.run = run
        self.hub = hub
        self.box = box
        self.rows = []              # (t, what, detail)
        self.last = None            # (t, texts)
        self.connections = 0
        self.final = None           # (last, the hub's message) at the end of the run

    def keep_open(self):
        run = self.run
        path = os.path.join(run.out, "watch.csv")
        with open(path, "w", newline="") as f:
            writer = csv.writer(f)
            writer.writerow(["t_s", "what", "detail"])

            def record(what, detail=""):
                t = run.t()
                with run.lock:
                    self.rows.append((t, what, detail))
                writer.writerow([f"{t:.1f}", what, detail])
                f.flush()

            while not run.stop.is_set():
                name = self.box.beacon_name
                if not name:
                    run.wait(1)
                    continue
                try:
                    stream = EventStream(self.hub.port, f"/v1beta1/{name}/attachments:watch", self.hub.keys["secretKey"])
                except (OSError, http.client.HTTPException) as error:
                    record("connect-failed", f"{type(error).__name__}: {error}")
                    run.wait(1)
                    continue
                if stream.status != 200:
                    record("refused", f"HTTP {stream.status}")
                    stream.close()
                    run.wait(2)
                    continue
                with run.lock:
                    self.connections += 1
                record("connected")
                while not run.stop.is_set():
                    try:
                        event, data = stream.events.get(timeout=0.5)
                    except queue.Empty:
                        continue
                    if event == "closed":
                        record("dropped")
                        break
                    if event == "attachments":
                        texts = sorted(unb64(a["data"]).decode(errors="replace") for a in (data or {}).get("attachments", [])
                                       if a.get("namespacedType") == MESSAGE_TYPE)
                        with run.lock:
                            self.last = (run.t(), texts)
                        record("attachments", json.dumps(texts))
                    else:
                        record(event, json.dumps(data)[:200])
                stream.close()
                run.wait(1)
