"""The faults: the state directory's tmpfs (for the disk faults), the seeded schedule, each fault
put on, held and cleared, and the recovery awaited after it (the hub has the box's message, the
crowd resolves again). The wall clock's steps are here too: a fault like the others."""
import email.utils
import http.client
import os
import random
import signal
import subprocess
import time

from .hub import MESSAGE_TYPE
from .box import messages_of
from .run import clamp

SIM_FAULTS = ["bluetooth-power", "bluetooth-permission", "bluetooth-no-adapter", "audio-missing",
              "audio-permission", "microphone-permission", "audio-underruns"]


def can_set_clock():
    """Whether this process may set CLOCK_REALTIME (root in a container may not): set it to
    what it reads, a step of microseconds."""
    try:
        time.clock_settime(time.CLOCK_REALTIME, time.time())
        return True
    except (OSError, PermissionError):
        return False


class Faults:
    def __init__(self, run, postgres, hub, box, crowd):
        self.run = run
        self.postgres = postgres
        self.hub = hub
        self.box = box
        self.crowd = crowd
        self.state = run.state
        self.tmpfs = False
        self.clock_steps = run.args.clock_steps and os.geteuid() == 0 and can_set_clock()
        self.clock_step = None      # (monotonic, true wall time) when the clock was stepped
        self.faults = []
        self.warmup = self.end_at = self.latest_start = None
        self.end_check = None       # the recovery awaited at the end of the run

    # --- the state tmpfs ---

    def mount_tmpfs(self):
        if os.geteuid() != 0:
            self.run.notes.append("not root: the state directory is a plain folder, the disk faults are skipped")
            return
        result = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=8m,mode=0755", "nearcast-soak", self.state],
                                capture_output=True, text=True)
        if result.returncode != 0:
            self.run.notes.append(f"could not mount a tmpfs ({result.stderr.strip()}): the state directory is a plain "
                                  f"folder, the disk faults are skipped")
            return
        self.tmpfs = True

    def unmount_tmpfs(self):
        if self.tmpfs:
            subprocess.run(["mount", "-o", "remount,rw", self.state], capture_output=True)
            if subprocess.run(["umount", self.state], capture_output=True).returncode != 0:
                subprocess.run(["umount", "-l", self.state], capture_output=True)

    # --- the schedule ---

    def schedule(self):
        run = self.run
        kinds = [f"sim:{name}" for name in SIM_FAULTS] + ["hub-kill", "postgres-restart", "box-kill"]
        if self.tmpfs:
            kinds += ["disk-full", "disk-readonly"]
        if self.clock_steps:
            kinds += ["clock-forward", "clock-back"]
        else:
            run.notes.append("the clock faults are skipped: " + ("--no-clock-steps" if not run.args.clock_steps
                                                                  else "this process may not set the wall clock "
                                                                       "(root with CAP_SYS_TIME is needed)"))
        rng = random.Random(run.seed)
        base = run.t()   # the run's clock starts when everything is up
        warmup = clamp(0.1 * run.duration, 15, 120)
        self.warmup = base + warmup
        self.end_at = base + run.duration
        tail = clamp(0.08 * run.duration, 15, 300)
        window = max(run.duration - warmup - tail, len(kinds))
        cycles = max(1, int(window // (len(kinds) * 90)))
        order = []
        for _ in range(cycles):
            batch = list(kinds)
            rng.shuffle(batch)
            order += batch
        slot = window / len(order)
        plan = []
        for index, kind in enumerate(order):
            at = base + warmup + index * slot + rng.uniform(0, 0.1 * slot)
            hold = round(clamp(rng.uniform(0.25, 0.4) * slot, 3, 45), 1)
            plan.append({"kind": kind, "planned": at, "hold": hold})
        self.latest_start = self.end_at - tail / 2
        return plan

    def run_plan(self, plan):
        for fault in plan:
            if not self.run.wait(fault["planned"] - self.run.t()):
                return
            if self.run.t() > self.latest_start:
                fault["skipped"] = "out of time"
                self.faults.append(fault)
                self.run.note(f"fault {fault['kind']} skipped: the schedule ran late")
                continue
            self.faults.append(fault)
            self.one_fault(fault)

    # --- one fault ---

    def one_fault(self, fault):
        run = self.run
        kind = fault["kind"]
        fault["start"] = run.t()
        run.fault_now = kind
        run.note(f"fault {kind}: on, held {fault['hold']} s")
        try:
            detail = self.apply(kind)
            if detail:
                fault["detail"] = detail
                run.note(f"fault {kind}: {detail}")
            if kind == "box-kill":
                # Held by the supervisor: 2 s, then the box is started again.
                deadline = time.monotonic() + 15
                while self.box.restarts < self.box.kills and time.monotonic() < deadline and not run.stop.is_set():
                    time.sleep(0.1)
            else:
                # A change made while the fault is on must reach the hub once it is off.
                self.publish_marker(fault, f"during {kind} (fault {len(self.faults)})")
                run.wait(fault["hold"] - (run.t() - fault["start"]))
            self.clear(kind)
            if kind == "box-kill":
                self.publish_marker(fault, f"after box-kill (fault {len(self.faults)})", tries=20)
        except Exception as error:
            fault["error"] = f"{type(error).__name__}: {error}"
            run.fail(f"fault {kind} at {run.stamp(fault['start'])} could not be applied or cleared: {fault['error']}",
                     reported=True)
            try:
                self.clear(kind, quiet=True)
            except Exception:
                pass
        fault["cleared"] = run.t()
        run.fault_now = f"after {kind}"
        run.note(f"fault {kind}: cleared")
        self.await_recovery(fault)
        run.fault_now = ""

    def apply(self, kind):
        if kind.startswith("sim:"):
            return self.sim_fault(kind[4:], "on")
        if kind == "hub-kill":
            with self.run.lock:
                self.hub.down_expected = True
            self.hub.process.send_signal(signal.SIGKILL)
            self.hub.process.wait()
            return f"hub pid {self.hub.process.pid} killed (SIGKILL)"
        if kind == "postgres-restart":
            self.postgres.pause()
            return "PostgreSQL stopped (pg_ctl stop -m fast)"
        if kind == "box-kill":
            with self.run.lock:
                self.box.kill_pending += 1
                self.box.kills += 1
            pid = self.box.process.pid
            self.box.process.send_signal(signal.SIGKILL)
            return f"box pid {pid} killed (SIGKILL)"
        if kind == "disk-full":
            return self.fill_disk()
        if kind == "disk-readonly":
            return self.remount("ro")
        if kind in ("clock-forward", "clock-back"):
            offset = 900 if kind == "clock-forward" else -900
            self.step_clock(offset)
            return f"the machine's wall clock stepped {offset:+d} s; " + self.hub_clock_offset(offset)
        raise ValueError(kind)

    def clear(self, kind, quiet=False):
        if kind.startswith("sim:"):
            self.sim_fault(kind[4:], "off")
        elif kind == "hub-kill":
            if self.hub.process.poll() is not None:
                self.hub.start(self.hub.port)
            with self.run.lock:
                self.hub.down_expected = False
        elif kind == "postgres-restart":
            if not self.postgres.running:
                self.postgres.resume()
        elif kind == "disk-full":
            filler = os.path.join(self.state, "soak-filler")
            if os.path.exists(filler):
                os.remove(filler)
        elif kind == "disk-readonly":
            self.remount("rw")
        elif kind in ("clock-forward", "clock-back"):
            self.step_clock(0)

    def publish_marker(self, fault, text, tries=3):
        """Publishes `text` as the box's message on its console (noted in the fault)."""
        text = text.replace(":", " ")
        reply = []
        for attempt in range(tries):
            try:
                ok, reply = self.box.publish(text, self.box.instance, until=lambda lines: any(
                    l.startswith("published") or l.startswith("error") for l in lines))
            except OSError as error:
                ok, reply = False, [f"console: {error}"]
            if ok:
                fault["published"] = text
                self.run.note(f"fault {fault['kind']}: published {text!r}")
                return
            time.sleep(0.5)
        fault["published_error"] = " / ".join(reply)[:200]
        self.run.note(f"fault {fault['kind']}: could not publish {text!r}: {fault['published_error']}")

    def sim_fault(self, name, how):
        for attempt in range(10):
            try:
                reply = self.box.console(f"sim fault {name} {how}", until=lambda lines: any(
                    "switched" in l or "already" in l or l.startswith("error") for l in lines))
            except OSError:
                reply = []
            if any(f"switched {how}" in line or "already" in line for line in reply):
                return None
            time.sleep(1)
        raise RuntimeError(f"`sim fault {name} {how}` was not acknowledged (last reply: {reply})")

    def fill_disk(self):
        filler = os.path.join(self.state, "soak-filler")
        written = 0
        fd = os.open(filler, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            for size in (1 << 20, 4096, 64):
                block = b"\0" * size
                while True:
                    try:
                        count = os.write(fd, block)
                    except OSError as error:
                        if error.errno != 28:   # ENOSPC
                            raise
                        break
                    written += count
                    if count < size:
                        break
        finally:
            os.close(fd)
        vfs = os.statvfs(self.state)
        return f"filled the state tmpfs with {written // 1024} KiB ({vfs.f_bavail * vfs.f_frsize // 1024} KiB left)"

    def remount(self, how):
        error = ""
        for attempt in range(20):
            result = subprocess.run(["mount", "-o", f"remount,{how}", self.state], capture_output=True, text=True)
            if result.returncode == 0:
                return f"state tmpfs remounted {how}" + (f" ({attempt + 1} tries)" if attempt else "")
            error = result.stderr.strip()
            time.sleep(0.25)   # a file open for writing (curl's) makes it busy
        raise RuntimeError(f"mount -o remount,{how} failed 20 times: {error}")

    # --- the wall clock ---

    def step_clock(self, offset):
        """Steps CLOCK_REALTIME by `offset` s; 0 sets it right again (the true time carried on
        the monotonic clock from the moment of the step)."""
        if offset:
            if self.clock_step is None:
                self.clock_step = (time.monotonic(), time.time())
            time.clock_settime(time.CLOCK_REALTIME, time.time() + offset)
        elif self.clock_step is not None:
            monotonic, wall = self.clock_step
            time.clock_settime(time.CLOCK_REALTIME, wall + (time.monotonic() - monotonic))
            self.clock_step = None

    def true_time(self):
        """The wall-clock time as it would be without the step in force."""
        if self.clock_step is None:
            return time.time()
        monotonic, wall = self.clock_step
        return wall + (time.monotonic() - monotonic)

    def hub_clock_offset(self, want):
        """Waits (5 s at most) until the hub's Date header is `want` s off the real clock: proof
        that the step is in force in the hub. Returns what it saw."""
        seen = None
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            connection = http.client.HTTPConnection("127.0.0.1", self.hub.port, timeout=5)
            try:
                connection.request("GET", "/healthz")
                response = connection.getresponse()
                response.read()
                date = response.getheader("Date")
                if date:
                    stamp = email.utils.parsedate_to_datetime(date).timestamp()
                    seen = round(stamp - self.true_time())
                    if abs(seen - want) <= 5:
                        return f"the hub's Date header is {seen:+d} s off"
            except (OSError, http.client.HTTPException, ValueError, TypeError):
                pass
            finally:
                connection.close()
            time.sleep(0.5)
        raise RuntimeError(f"the hub's clock did not move {want:+d} s (its Date header was {seen} s off)")

    # --- recovery ---

    def await_recovery(self, fault):
        """Waits (up to the bound) until the hub has the box's current message and the box is in
        sync; after a hub or PostgreSQL fault, until every crowd thread resolved again."""
        run = self.run
        since = fault["cleared"]
        deadline = since + run.bound
        last = "the box did not answer"
        while run.t() < deadline and not run.stop.is_set():
            status = self.box.status()
            if status is not None:
                hub = status.get("hub") or {}
                want = messages_of(status)
                have = self.hub.texts(hub.get("beacon_name") or self.box.beacon_name)
                if have == want and hub.get("in_sync"):
                    fault["recovered"] = run.t() - since
                    fault["message"] = want
                    break
                last = (f"the box publishes {want}, the hub has {have}, hub state {hub.get('state')}, "
                        f"in sync {hub.get('in_sync')}, last error {hub.get('last_error')!r}")
            time.sleep(0.5)
        if "recovered" in fault:
            run.note(f"fault {fault['kind']}: the hub had the box's message {fault['message']} "
                     f"{fault['recovered']:.1f} s after it cleared")
        else:
            fault["recovery_failure"] = last
            run.fail(f"after {fault['kind']} (on at {run.stamp(fault['start'])}, cleared at {run.stamp(since)}) "
                     f"the hub did not have the box's message within {run.bound} s: {last}", reported=True)
        if fault["kind"] in ("hub-kill", "postgres-restart", "clock-forward", "clock-back"):
            crowd = len(self.crowd.ok_times)
            while not run.stop.is_set():
                with run.lock:
                    back = [next((t for t in times if t >= since), None) for times in self.crowd.ok_times]
                if all(b is not None for b in back):
                    fault["crowd_back"] = max(back) - since
                    run.note(f"fault {fault['kind']}: all {crowd} crowd threads resolved again "
                             f"{fault['crowd_back']:.1f} s after it cleared")
                    break
                if run.t() > deadline:
                    missing = [i for i, b in enumerate(back) if b is None]
                    with run.lock:
                        why = next((r[3] for r in reversed(self.crowd.results) if r[1] in missing), "")
                    fault["crowd_failure"] = f"threads {missing} had not resolved again; last error: {why}"
                    run.fail(f"after {fault['kind']} (cleared at {run.stamp(since)}) the crowd did not resolve "
                             f"again within {run.bound} s: {fault['crowd_failure']}", reported=True)
                    break
                time.sleep(0.5)
