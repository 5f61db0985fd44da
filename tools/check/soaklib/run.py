"""The run's record: its clock, its events log, the failures it gathers for the summary, and
the threads it runs (a thread that crashes is a failure)."""
import datetime
import os
import signal
import subprocess
import threading
import time
import traceback


class SetupError(Exception):
    pass


def clamp(value, low, high):
    return max(low, min(high, value))


def describe_exit(code):
    if code is None:
        return "still running"
    if code < 0:
        try:
            return f"signal {signal.Signals(-code).name}"
        except ValueError:
            return f"signal {-code}"
    return f"exit status {code}"


def stop_process(process, timeout=20):
    """SIGTERM to a process still running, SIGKILL if it has not exited `timeout` s later."""
    if process is None or process.poll() is not None:
        return
    process.terminate()
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


class Run:
    def __init__(self, args):
        self.args = args
        self.duration = args.hours * 3600 if args.hours else args.minutes * 60
        self.bound = args.bound
        self.seed = args.seed
        self.out = args.out
        self.state = os.path.join(self.out, "state")
        self.lock = threading.RLock()
        self.stop = threading.Event()
        self.t0 = time.monotonic()
        self.wall0 = time.time()
        self.events_file = open(os.path.join(self.out, "events.log"), "a", buffering=1)
        self.failures = []          # (t, text, reported)
        self.notes = []
        self.threads = []
        self.fault_now = ""
        self.started = False
        # Set for the final checks: the console client stops changing the box's message, so
        # that the hub, the watch and the box are compared at rest (a publish between the hub's
        # read and the watch's last event read as a disagreement).
        self.quiet = threading.Event()

    def t(self):
        return time.monotonic() - self.t0

    def stamp(self, t=None):
        t = self.t() if t is None else t
        wall = datetime.datetime.fromtimestamp(self.wall0 + t).strftime("%H:%M:%S")
        minutes, tenths = divmod(int(round(t * 10)), 600)
        return f"+{minutes:02d}:{tenths / 10:04.1f} ({wall})"

    def note(self, text, t=None):
        line = f"[{self.stamp(t)}] {text}"
        with self.lock:
            self.events_file.write(line + "\n")
        print(line, flush=True)

    def fail(self, text, t=None, reported=False):
        """Notes a failure now; `reported`: a check at the end says it too (else the summary
        gets a FAIL line of its own)."""
        t = self.t() if t is None else t
        with self.lock:
            self.failures.append((t, text, reported))
        self.note("FAIL: " + text, t)

    def wait(self, seconds):
        """Sleeps, or less when the soak is stopping; False then."""
        return not self.stop.wait(max(0.0, seconds))

    def spawn(self, name, target, *arguments):
        thread = threading.Thread(target=self.guarded, args=(name, target, *arguments), name=name, daemon=True)
        thread.start()
        self.threads.append(thread)

    def guarded(self, name, target, *arguments):
        try:
            target(*arguments)
        except Exception:
            self.fail(f"the soak's {name} thread crashed: {traceback.format_exc().strip().splitlines()[-1]}")
            with self.lock:
                self.events_file.write(traceback.format_exc())

    def stop_threads(self, timeout=15):
        self.stop.set()
        for thread in self.threads:
            thread.join(timeout=timeout)
