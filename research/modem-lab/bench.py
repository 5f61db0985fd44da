#!/usr/bin/env python3
"""Monte-Carlo bench for modem.py profiles over image-method rooms, white noise and time scale.

Usage: OMP_NUM_THREADS=1 nice -n 10 python3 bench.py --prof T=40 M=4 G=4 P=15 \
           --opt L=2 --cond A B W28 --trials 200 --fs 48000 [--tag NAME]
Conditions:
  A    image-method room RT60 0.6 s, 3 m, omni source, 30 dB SNR in 18.5-20 kHz (rirs.py)
  B    RT60 0.8 s, 5 m, omni, 30 dB SNR
  C    RT60 0.4 s, 2 m, omni, 30 dB SNR
  Aw   room A, then time scale +-4100 ppm (sign alternates per trial), then noise (30 dB SNR)
  W28  white noise, C/N0 28 dB-Hz, no room.   W27: 27 dB-Hz.
  S    time scale +-4100 ppm, white noise C/N0 32 dB-Hz, no room (the first modem bar's row)
Trial i uses RIR i of the room (so a profile meets the same rooms as any other) and seed i.
Results are appended to results.jsonl beside this script.
"""
import argparse, json, os, sys, time
import numpy as np
import scipy.signal as ss

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import modem
import rirs

HERE = os.path.dirname(os.path.abspath(__file__))


def parse_kv(items):
    d = {}
    for it in items or []:
        k, v = it.split("=", 1)
        try:
            v = int(v)
        except ValueError:
            try:
                v = float(v)
            except ValueError:
                if v.startswith("["):
                    v = json.loads(v)
        d[k] = v
    return d


def make_trial(p, fs, cond, i, eps_override=None):
    rng = np.random.default_rng(7919 * i + 17)
    kind = int(rng.integers(0, 3))
    payload = int(rng.integers(0, 2 ** 63)) * 2 + int(rng.integers(0, 2))
    x, _ = modem.encode(p, fs, kind, payload)
    lead = int(rng.uniform(0.1, 0.2) * fs)
    room = cond[0] if cond[0] in "ABC" else None
    info = {}
    if room:
        h, info = rirs.load(room, i, fs)
        y = ss.oaconvolve(np.concatenate([np.zeros(lead), x]), h)
        y = np.concatenate([y, np.zeros(int(0.2 * fs))])
        d0 = lead + info["direct_index"]
    else:
        y = np.concatenate([np.zeros(lead), x, np.zeros(int(0.5 * fs))])
        d0 = lead
    eps = 0.0
    if cond in ("Aw", "S") or eps_override is not None:
        eps = 4100e-6 * (1 if i % 2 == 0 else -1) if eps_override is None else eps_override
        # x((1+eps)t): resample by 1/(1+eps) with scipy's polyphase filter (Kaiser, long)
        up, down = 100000, int(round(100000 * (1 + eps)))
        y = ss.resample_poly(y, up, down, window=("kaiser", 10.0))
        d0 = d0 / (1 + eps)
    if room:
        seg = y[int(d0): int(d0) + len(x)]
        prx = modem.band_power(seg, fs)
        nb = prx / 10 ** (30 / 10)
        sigma2 = nb / (1500.0 / (fs / 2))
    else:
        cn0 = {"W28": 28.0, "W27": 27.0, "W26": 26.0, "S": 32.0}.get(cond, 28.0)
        P = np.mean(x ** 2)
        sigma2 = P * (fs / 2) / 10 ** (cn0 / 10)
    y = y + np.sqrt(sigma2) * rng.standard_normal(len(y))
    return y, kind, payload, d0, eps, info


def run(p, fs, cond, trials, opt, start=0, verbose=False):
    rx = modem.Receiver(p, fs, **opt)
    ok = wrong = misplaced = 0
    tries = 0
    revs = []
    drr = []
    eps_err = []
    t_err = []
    fails = []
    tcpu = time.process_time()
    for i in range(start, start + trials):
        y, kind, payload, d0, eps, info = make_trial(p, fs, cond, i)
        if info:
            drr.append(info["drr"])
        if opt.get("genie"):
            z = rx.baseband(y)
            sy = rx.sync(z)
            if opt["genie"] in (1, 3):
                sy["t0"] = d0 / rx.D
            if opt["genie"] in (2, 3):
                sy["eps"] = eps
            res = rx.decode_at(z, sy)
        else:
            res, sy = rx.decode(y)
            tries += rx.tries
        t0 = sy["t0"] * rx.D
        eps_err.append((sy["eps"] - eps) * 1e6)
        revs.append(sy.get("rev", 0))
        t_err.append((t0 - d0) / fs * 1e3)
        if res is not None:
            if res == (kind, payload) and abs(t0 - d0) < 0.03 * fs:
                ok += 1
            elif res == (kind, payload):
                misplaced += 1  # right payload, reported start more than 30 ms off
                fails.append(i)
            else:
                wrong += 1
                fails.append(i)
        else:
            fails.append(i)
            if verbose:
                print(f"    fail {i}: eps err {(sy['eps']-eps)*1e6:.0f} ppm, t err {(t0-d0)/fs*1e3:.2f} ms", flush=True)
    cpu = time.process_time() - tcpu
    eps_err = np.array(eps_err)
    t_err = np.array(t_err)
    out = dict(prof=p.name, desc=p.describe(), fs=fs, cond=cond, trials=trials, ok=ok,
               wrong=wrong, misplaced=misplaced, tries_per_trial=tries / trials, pct=100.0 * ok / trials, opt={k: v for k, v in opt.items()},
               drr=float(np.mean(drr)) if drr else None,
               eps_err_rms=float(np.sqrt(np.mean(eps_err ** 2))),
               eps_err_p95=float(np.percentile(np.abs(eps_err), 95)),
               t_err_med=float(np.median(t_err)), t_err_p95=float(np.percentile(np.abs(t_err), 95)),
               airtime=p.airtime, rev_p5=float(np.percentile(revs, 5)), rev_p95=float(np.percentile(revs, 95)), cpu_per_trial=cpu / trials, fails=fails[:20])
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--prof", nargs="*", default=[])
    ap.add_argument("--opt", nargs="*", default=[])
    ap.add_argument("--cond", nargs="+", default=["A"])
    ap.add_argument("--trials", type=int, default=200)
    ap.add_argument("--start", type=int, default=0)
    ap.add_argument("--fs", type=int, nargs="+", default=[48000])
    ap.add_argument("--tag", default="")
    ap.add_argument("-v", action="store_true")
    a = ap.parse_args()
    pk = parse_kv(a.prof)
    opt = parse_kv(a.opt)
    p = modem.Profile(**pk)
    print(p.describe(), "opt", opt, flush=True)
    for fs in a.fs:
        for c in a.cond:
            r = run(p, fs, c, a.trials, opt, a.start, a.v)
            r["tag"] = a.tag
            r["prof_args"] = pk
            print(f"  {fs} {c:4s} {r['ok']}/{r['trials']} = {r['pct']:.1f}%  wrong {r['wrong']}  "
                  f"DRR {r['drr'] if r['drr'] is None else round(r['drr'],2)}  eps err rms "
                  f"{r['eps_err_rms']:.0f} ppm p95 {r['eps_err_p95']:.0f}  t err med "
                  f"{r['t_err_med']:.2f} ms p95 {r['t_err_p95']:.2f}  {r['cpu_per_trial']*1e3:.0f} ms/trial"
                  f"  rev p5 {r['rev_p5']:.2f} p95 {r['rev_p95']:.2f}  tries/trial {r['tries_per_trial']:.2f}  fails {r['fails'][:8]}", flush=True)
            with open(os.path.join(HERE, "results.jsonl"), "a") as f:
                f.write(json.dumps(r) + "\n")


if __name__ == "__main__":
    main()
