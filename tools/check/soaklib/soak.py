"""The soak put together: PostgreSQL, the hub, the crowd, the box and the watch set up; the
supervisor, the sampler, the console client, the crowd and the watch run while the fault schedule
runs; the end checked (the hub and the watch agree with the box, the state files, a last start on
them); everything stopped and cleaned up whatever happened."""
import os
import time

from .box import Box
from .faults import Faults
from .hub import Crowd, Hub, Postgres, Watch
from .report import Samples
from .run import Run, SetupError, describe_exit


class Soak:
    def __init__(self, args):
        self.run = Run(args)
        self.postgres = Postgres(self.run)
        self.hub = Hub(self.run, self.postgres)
        self.crowd = Crowd(self.run, self.hub, args.crowd)
        self.box = Box(self.run, self.hub)
        self.watch = Watch(self.run, self.hub, self.box)
        self.faults = Faults(self.run, self.postgres, self.hub, self.box, self.crowd)
        self.samples = Samples(self.run, self.box, self.hub, self.crowd)

    def setup(self):
        run, hub, box = self.run, self.hub, self.box
        os.makedirs(run.state, exist_ok=True)
        self.faults.mount_tmpfs()
        self.postgres.start()
        hub.create_project()
        hub.start(0)
        run.note(f"hub serving http://127.0.0.1:{hub.port} (pid {hub.process.pid})")
        self.crowd.register_beacons()
        box.start()
        run.note(f"box started (pid {box.process.pid}), state directory {run.state}"
                 f"{' on an 8 MiB tmpfs' if self.faults.tmpfs else ' (a plain folder)'}")
        if not box.wait_registered(60):
            raise SetupError(f"the box did not register with the hub in 60 s; last lines: {box.log_tail()}")

    def supervise(self):
        """Starts the box again 2 s after it exits (Restart=always, RestartSec=2), and the hub
        if it exits when no fault stopped it."""
        run, box, hub = self.run, self.box, self.hub
        while not run.stop.is_set():
            process = box.process
            if process is not None and process.poll() is not None:
                code, t = process.returncode, run.t()
                with run.lock:
                    expected = box.kill_pending > 0
                    if expected:
                        box.kill_pending -= 1
                    box.exits.append((t, code, expected))
                if expected:
                    run.note(f"box exited ({describe_exit(code)}) after the scheduled SIGKILL; restarting it in 2 s")
                else:
                    run.fail(f"the box exited on its own ({describe_exit(code)}) during "
                             f"{run.fault_now or 'no fault'}; last lines: {box.log_tail()}", t, reported=True)
                if not run.wait(2):
                    break
                box.start()
                with run.lock:
                    box.restarts += 1
                run.note(f"box restarted (restart #{box.restarts}, pid {box.process.pid})")
            process = hub.process
            if process is not None and process.poll() is not None and not hub.down_expected:
                run.fail(f"the hub exited on its own ({describe_exit(process.returncode)}) during {run.fault_now or 'no fault'}")
                if not run.wait(2):
                    break
                with run.lock:
                    if not hub.down_expected:
                        hub.start(hub.port)
            run.stop.wait(0.2)

    def go(self):
        """Sets up, runs every part through the fault schedule, and checks the end."""
        run = self.run
        self.setup()
        run.started = True
        plan = self.faults.schedule()
        run.note(f"fault schedule (seed {run.seed}): " + ", ".join(f"{f['kind']}@{f['planned']:.0f}s/{f['hold']}s" for f in plan))
        run.spawn("supervisor", self.supervise)
        run.spawn("sampler", self.samples.take)
        run.spawn("console client", self.box.console_client)
        for index in range(run.args.crowd):
            run.spawn(f"crowd {index}", self.crowd.member, index)
        run.spawn("watcher", self.watch.keep_open)
        self.faults.run_plan(plan)
        run.wait(self.faults.end_at - run.t())
        if not run.stop.is_set():
            self.final_checks()

    def final_checks(self):
        # The hub and the watch agree with the box at the end.
        run = self.run
        run.quiet.set()
        time.sleep(6)   # a command in flight (at most every 4 s, 3 s budget) has landed
        end = {"kind": "end of run", "start": run.t(), "hold": 0}
        run.fault_now = "end of run"
        end["cleared"] = run.t()
        self.faults.await_recovery(end)
        self.faults.end_check = end
        time.sleep(2)
        with run.lock:
            watch_last = self.watch.last
        self.watch.final = (watch_last, end.get("message"))

    def after_the_run(self):
        """The box stops cleanly, its state is read, and it starts once more on it: the restart
        check's result (None when the run did not get that far)."""
        run, box = self.run, self.box
        if not run.started or run.stop.is_set():
            return None
        run.stop_threads()
        box.process.terminate()
        code = box.process.wait(timeout=30)
        if code != 0:
            run.fail(f"the box did not stop cleanly on SIGTERM at the end: {describe_exit(code)}")
        box.state_files = box.read_state_files()
        run.note("state files: " + box.state_files[1])
        restart = box.restart_check()
        run.note(f"restart check: {'ok' if restart.get('ok') else 'FAILED'}: exit {restart.get('code')}, beacon "
                 f"{restart.get('beacon')}, messages {restart.get('messages')} (saved {restart.get('saved')}), "
                 f"problems {restart.get('problems')}")
        return restart

    def cleanup(self):
        self.run.stop_threads(timeout=10)
        self.box.stop()
        self.hub.stop()
        self.postgres.stop()
        self.box.keep_state()
        self.faults.unmount_tmpfs()
        self.faults.step_clock(0)      # never leave the machine's clock wrong, whatever happened
