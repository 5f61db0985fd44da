"""The box: `nearcast run --board sim` publishing through the hub, started again after it exits,
typed to on its console socket (the console client's commands, console.csv), and what it leaves
in its state directory (settings.json5 and hub.json read back, and a last start on them)."""
import csv
import json
import os
import random
import re
import shutil
import socket
import subprocess
import threading
import time

import json5  # PyPI (tools/setup/install-deps): an independent reading of the box's settings.json5

from .hub import MESSAGE_TYPE
from .run import stop_process

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
PROMPT = "nearcast> "


def messages_of(status):
    """The texts of the soak/slide messages a `status --json` lists."""
    return sorted(p.get("text", "") for p in status.get("publications", [])
                  if p.get("kind") == "message" and p.get("namespaced_type") == MESSAGE_TYPE)


class Box:
    def __init__(self, run, hub):
        self.run = run
        self.hub = hub
        self.binary = run.args.box_bin
        self.state = run.state
        self.process = None
        self.instance = 0
        self.kill_pending = 0
        self.kills = 0
        self.restarts = 0
        self.exits = []             # (t, code, expected)
        self.beacon_name = None
        self.beacon_names_seen = {}
        self.console_published = None   # (instance, t, text or None for unpublished)
        self.console_rows = []
        self.console_mismatches = 0
        self.first_mismatch = None
        self.saved_messages = None
        self.state_files = None     # (ok, text) from read_state_files at the end
        self.console_lock = threading.Lock()

    def command(self, publish=True, duration=None):
        command = [self.binary, "run", "--board", "sim", "--state-dir", self.state, "--console", "none",
                   "--hub", f"http://127.0.0.1:{self.hub.port}", "--hub-key", self.hub.keys["secretKey"]]
        if publish:
            command += ["--publish", f"message:{MESSAGE_TYPE}:Slide 1"]
        if duration:
            command += ["--duration", str(duration)]
        return command

    def prepare_links(self):
        """The sim board's records, held open for writing, out of the state directory."""
        links = {"audio.wav": "/dev/null", "ble.log": os.path.join(self.run.out, "box-ble.log"),
                 "leds.log": os.path.join(self.run.out, "box-leds.log")}
        for name, target in links.items():
            path = os.path.join(self.state, name)
            if not os.path.islink(path):
                if os.path.exists(path):
                    os.remove(path)
                os.symlink(target, path)

    def start(self):
        try:
            self.prepare_links()
        except OSError as error:
            self.run.note(f"could not link audio.wav, ble.log and leds.log out of the state directory ({error})")
        with open(os.path.join(self.run.out, "box.log"), "ab") as log:
            log.write(f"=== soak {self.run.stamp()}: starting the box (instance {self.instance + 1})\n".encode())
            log.flush()
            process = subprocess.Popen(self.command(), stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        with self.run.lock:
            self.process = process
            self.instance += 1
        return process

    def wait_registered(self, seconds=60):
        """Waits until the box has registered its beacon with the hub and is in sync."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline and not self.beacon_name:
            status = self.status()
            if status and (status.get("hub") or {}).get("in_sync"):
                break
            time.sleep(0.5)
        return bool(self.beacon_name)

    def stop(self):
        stop_process(self.process)

    def log_tail(self, lines=6):
        try:
            with open(os.path.join(self.run.out, "box.log"), "rb") as f:
                f.seek(0, 2)
                f.seek(max(0, f.tell() - 8000))
                text = f.read().decode(errors="replace")
            return " | ".join(text.strip().splitlines()[-lines:])
        except OSError:
            return ""

    def console(self, line, budget=3.0, until=None):
        """Types `line` on the box's console socket: the reply's lines (prompts, echoes and
        terminal codes taken out), read until `until(lines)` holds, else until the prompt after
        the reply, or `budget` s. OSError when the box is not there."""
        def reply_of(raw):
            text = ANSI.sub("", raw.decode(errors="replace")).replace("\r", "")
            echo = text.find(PROMPT + line + "\n")
            if echo < 0:
                return None, False
            text = text[echo + len(PROMPT) + len(line) + 1:]
            lines = []
            for part in text.split("\n"):
                while part.startswith(PROMPT):
                    part = part[len(PROMPT):]
                part = part.strip()
                if part and part != line:
                    lines.append(part)
            return lines, ("\n" + PROMPT) in "\n" + text

        with self.console_lock:
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
                s.settimeout(2)
                s.connect(os.path.join(self.state, "console.sock"))
                s.sendall((line + "\r").encode())
                s.settimeout(0.1)
                raw = b""
                deadline = time.monotonic() + budget
                while time.monotonic() < deadline:
                    try:
                        chunk = s.recv(65536)
                    except socket.timeout:
                        continue
                    if not chunk:
                        break
                    raw += chunk
                    lines, prompted = reply_of(raw)
                    if lines is not None and (until(lines) if until else prompted and lines):
                        break
        return reply_of(raw)[0] or []

    def status(self):
        """The box's `status --json`, or None while it does not answer."""
        try:
            reply = self.console("status --json", until=lambda lines: any(l.startswith("{") for l in lines))
        except OSError:
            return None
        for line in reply:
            if line.startswith("{"):
                try:
                    status = json.loads(line)
                except ValueError:
                    continue
                self.observe_status(status)
                return status
        return None

    def observe_status(self, status):
        name = (status.get("hub") or {}).get("beacon_name")
        if not name:
            return
        with self.run.lock:
            if self.beacon_name is None:
                self.beacon_name = name
                self.run.note(f"the box's beacon is {name}")
            self.beacon_names_seen.setdefault(name, self.run.t())
            if name != self.beacon_name and len(self.beacon_names_seen) == 2:
                self.run.fail(f"the box's beaconName changed from {self.beacon_name} to {name} (box instance {self.instance})",
                              reported=True)

    def publish(self, text, instance, until=None):
        """`publish message soak/slide TEXT` on the console of box `instance`: whether the box
        said it published it, and its reply. The console's last change is then `text`."""
        reply = self.console(f"publish message {MESSAGE_TYPE} {text}", until=until)
        ok = any(line.startswith("published") and f'"{text}"' in line for line in reply)
        if ok:
            with self.run.lock:
                self.console_published = (instance, self.run.t(), text)
        return ok, reply

    def console_client(self):
        """Every 2.5-4 s `status --json` and one of publish, unpublish, `audio level N` and
        `config save` (console.csv)."""
        run = self.run
        rng = random.Random(run.seed * 7919 + 1)
        slide = 1
        path = os.path.join(run.out, "console.csv")
        with open(path, "w", newline="") as f:
            writer = csv.writer(f)
            writer.writerow(["t_s", "box_instance", "command", "ok", "reply"])

            def record(command, ok, reply):
                t = run.t()
                row = [f"{t:.1f}", self.instance, command, "yes" if ok else "no", " / ".join(reply)[:300]]
                with run.lock:
                    self.console_rows.append(row)
                writer.writerow(row)
                f.flush()

            while run.wait(rng.uniform(2.5, 4.0)):
                if run.quiet.is_set():
                    continue
                instance = self.instance
                status = self.status()
                if status is None:
                    record("status --json", False, ["no answer (box down or busy)"])
                    continue
                record("status --json", True, [f"hub {(status.get('hub') or {}).get('state')}, "
                                               f"in sync {(status.get('hub') or {}).get('in_sync')}, "
                                               f"messages {messages_of(status)}, problems {status['drivers']['problems']}"])
                self.compare_with_console(status, instance)
                choice = rng.random()
                messages = [p for p in status.get("publications", []) if p.get("kind") == "message"]
                try:
                    if choice < 0.45 or (choice < 0.55 and not messages):
                        slide += 1
                        text = f"Slide {slide}"
                        ok, reply = self.publish(text, instance)
                        record(f"publish message {MESSAGE_TYPE} {text}", ok, reply)
                    elif choice < 0.55:
                        command = f"unpublish {messages[0]['id']}"
                        reply = self.console(command)
                        ok = any(line.startswith("unpublished") for line in reply)
                        if ok:
                            with run.lock:
                                self.console_published = (instance, run.t(), None)
                        record(command, ok, reply)
                    elif choice < 0.8:
                        command = f"audio level {rng.randint(20, 100)}"
                        reply = self.console(command)
                        record(command, any(line.startswith("audio level") for line in reply), reply)
                    else:
                        reply = self.console("config save")
                        record("config save", bool(reply) and not any(line.startswith("error") for line in reply), reply)
                except OSError as error:
                    record("(command)", False, [f"console: {error}"])

    def compare_with_console(self, status, instance):
        """The box's message is the one the console last published, unless the box restarted."""
        run = self.run
        with run.lock:
            published = self.console_published
        if published is None or published[0] != instance or self.instance != instance:
            return
        want = [] if published[2] is None else [published[2]]
        have = messages_of(status)
        if have != want:
            with run.lock:
                self.console_mismatches += 1
            text = (f"the box publishes {have} at {run.stamp()}, but the console's last change at "
                    f"{run.stamp(published[1])} made it {want} and the box has not restarted since")
            with run.lock:
                self.first_mismatch = self.first_mismatch or text
            run.fail(text, reported=True)

    def restart_check(self):
        """After the run: `nearcast run` on the same state directory (its saved settings, no
        --publish) starts, keeps its beacon and broadcasts the saved message."""
        result = {"ok": False}
        if self.hub.process is None or self.hub.process.poll() is not None:
            result["why"] = "the hub is not running"
            return result
        log_path = os.path.join(self.run.out, "restart-check.log")
        with open(log_path, "wb") as log:
            process = subprocess.Popen(self.command(publish=False, duration=12), stdout=log,
                                       stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        status = None
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            time.sleep(1)
            status = self.status()
            if status and (status.get("hub") or {}).get("in_sync"):
                break
        try:
            code = process.wait(timeout=40)
        except subprocess.TimeoutExpired:
            process.kill()
            code = process.wait()
        with open(log_path, errors="replace") as f:
            text = f.read()
        problems = [line for line in text.splitlines()
                    if re.search(r"^(error|warning):|damaged|corrupt|derived the box's EID identity", line)]
        result.update(code=code, status=status, problems=problems)
        hub = (status or {}).get("hub") or {}
        result["beacon"] = hub.get("beacon_name")
        result["messages"] = messages_of(status) if status else None
        result["saved"] = self.saved_messages
        result["ok"] = (code == 0 and not problems and hub.get("beacon_name") == self.beacon_name
                        and (self.saved_messages is None or result["messages"] == self.saved_messages))
        return result

    def read_state_files(self):
        """Decodes settings.json5 and hub.json in the state directory: (ok, text)."""
        findings, ok = [], True
        self.saved_messages = None
        settings = os.path.join(self.state, "settings.json5")
        if os.path.exists(settings):
            try:
                with open(settings) as f:
                    decoded = json5.loads(f.read())
                self.saved_messages = sorted(spec.split(":", 2)[2].rsplit("@", 1)[0] for spec in decoded["publications"]
                                             if spec.startswith(f"message:{MESSAGE_TYPE}:"))
                findings.append(f"settings.json5 decodes (version {decoded.get('version')}, audio level "
                                f"{decoded.get('audioLevel')}, messages {self.saved_messages})")
            except (ValueError, KeyError, OSError) as error:
                ok = False
                findings.append(f"settings.json5 does not decode: {error}")
        else:
            findings.append("no settings.json5 (no `config save` went through)")
        for name in os.listdir(self.state):
            if name.endswith(".damaged"):
                ok = False
                findings.append(f"{name} exists (the box found a damaged file)")
        try:
            with open(os.path.join(self.state, "hub.json")) as f:
                json.load(f)
            findings.append("hub.json decodes")
        except (ValueError, OSError) as error:
            ok = False
            findings.append(f"hub.json does not decode: {error}")
        return ok, "; ".join(findings)

    def keep_state(self):
        """The state directory's files (not the records linked out of it) into state-final/."""
        if not os.path.isdir(self.state):
            return
        final = os.path.join(self.run.out, "state-final")
        os.makedirs(final, exist_ok=True)
        for name in os.listdir(self.state):
            source = os.path.join(self.state, name)
            if os.path.isfile(source) and not os.path.islink(source) and name != "soak-filler":
                try:
                    shutil.copy(source, final)
                except OSError:
                    pass
