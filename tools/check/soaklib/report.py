"""What the soak measured and says: the samples of the box's and the hub's RSS, descriptors,
threads and CPU every 5 s (samples.csv), the growth between the run's first and last thirds, the
summary with its PASS/FAIL lines (summary.txt), crowd-failures.csv and the plot (soak.png)."""
import csv
import datetime
import os
import statistics
import sys
import time

from .run import describe_exit

SAMPLE_EVERY = 5.0
RSS_TOLERANCE_KIB = 8 * 1024
RSS_TOLERANCE_FRACTION = 0.10
FD_TOLERANCE = 6


def proc_sample(pid):
    """(rss KiB, descriptors, threads, CPU seconds) of a live process, or None."""
    try:
        rss = threads = None
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    rss = int(line.split()[1])
                elif line.startswith("Threads:"):
                    threads = int(line.split()[1])
        fds = len(os.listdir(f"/proc/{pid}/fd"))
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        ticks = os.sysconf("SC_CLK_TCK")
        cpu = (int(fields[11]) + int(fields[12])) / ticks   # utime, stime: fields 14 and 15
        if rss is None:
            return None   # a zombie
        return rss, fds, threads, cpu
    except (OSError, ValueError, IndexError):
        return None


class Samples:
    """Every SAMPLE_EVERY s a row: the box's and the hub's figures, the fault in force, the state
    directory's use and the crowd's answers since the last row (samples.csv)."""

    def __init__(self, run, box, hub, crowd):
        self.run = run
        self.box = box
        self.hub = hub
        self.crowd = crowd
        self.rows = []

    def take(self):
        run = self.run
        previous = {}
        path = os.path.join(run.out, "samples.csv")
        fields = ["t_s", "time", "fault", "box_pid", "box_rss_kib", "box_fds", "box_threads", "box_cpu_s", "box_cpu_pct",
                  "hub_pid", "hub_rss_kib", "hub_fds", "hub_threads", "hub_cpu_s", "hub_cpu_pct", "state_used_kib",
                  "crowd_ok", "crowd_failed"]
        with open(path, "w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=fields)
            writer.writeheader()
            next_at = time.monotonic()
            while not run.stop.is_set():
                t = run.t()
                row = {"t_s": f"{t:.1f}", "time": datetime.datetime.fromtimestamp(run.wall0 + t).strftime("%H:%M:%S"),
                       "fault": run.fault_now}
                for who, process in (("box", self.box.process), ("hub", self.hub.process)):
                    sample = proc_sample(process.pid) if process is not None and process.poll() is None else None
                    if sample is None:
                        continue
                    rss, fds, threads, cpu = sample
                    row.update({f"{who}_pid": process.pid, f"{who}_rss_kib": rss, f"{who}_fds": fds,
                                f"{who}_threads": threads, f"{who}_cpu_s": f"{cpu:.2f}"})
                    last = previous.get(who)
                    if last and last[0] == process.pid and t > last[1]:
                        row[f"{who}_cpu_pct"] = f"{100 * (cpu - last[2]) / (t - last[1]):.1f}"
                    previous[who] = (process.pid, t, cpu)
                try:
                    vfs = os.statvfs(run.state)
                    row["state_used_kib"] = (vfs.f_blocks - vfs.f_bfree) * vfs.f_frsize // 1024
                except OSError:
                    pass
                with run.lock:
                    row["crowd_ok"], row["crowd_failed"] = self.crowd.counts
                    self.crowd.counts = [0, 0]
                    self.rows.append(row)
                writer.writerow(row)
                f.flush()
                next_at += SAMPLE_EVERY
                if not run.wait(next_at - time.monotonic()):
                    break


def write(soak, interrupted, setup_error, restart):
    """crowd-failures.csv, summary.txt and soak.png into --out: summary.txt's text, and whether
    any check failed."""
    out = soak.run.out
    soak.crowd.write_failures(os.path.join(out, "crowd-failures.csv"))
    text, failed = report(soak, interrupted, setup_error, restart)
    with open(os.path.join(out, "summary.txt"), "w") as f:
        f.write(text)
    if soak.samples.rows:
        try:
            plot(soak, os.path.join(out, "soak.png"))
        except Exception as error:
            print(f"tools/check/soak: could not draw soak.png: {error}", file=sys.stderr)
    return text, failed


def number(row, key):
    value = row.get(key)
    return None if value in (None, "") else float(value)


def growth(samples, warmup, key):
    """(first-third median, last-third median) of `key` after the warm-up."""
    start = warmup
    end = max((float(r["t_s"]) for r in samples), default=0)
    third = (end - start) / 3
    first = [number(r, key) for r in samples if start <= float(r["t_s"]) <= start + third]
    last = [number(r, key) for r in samples if float(r["t_s"]) >= end - third]
    first = [v for v in first if v is not None]
    last = [v for v in last if v is not None]
    if len(first) < 2 or len(last) < 2:
        return None
    return statistics.median(first), statistics.median(last)


def report(soak, interrupted, setup_error, restart):
    """summary.txt's text, and whether any check failed."""
    run, box, hub, faults, watch, samples = soak.run, soak.box, soak.hub, soak.faults, soak.watch, soak.samples.rows
    lines = []
    checks = []

    def add(ok, text):
        checks.append((ok, text))

    if setup_error:
        add(False, f"setup: {setup_error}")
    if interrupted:
        add(False, f"the soak was interrupted at {run.stamp()}")
    for fault in faults.faults:
        if "skipped" in fault:
            continue
        when = f"on {run.stamp(fault['start'])}, cleared {run.stamp(fault.get('cleared', fault['start']))}"
        if "error" in fault:
            add(False, f"fault {fault['kind']} ({when}): {fault['error']}")
        if "published" in fault and "recovered" in fault:
            add(True, f"after {fault['kind']} ({when}) the hub had the box's message {fault['message']} "
                      f"{fault['recovered']:.1f} s later ({fault['published']!r} published "
                      f"{'after' if fault['kind'] == 'box-kill' else 'during'} it)")
        elif "recovered" in fault:
            add(True, f"after {fault['kind']} ({when}) the hub had the box's message {fault['message']} "
                      f"{fault['recovered']:.1f} s later")
        if "published_error" in fault:
            add(False, f"fault {fault['kind']} ({when}): the box refused a publish: {fault['published_error']}")
        elif "recovery_failure" in fault:
            add(False, f"after {fault['kind']} ({when}) the hub did not have the box's message within "
                       f"{run.bound} s: {fault['recovery_failure']}")
        if "crowd_back" in fault:
            add(True, f"after {fault['kind']} the crowd resolved again {fault['crowd_back']:.1f} s after it cleared")
        elif "crowd_failure" in fault:
            add(False, f"after {fault['kind']} (cleared at {run.stamp(fault['cleared'])}) the crowd did not resolve "
                       f"again within {run.bound} s: {fault['crowd_failure']}")
    skipped = [f["kind"] for f in faults.faults if "skipped" in f]
    for fault in faults.faults:
        if "skipped" in fault:
            add(False, f"fault {fault['kind']} (planned at {run.stamp(fault['planned'])}) was not run: the schedule "
                       f"ran late (the faults before it took longer than their slots)")
    end = faults.end_check
    if end is not None:
        if "recovered" in end:
            add(True, f"at the end of the run the hub had the box's message {end['message']}")
        else:
            add(False, f"at the end of the run ({run.stamp(end['cleared'])}) the hub did not have the box's message "
                       f"within {run.bound} s: {end.get('recovery_failure')}")
    if run.started:
        names = box.beacon_names_seen
        add(len(names) == 1, f"the box's beaconName stayed {box.beacon_name} across {box.kills} kills"
            if len(names) == 1 else f"the box's beaconName changed: {sorted(names)}")
        unexpected = [(t, c) for t, c, expected in box.exits if not expected]
        add(box.restarts == box.kills and not unexpected,
            f"box restarts {box.restarts} == box kills scheduled {box.kills}"
            + (f"; exits nobody caused: {', '.join(f'{describe_exit(c)} at {run.stamp(t)}' for t, c in unexpected)}"
               if unexpected else ""))
        add(box.console_mismatches == 0, f"the box's message was the console's last one at every status "
            f"({len(box.console_rows)} console commands, {box.console_mismatches} mismatches"
            + (f"; the first: {box.first_mismatch})" if box.first_mismatch else ")"))
        hub_kills = sum(1 for f in faults.faults if f["kind"] == "hub-kill" and "start" in f)
        if watch.final is not None:
            last, message = watch.final
            add(last is not None and last[1] == message and watch.connections >= hub_kills + 1,
                f"the watch connected {watch.connections} times ({hub_kills} hub kills) and its last event "
                f"({run.stamp(last[0]) if last else 'none'}) has {last[1] if last else None}, the hub {message}")
    state_ok = box.state_files
    if state_ok is not None:
        add(state_ok[0], f"state files: {state_ok[1]}")
    if restart is not None:
        if restart.get("ok"):
            add(True, f"after the run `nearcast run` started again on the state directory: exit 0, beacon "
                      f"{restart.get('beacon')}, broadcasting the saved message {restart.get('messages')}")
        else:
            add(False, f"after the run `nearcast run` on the state directory: {restart.get('why') or ''} exit "
                       f"{restart.get('code')}, beacon {restart.get('beacon')} (was {box.beacon_name}), messages "
                       f"{restart.get('messages')} (saved {restart.get('saved')}), problems {restart.get('problems')} "
                       f"(restart-check.log)")
    figures = []
    if run.started and samples:
        for who in ("box", "hub"):
            for key, unit, tolerance in (("rss_kib", "MiB", None), ("fds", "descriptors", FD_TOLERANCE)):
                g = growth(samples, faults.warmup, f"{who}_{key}")
                if g is None:
                    add(False, f"{who} {key}: too few samples to measure growth")
                    continue
                first, last = g
                if key == "rss_kib":
                    allowed = RSS_TOLERANCE_KIB + RSS_TOLERANCE_FRACTION * first
                    text = (f"{who} RSS: {first / 1024:.1f} MiB in the first third, {last / 1024:.1f} MiB in the last "
                            f"({(last - first) / 1024:+.1f} MiB; allowed {allowed / 1024:.1f})")
                else:
                    allowed = tolerance
                    text = (f"{who} descriptors: {first:.0f} in the first third, {last:.0f} in the last "
                            f"({last - first:+.0f}; allowed {allowed})")
                figures.append(text)
                add(last - first <= allowed, "no growth: " + text)
    for t, text, reported in run.failures:
        if not reported:
            add(False, f"{text} (at {run.stamp(t)})")

    lines.append(f"tools/check/soak: {run.duration / 60:.1f} min planned, {run.t() / 60:.1f} min run, seed {run.seed}, "
                 f"crowd {run.args.crowd}, started {datetime.datetime.fromtimestamp(run.wall0):%Y-%m-%d %H:%M:%S}")
    lines.append(f"box {run.args.box_bin}; hub {run.args.hub_bin}; state on "
                 f"{'an 8 MiB tmpfs' if faults.tmpfs else 'a plain folder'}")
    for note in run.notes:
        lines.append(f"NOTE: {note}")
    if skipped:
        lines.append(f"NOTE: faults skipped (the schedule ran late): {', '.join(skipped)}")
    lines.append("")
    for ok, text in checks:
        lines.append(f"{'PASS' if ok else 'FAIL'} {text}")
    lines.append("")
    lines.append("faults (on, held, cleared, hub had the box's message after, crowd back after):")
    for fault in faults.faults:
        if "skipped" in fault:
            lines.append(f"  {fault['kind']:<28} skipped ({fault['skipped']})")
            continue
        recovered = f"{fault['recovered']:.1f} s" if "recovered" in fault else "NOT within bound"
        crowd = f", crowd {fault['crowd_back']:.1f} s" if "crowd_back" in fault else ""
        lines.append(f"  {fault['kind']:<28} {run.stamp(fault['start'])}  {fault['hold']:>4} s  "
                     f"{run.stamp(fault.get('cleared', fault['start']))}  {recovered}{crowd}"
                     + (f"  [{fault['detail']}]" if fault.get("detail") else ""))
    if samples:
        lines.append("")
        lines.append("peaks:")
        for who in ("box", "hub"):
            def peak(key):
                values = [number(r, f"{who}_{key}") for r in samples]
                values = [v for v in values if v is not None]
                return max(values) if values else float("nan")
            lines.append(f"  {who}: RSS {peak('rss_kib') / 1024:.1f} MiB, descriptors {peak('fds'):.0f}, "
                         f"threads {peak('threads'):.0f}, CPU {peak('cpu_pct'):.0f} %")
        used = [number(r, "state_used_kib") for r in samples if number(r, "state_used_kib") is not None]
        if used:
            lines.append(f"  state directory: at most {max(used):.0f} KiB used")
        lines.append(f"growth (medians, last third vs first third after the warm-up, which ended at {run.stamp(faults.warmup)}):")
        lines += [f"  {text}" for text in figures]
    ok_total = sum(int(r.get("crowd_ok") or 0) for r in samples)
    failed_total = sum(int(r.get("crowd_failed") or 0) for r in samples)
    lines.append(f"crowd: {ok_total} resolves answered, {failed_total} failed; watch: {watch.connections} "
                 f"connections, {sum(1 for r in watch.rows if r[1] == 'attachments')} events; box restarts "
                 f"{box.restarts}; hub starts {hub.starts}")
    lines.append("")
    lines.append(f"files in {run.out}: summary.txt samples.csv events.log console.csv crowd-failures.csv watch.csv "
                 f"box.log box-ble.log box-leds.log hub.log postgres.log restart-check.log state-final/ soak.png")
    failed = any(not ok for ok, _ in checks)
    lines.append("RESULT: " + ("FAIL" if failed else "PASS") + f" ({sum(1 for ok, _ in checks if ok)} passed, "
                 f"{sum(1 for ok, _ in checks if not ok)} failed)")
    return "\n".join(lines) + "\n", failed


def plot(soak, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    run, faults, rows = soak.run, soak.faults, soak.samples.rows
    figure, axes = plt.subplots(4, 1, figsize=(13, 11), sharex=True)
    panels = [("rss_kib", "RSS (MiB)", 1 / 1024), ("fds", "open descriptors", 1), ("threads", "threads", 1),
              ("cpu_pct", "CPU (%)", 1)]
    minutes = run.t() > 600
    scale = 60 if minutes else 1
    for axis, (key, label, factor) in zip(axes, panels):
        for who, colour in (("box", "tab:blue"), ("hub", "tab:orange")):
            xs, ys = [], []
            for row in rows:
                value = number(row, f"{who}_{key}")
                xs.append(float(row["t_s"]) / scale)
                ys.append(value * factor if value is not None else float("nan"))
            axis.plot(xs, ys, label=who, color=colour, linewidth=1.2, marker=".", markersize=3)
        axis.set_ylabel(label)
        axis.grid(alpha=0.3)
    colours = {"sim": "tab:purple", "hub-kill": "tab:red", "postgres-restart": "tab:brown", "box-kill": "black",
               "disk-full": "tab:green", "disk-readonly": "tab:olive", "clock-forward": "tab:cyan",
               "clock-back": "tab:pink"}
    for fault in faults.faults:
        if "start" not in fault:
            continue
        start = fault["start"] / scale
        end = max(fault.get("cleared", fault["start"]), fault["start"] + 1) / scale
        colour = colours.get(fault["kind"].split(":")[0], "grey")
        for axis in axes:
            axis.axvspan(start, end, color=colour, alpha=0.18)
        axes[0].annotate(fault["kind"].replace("sim:", ""), xy=(start, 1.0), xycoords=("data", "axes fraction"),
                         rotation=60, fontsize=7, ha="left", va="bottom", color=colour)
    # The warm-up's end and the thirds the growth check compares.
    end = max((float(r["t_s"]) for r in rows), default=0)
    third = (end - faults.warmup) / 3
    for x, text in ((faults.warmup, "warm-up ends"), (faults.warmup + third, "first third ends"), (end - third, "last third")):
        for axis in axes:
            axis.axvline(x / scale, color="grey", linestyle=":", linewidth=1)
        axes[-1].annotate(text, xy=(x / scale, 0.98), xycoords=("data", "axes fraction"), fontsize=7, color="grey",
                          ha="left", va="top")
    axes[0].legend(loc="upper left")
    axes[-1].set_xlabel("minutes" if minutes else "seconds since the start")
    figure.suptitle(f"tools/check/soak, seed {run.seed}, {datetime.datetime.fromtimestamp(run.wall0):%Y-%m-%d %H:%M}", y=0.995)
    figure.tight_layout(rect=(0, 0, 1, 0.96))
    figure.savefig(path, dpi=110)
    plt.close(figure)

