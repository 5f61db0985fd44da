#!/usr/bin/env python3
"""Image-method room impulse responses for the modem lab, cached as .npy.

Usage: nice -n 10 python3 rirs.py [--cond A|B|C ...] [--count N]
  A = RT60 0.6 s, 3 m;  B = RT60 0.8 s, 5 m;  C = RT60 0.4 s, 2 m.  Omni source.
Each RIR: pyroomacoustics ShoeBox, one flat wall absorption from inverse_sabine(RT60, dims)
(Sabine), max_order from inverse_sabine, air_absorption=True, fs 48 kHz (44.1 kHz versions are
made by resample_poly 147/160 at load time).  Room size and positions are random per trial
(seeded by the trial index), the source-listener distance fixed.  DRR = energy of the order-0
(direct) response over the energy of the rest, broadband and in 18.5-20 kHz.
Cache: /var/cache/nearcast/modem-lab/rir_<cond>_<index>.npz
"""
import argparse, os, sys, time
import numpy as np

CACHE = "/var/cache/nearcast/modem-lab"
FS = 48000
CONDS = {
    # rt60, distance, (L range, W range, H range)
    "A": (0.6, 3.0, ((6.0, 8.5), (5.0, 6.5), (2.8, 3.3))),
    "B": (0.8, 5.0, ((8.5, 11.5), (6.5, 8.5), (3.0, 4.0))),
    "C": (0.4, 2.0, ((5.0, 8.0), (4.0, 6.0), (2.6, 3.2))),
}
KEEP_SECONDS = 1.5


def geometry(cond, index):
    rt60, dist, ranges = CONDS[cond]
    rng = np.random.default_rng(1000 * ord(cond) + index)
    while True:
        dim = np.array([rng.uniform(*r) for r in ranges])
        src = np.array([rng.uniform(0.5, dim[0] - 0.5), rng.uniform(0.5, dim[1] - 0.5),
                        rng.uniform(1.0, min(2.0, dim[2] - 0.3))])
        for _ in range(50):
            mz = rng.uniform(0.8, min(1.8, dim[2] - 0.3))
            dz = mz - src[2]
            horiz = np.sqrt(max(dist ** 2 - dz ** 2, 0.0))
            a = rng.uniform(0, 2 * np.pi)
            mic = np.array([src[0] + horiz * np.cos(a), src[1] + horiz * np.sin(a), mz])
            if np.all(mic[:2] > 0.5) and np.all(mic[:2] < dim[:2] - 0.5):
                return rt60, dim, src, mic
        # no room for the listener: new room


def band_energy(x):
    import scipy.signal as ss
    sos = ss.butter(8, [18500, 20000], btype="band", fs=FS, output="sos")
    return ss.sosfiltfilt(sos, x)


def make(cond, index):
    import pyroomacoustics as pra
    rt60, dim, src, mic = geometry(cond, index)
    e_abs, max_order = pra.inverse_sabine(rt60, dim)

    def rir(order):
        room = pra.ShoeBox(dim, fs=FS, materials=pra.Material(e_abs), max_order=order,
                           air_absorption=True)
        room.add_source(src)
        room.add_microphone(mic)
        room.compute_rir()
        return np.asarray(room.rir[0][0], dtype=np.float64)

    h = rir(max_order)
    hd = rir(0)
    n = int(KEEP_SECONDS * FS)
    h = h[:n] if len(h) >= n else np.pad(h, (0, n - len(h)))
    hd = hd[:n] if len(hd) >= n else np.pad(hd, (0, n - len(hd)))
    rest = h - hd
    drr = 10 * np.log10(np.sum(hd ** 2) / np.sum(rest ** 2))
    hb, hdb = band_energy(h), band_energy(hd)
    drr_band = 10 * np.log10(np.sum(hdb ** 2) / np.sum((hb - hdb) ** 2))
    direct_index = int(np.argmax(np.abs(hd)))
    return dict(h=h.astype(np.float32), drr=drr, drr_band=drr_band, direct_index=direct_index,
                dim=dim, src=src, mic=mic, e_abs=e_abs, max_order=max_order)


def path(cond, index):
    return os.path.join(CACHE, f"rir_{cond}_{index:04d}.npz")


_mem = {}


def load(cond, index, fs=48000):
    """Returns (h at fs, info dict). Generates and caches when missing."""
    key = (cond, index, fs)
    if key in _mem:
        return _mem[key]
    p = path(cond, index)
    if not os.path.exists(p):
        d = make(cond, index)
        os.makedirs(CACHE, exist_ok=True)
        np.savez(p + ".tmp.npz", **d)
        os.replace(p + ".tmp.npz", p)
    z = np.load(p)
    h = z["h"].astype(np.float64)
    info = dict(drr=float(z["drr"]), drr_band=float(z["drr_band"]),
                direct_index=int(z["direct_index"]))
    if fs != 48000:
        import scipy.signal as ss
        h = ss.resample_poly(h, 147, 160)
        info["direct_index"] = int(round(info["direct_index"] * fs / 48000))
    if len(_mem) > 64:
        _mem.clear()
    _mem[key] = (h, info)
    return h, info


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--cond", nargs="+", default=["A", "B"])
    ap.add_argument("--count", type=int, default=500)
    a = ap.parse_args()
    for c in a.cond:
        t = time.time()
        drrs = []
        for i in range(a.count):
            _, info = load(c, i)
            drrs.append((info["drr"], info["drr_band"]))
        d = np.array(drrs)
        print(f"{c}: {a.count} RIRs, DRR broadband {d[:,0].mean():.2f} dB (sd {d[:,0].std():.2f}), "
              f"in band {d[:,1].mean():.2f} dB, {time.time()-t:.0f} s", flush=True)
