#!/usr/bin/env python3
"""Parametric near-ultrasonic burst modem (encoder + receiver) for the modem lab.

Usage: imported by bench.py (python3 bench.py --help); the recommended design is
Profile(T=60, M=4, G=8, P=22, plan="table", K=9, nsym=11) with Receiver(p, fs, metric="i0", offset_ms=3).  `python3 modem.py` runs a self-test
(clean loopback at 48 and 44.1 kHz for the default profile).

A profile (class Profile) fixes the waveform: a chirp pair for sync, then symbols of T ms on a
grid of tones spaced 1/T from 18.5 kHz to 20.0 kHz.  Each symbol carries G simultaneous tones
("groups"), each group picks one of M candidate bins (log2 M bits, Gray-mapped).  The candidate
bins of group g of symbol n are subband s = (n*G + g) mod P of the grid: with plan "comb" the bins
s, s+P, s+2P, ...; with plan "block" the bins s*M .. s*M+M-1.  So a bin is reused at the earliest
P/G symbols later, and the receiver may integrate a bin's energy over the following windows
("tail as signal").  Frame: kind(2) + payload(64) + CRC-16 + 6 tail bits, convolutional code
K=7 rate 1/2 (171,133) or rate 1/3 (133,171,165), pseudo-random or multiplicative interleaver.
"""
import numpy as np
import scipy.signal as ss
import scipy.special

# ---------------------------------------------------------------- frame / code


def crc16(bits, init=0xFFFF):
    crc = init
    for b in bits:
        fb = ((crc >> 15) & 1) ^ int(b)
        crc = (crc << 1) & 0xFFFF
        if fb:
            crc ^= 0x1021
    return crc


def int_bits(v, n):
    return [(v >> (n - 1 - i)) & 1 for i in range(n)]


GENS = {(7, 2): (0o171, 0o133), (7, 3): (0o133, 0o171, 0o165), (9, 2): (0o561, 0o753)}
K = 7


def _parity(x):
    return bin(x).count("1") & 1


def conv_tables(rate_inv, K=7):
    gens = GENS[(K, rate_inv)]
    NSTATES = 1 << (K - 1)
    out = np.zeros((NSTATES, 2, rate_inv), dtype=np.int8)
    nxt = np.zeros((NSTATES, 2), dtype=np.int64)
    for s in range(NSTATES):
        for b in range(2):
            reg = (b << (K - 1)) | s  # newest bit at the top
            for j, g in enumerate(gens):
                # generator bit order: MSB applies to newest bit
                out[s, b, j] = _parity(reg & _rev(g, K))
            nxt[s, b] = reg >> 1
    return out, nxt


def _rev(g, K=7):
    r = 0
    for i in range(K):
        if g & (1 << i):
            r |= 1 << (K - 1 - i)
    return r


_TABLES = {kr: conv_tables(kr[1], kr[0]) for kr in GENS}


def conv_encode(bits, rate_inv, K=7):
    out, nxt = _TABLES[(K, rate_inv)]
    s = 0
    res = []
    for b in bits:
        res.extend(out[s, b])
        s = nxt[s, b]
    return np.array(res, dtype=np.int8)


def viterbi(llr, rate_inv, nbits, K=7):
    """llr: (nbits*rate_inv,) positive = bit 0.  Returns the nbits decoded bits (terminated)."""
    out, nxt = _TABLES[(K, rate_inv)]
    NSTATES = 1 << (K - 1)
    sign = 1 - 2 * out.astype(np.float64)  # (S,2,R): +1 for 0
    pm = np.full(NSTATES, -1e18)
    pm[0] = 0.0
    # predecessor structure: for each next state ns, two (s,b) pairs
    prev_s = np.zeros((NSTATES, 2), dtype=np.int64)
    prev_b = np.zeros((NSTATES, 2), dtype=np.int64)
    cnt = np.zeros(NSTATES, dtype=np.int64)
    for s in range(NSTATES):
        for b in range(2):
            ns = nxt[s, b]
            prev_s[ns, cnt[ns]] = s
            prev_b[ns, cnt[ns]] = b
            cnt[ns] += 1
    L = llr.reshape(nbits, rate_inv)
    dec = np.zeros((nbits, NSTATES), dtype=np.int8)
    sg = sign[prev_s, prev_b]  # (S,2,R)
    for t in range(nbits):
        bm = sg @ L[t] * 0.5  # (S,2)
        cand = pm[prev_s] + bm
        ch = np.argmax(cand, axis=1)
        pm = cand[np.arange(NSTATES), ch]
        dec[t] = ch
    s = 0
    bits = np.zeros(nbits, dtype=np.int8)
    for t in range(nbits - 1, -1, -1):
        c = dec[t, s]
        bits[t] = prev_b[s, c]
        s = prev_s[s, c]
    return bits


GRAY = {1: [0, 1], 2: [0, 1, 3, 2], 3: [0, 1, 3, 2, 6, 7, 5, 4],
        4: [0, 1, 3, 2, 6, 7, 5, 4, 12, 13, 15, 14, 10, 11, 9, 8]}


# ---------------------------------------------------------------- profile


def hop_table(nsym, G, P, plan, seed=1, tries=400):
    """Subband index per (symbol, group).  "comb"/"block": round robin.  "table": least recently
    used subbands first, chosen at random among ties, best of `tries` sequences by (1) no subband
    reused within the previous symbol... (2) the largest share of groups that a frequency shift of
    d bins (0 < |d| <= P//2) maps onto another group of the same symbol (the time-scale search's
    ambiguity), (3) groups whose neighbouring subband (+-1 bin) was used one symbol before."""
    if plan != "table":
        return np.array([[(n * G + g) % P for g in range(G)] for n in range(nsym)])
    rng = np.random.default_rng(seed)
    best = None
    for _ in range(tries):
        last = np.full(P, -100)
        tab = np.zeros((nsym, G), dtype=np.int64)
        for n in range(nsym):
            order = np.lexsort((rng.random(P), last))  # least recently used first
            pool = order[: min(P, G + 2)]
            pick = rng.choice(pool, G, replace=False)
            tab[n] = np.sort(pick)
            last[pick] = n
        # criteria
        reuse = 0
        for n in range(1, nsym):
            reuse += len(set(tab[n]) & set(tab[n - 1])) * 10
            if n >= 2:
                reuse += len(set(tab[n]) & set(tab[n - 2]))
        amb = 0
        for d in range(1, P // 2 + 1):
            for sgn in (1, -1):
                hits = sum(len(set((tab[n] + sgn * d) % P) & set(tab[n])) for n in range(nsym))
                amb = max(amb, hits)
        adj = sum(len(set((tab[n] + 1) % P) & set(tab[n - 1])) + len(set((tab[n] - 1) % P) & set(tab[n - 1]))
                  for n in range(1, nsym))
        cost = (reuse, amb * 3 + adj)
        if best is None or cost < best[0]:
            best = (cost, tab.copy())
    return best[1]



class Profile:
    def __init__(self, T=10.0, M=16, G=1, plan="comb", P=None, rate_inv=2,
                 chirp_ms=30.0, chirp_lo=18600.0, chirp_hi=19800.0, order="updown",
                 f_lo=18500.0, f_hi=20000.0, fade_ms=3.0, interleaver="random",
                 crc_init=0xFFFF, gap_ms=0.0, name=None, tail_ms=0.0, hop_seed=1, K=7, nsym=None):
        T_ms = T
        self.T = T_ms / 1000.0
        self.df = 1.0 / self.T
        self.f_lo = f_lo
        self.N = int(round((f_hi - f_lo) / self.df)) + 1
        self.M, self.G = M, G
        self.bpg = int(np.log2(M))
        self.plan = plan
        self.P = P if P is not None else self.N // M
        assert self.P * M <= self.N, (self.P, M, self.N)
        assert self.P >= G
        self.punct = None
        if rate_inv in (23, 34):  # punctured K=7 rate 1/2: 2/3 or 3/4
            self.punct = np.array({23: [1, 1, 1, 0], 34: [1, 1, 1, 0, 0, 1]}[rate_inv], dtype=bool)
            rate_label = {23: "2/3", 34: "3/4"}[rate_inv]
            rate_inv = 2
        else:
            rate_label = f"1/{rate_inv}"
        self.rate_label = rate_label
        self.rate_inv = rate_inv
        self.nbits_frame = 2 + 64 + 16
        self.K = K
        self.nbits = self.nbits_frame + K - 1
        self.nmother = self.nbits * rate_inv
        if self.punct is not None:
            self.keep = np.resize(self.punct, self.nmother)
        else:
            self.keep = np.ones(self.nmother, dtype=bool)
        self.ncoded = int(np.sum(self.keep))
        if nsym is not None and nsym * G * int(np.log2(M)) < self.ncoded:
            # puncture evenly spread coded bits so the frame fits nsym symbols
            extra = self.ncoded - nsym * G * int(np.log2(M))
            kept = np.nonzero(self.keep)[0]
            drop = kept[np.round((np.arange(extra) + 0.5) * len(kept) / extra).astype(int)]
            self.keep[drop] = False
            self.ncoded = int(np.sum(self.keep))
        self.bps = G * self.bpg
        self.nsym = int(np.ceil(self.ncoded / self.bps))
        self.nslots = self.nsym * self.bps
        self.chirp = chirp_ms / 1000.0
        self.chirp_lo, self.chirp_hi, self.order = chirp_lo, chirp_hi, order
        self.fade = fade_ms / 1000.0
        self.gap = gap_ms / 1000.0
        self.crc_init = crc_init
        self.tail = tail_ms / 1000.0  # silence (part of airtime) after the data
        self.interleaver = interleaver
        if interleaver == "random":
            self.perm = np.random.default_rng(12345).permutation(self.nslots)
        else:  # multiplicative: slot j holds coded bit (j*m) mod nslots
            m = int(interleaver)
            assert np.gcd(m, self.nslots) == 1
            self.perm = (np.arange(self.nslots) * m) % self.nslots
        # candidate bins (nsym, G, M)
        cand = np.zeros((self.nsym, G, M), dtype=np.int64)
        self.sub = hop_table(self.nsym, G, self.P, plan, hop_seed)
        for n in range(self.nsym):
            for g in range(G):
                s = self.sub[n, g]
                if plan in ("comb", "table"):
                    cand[n, g] = s + self.P * np.arange(M)
                else:
                    cand[n, g] = s * M + np.arange(M)
        self.cand = cand
        self.phase = np.pi * np.arange(G) ** 2 / G  # Newman phases per group: low crest factor
        self.name = name or (f"T{T_ms:g}M{M}G{G}P{self.P}{plan[0]}R{self.rate_label}"
                                   + ("" if K == 7 else f"K{K}"))

    @property
    def data_start(self):
        return 2 * self.chirp + self.gap

    @property
    def airtime(self):
        return self.data_start + self.nsym * self.T + self.tail

    def freqs(self):
        return self.f_lo + self.df * np.arange(self.N)

    def describe(self):
        return (f"{self.name}: T={self.T*1e3:g} ms, df={self.df:g} Hz, {self.N} bins, M={self.M}, "
                f"G={self.G}, P={self.P} ({self.plan}), R={self.rate_label}, {self.nsym} symbols, "
                f"airtime {self.airtime*1e3:.0f} ms")


def chirp_wave(p, fs, kind):
    n = int(round(p.chirp * fs))
    t = np.arange(n) / fs
    f0, f1 = (p.chirp_lo, p.chirp_hi) if kind == "up" else (p.chirp_hi, p.chirp_lo)
    k = (f1 - f0) / p.chirp
    return np.cos(2 * np.pi * (f0 * t + 0.5 * k * t * t))


def chirp_kinds(p):
    return ("up", "down") if p.order == "updown" else ("down", "up")


def frame_bits(kind, payload, p):
    bits = int_bits(kind, 2) + int_bits(payload, 64)
    bits = bits + int_bits(crc16(bits, p.crc_init), 16)
    return bits


def encode(p, fs, kind, payload):
    bits = frame_bits(kind, payload, p) + [0] * (p.K - 1)
    coded = conv_encode(bits, p.rate_inv, p.K)[p.keep]
    slots = np.zeros(p.nslots, dtype=np.int8)
    ext = np.concatenate([coded, np.zeros(p.nslots - p.ncoded, dtype=np.int8)])
    slots[:] = ext[p.perm]
    slots = slots.reshape(p.nsym, p.G, p.bpg)
    ns = int(round(p.T * fs))
    t = np.arange(ns) / fs
    f = p.freqs()
    parts = [chirp_wave(p, fs, k) for k in chirp_kinds(p)]
    if p.gap > 0:
        parts.append(np.zeros(int(round(p.gap * fs))))
    amp = 1.0 / np.sqrt(p.G)
    sym_idx = np.zeros((p.nsym, p.G), dtype=np.int64)
    for n in range(p.nsym):
        x = np.zeros(ns)
        for g in range(p.G):
            v = 0
            for b in slots[n, g]:
                v = (v << 1) | int(b)
            idx = GRAY[p.bpg].index(v) if False else GRAY[p.bpg][v]
            sym_idx[n, g] = idx
            x += amp * np.cos(2 * np.pi * f[p.cand[n, g, idx]] * t + p.phase[g])
        parts.append(x)
    if p.tail > 0:
        parts.append(np.zeros(int(round(p.tail * fs))))
    x = np.concatenate(parts)
    nf = int(round(p.fade * fs))
    w = 0.5 - 0.5 * np.cos(np.pi * np.arange(nf) / nf)
    x[:nf] *= w
    x[len(x) - nf:] *= w[::-1]
    return x, sym_idx


# ---------------------------------------------------------------- channel helpers


def kaiser_resample(x, ratio, taps=64, beta=9.0, cutoff=0.95):
    """y[n] = x(n*ratio) (band-limited).  ratio = 1+eps gives x((1+eps)t)."""
    nout = int(np.floor((len(x) - 1) / ratio)) + 1
    pos = np.arange(nout) * ratio
    base = np.floor(pos).astype(np.int64)
    frac = pos - base
    half = taps // 2
    xp = np.concatenate([np.zeros(half, dtype=x.dtype), x, np.zeros(half + 1, dtype=x.dtype)])
    y = np.zeros(nout, dtype=x.dtype)
    for k in range(-half + 1, half + 1):
        d = k - frac
        w = cutoff * np.sinc(cutoff * d) * np.kaiser_window_val(d / half, beta) if False else \
            cutoff * np.sinc(cutoff * d) * _kaiser(d / (half + 0.0), beta)
        y += w * xp[base + k + half]
    return y


def _kaiser(u, beta):
    u = np.clip(u, -1, 1)
    return np.i0(beta * np.sqrt(1 - u * u)) / np.i0(beta)


def band_power(x, fs, lo=18500.0, hi=20000.0):
    X = np.fft.rfft(x)
    f = np.fft.rfftfreq(len(x), 1 / fs)
    sel = (f >= lo) & (f <= hi)
    return 2 * np.sum(np.abs(X[sel]) ** 2) / len(x) ** 2


# ---------------------------------------------------------------- receiver


class Receiver:
    """Baseband receiver.  Options (dict) select the steps measured in REPORT.md."""

    FC = 19250.0

    def __init__(self, p, fs, **opt):
        self.p, self.fs = p, fs
        self.D = 16 if fs == 48000 else 9
        self.fb = fs / self.D
        self.opt = dict(L=0, weights="est", align="first", alpha=0.35, offset_ms=0.0,
                        metric="lin", tailsub=0.0, floor_k=2.0, nu_c=1.0, genie=0, epsmode="xcorr", kf=10.0, refine=2, refine_hz=100.0, syncscore="sum", nu0="cand", early=1, beta=0.6, rev_thr=0.0, offset_rev_ms=3.0, eps_search=0, cancel=0, scale=1.0,
                        max_eps=5500e-6)
        self.opt.update(opt)
        self.lp = ss.firwin(8 * self.D + 1, self.fb / 2, fs=fs)
        # baseband chirp templates (at fb)
        nc = int(round(p.chirp * self.fb))
        t = np.arange(nc) / self.fb
        self.tmpl = []
        for kind in chirp_kinds(p):
            f0, f1 = (p.chirp_lo, p.chirp_hi) if kind == "up" else (p.chirp_hi, p.chirp_lo)
            k = (f1 - f0) / p.chirp
            self.tmpl.append(np.exp(1j * 2 * np.pi * ((f0 - self.FC) * t + 0.5 * k * t * t)))
        self.kinds = chirp_kinds(p)
        self.nc = nc
        # spread per unit eps between chirp-2 peak and chirp-1 peak (minus nominal):
        fmid = 0.5 * (p.chirp_lo + p.chirp_hi)
        kk = (p.chirp_hi - p.chirp_lo) / p.chirp
        # up-chirp peak moves earlier by eps*fmid/k, down later; whole burst shrinks by eps*t
        s1 = -1 if self.kinds[0] == "up" else 1
        s2 = -1 if self.kinds[1] == "up" else 1
        self.spread = (s2 - s1) * fmid / kk - p.chirp  # seconds per unit eps
        self.shift1 = s1 * fmid / kk  # chirp-1 peak displacement per unit eps
        self.ns = int(round(p.T * self.fb))
        assert abs(self.ns - p.T * self.fb) < 1e-6
        f = p.freqs() - self.FC
        tt = np.arange(self.ns) / self.fb
        self.dft = np.exp(-1j * 2 * np.pi * np.outer(tt, f))  # (ns, N)

    # -- front end
    def baseband(self, y):
        n = np.arange(len(y))
        z = y * np.exp(-1j * 2 * np.pi * self.FC / self.fs * n)
        z = ss.oaconvolve(z, self.lp, mode="full")[len(self.lp) // 2:][:len(y)]
        return z[:: self.D]

    def sync(self, z, which=0):
        """Returns dict(t0 [bb samples, start of chirp 1 on receive clock], eps, score, prof).
        which=0: the strongest pair score; which=1: the earliest local maximum reaching
        opt beta x the strongest within 0.6 s before it (a room's in-burst false peaks come
        after the true one)."""
        o = self.opt
        nc = self.nc
        e = np.abs(z) ** 2
        ce = np.concatenate([[0], np.cumsum(e)])
        loc = ce[nc:] - ce[:-nc] + 1e-30
        P = []
        for tm in self.tmpl:
            r = ss.correlate(z, tm, mode="valid")  # r[i] = sum z[i+t] conj(tm[t])
            P.append(np.abs(r) ** 2 / (nc * loc[: len(r)]))
        P1, P2 = P
        L = len(P1) - nc
        maxlag = int(np.ceil(o["max_eps"] * abs(self.spread) * self.fb)) + 1
        # combined score: P1(i) + max_{|d|<=maxlag} P2(i+nc+d)
        P2s = P2[nc:nc + L]
        best2 = ss.maximum_filter1d(P2[nc - 0:], size=2 * maxlag + 1, mode="constant")[:L] \
            if False else _maxfilt(P2, nc, L, maxlag)
        S = P1[:L] + best2 if o["syncscore"] == "sum" else np.sqrt(P1[:L] * best2)
        ipk = int(np.argmax(S))
        if which == 1:
            lo = max(ipk - int(0.6 * self.fb), 0)
            c = np.nonzero(S[lo:ipk + 1] >= o["beta"] * S[ipk])[0]
            j = lo + int(c[0])
            while j + 1 < len(S) and S[j + 1] > S[j]:
                j += 1
            if j == ipk:
                return None
            ipk = j
        # time-scale: cross-correlate P1 and P2 profiles (above the noise floor) near the peak
        a = max(ipk - int(0.02 * self.fb), 0)
        b = min(ipk + int(0.08 * self.fb), L - maxlag - 1)
        f0 = max(ipk - int(0.08 * self.fb), 0)
        f1 = max(ipk - int(0.03 * self.fb), 0)
        fl1 = np.mean(P1[f0:f1]) if f1 - f0 > 4 else np.median(P1[a:b])
        fl2 = np.mean(P2[f0 + nc:f1 + nc]) if f1 - f0 > 4 else np.median(P2[a + nc:b + nc])
        Pc1 = np.maximum(P1 - o["floor_k"] * fl1, 0)
        Pc2 = np.maximum(P2 - o["floor_k"] * fl2, 0)
        seg1 = Pc1[a:b]
        cc = np.array([np.dot(seg1, Pc2[a + nc + d: b + nc + d]) for d in range(-maxlag, maxlag + 1)])
        j = int(np.argmax(cc))
        d = float(j - maxlag)
        if 0 < j < len(cc) - 1:
            den = cc[j - 1] - 2 * cc[j] + cc[j + 1]
            if den < 0:
                d += 0.5 * (cc[j - 1] - cc[j + 1]) / den
        eps = d / self.fb / self.spread
        eps_x = eps
        w15 = int(0.015 * self.fb)
        # first arrival in chirp 1's profile
        m1 = self._first(P1, ipk - w15, ipk + 2 * w15, fl1)
        if o["epsmode"] == "xcorr":
            # first arrival in the aligned profile (both chirps)
            di = int(round(d))
            Q = P1[a:b] + P2[a + nc + di: b + nc + di]
            m = int(np.argmax(Q))
            lo = max(m - w15, 0)
            cand = np.nonzero(Q[lo:m + 1] >= o["alpha"] * Q[m])[0]
            m = lo + int(cand[0])
            while m + 1 < len(Q) and Q[m + 1] > Q[m]:
                m += 1
            m1 = float(a + m)
        if o["epsmode"] == "first":
            m2 = self._first(P2, ipk + nc - maxlag - w15, ipk + nc + maxlag + 2 * w15, fl2)
            eps = (m2 - m1 - nc) / self.fb / self.spread
            if abs(eps) > o["max_eps"]:
                eps = eps_x
        t0 = m1 - eps * self.shift1 * self.fb
        # reverberation indicator: chirp-1 profile energy 2-40 ms after the first arrival over
        # the energy within +-1 ms of it (white noise: ~0.3-0.6; the rooms here: 2-10)
        im = int(round(m1))
        e_dir = np.sum(P1[max(im - 3, 0): im + 4])
        e_rev = np.sum(P1[im + int(0.002 * self.fb): im + int(0.040 * self.fb)])
        rev = float(e_rev / (e_dir + 1e-30))
        return dict(rev=rev, t0=t0, eps=eps, eps_x=eps_x, score=S[ipk], prof=(P1[a:b], a), peak=ipk, m1=m1)

    def _first(self, P, lo, hi, floor):
        """Earliest local maximum in P[lo:hi] reaching alpha x the window's max and kf x floor,
        located to a fraction of a sample."""
        o = self.opt
        lo = max(lo, 1)
        hi = min(hi, len(P) - 2)
        seg = P[lo:hi]
        mx = int(np.argmax(seg))
        thr = max(o["alpha"] * seg[mx], o["kf"] * floor)
        back = max(mx - int(0.015 * self.fb), 0)
        c = np.nonzero(seg[back:mx + 1] >= thr)[0]
        m = back + int(c[0]) if len(c) else mx
        while m + 1 < len(seg) and seg[m + 1] > seg[m]:
            m += 1
        i = lo + m
        y0, y1, y2 = P[i - 1], P[i], P[i + 1]
        den = y0 - 2 * y1 + y2
        return i + (0.5 * (y0 - y2) / den if den < 0 else 0.0)


    def resample(self, z, t0, eps, nout):
        """w[s] = z(t0 + s/(1+eps)) derotated: the burst on the sender's clock."""
        pos = t0 + np.arange(nout) / (1 + eps)
        base = np.floor(pos).astype(np.int64)
        frac = pos - base
        half = 8
        zp = np.concatenate([np.zeros(half, complex), z, np.zeros(nout + 2 * half + 16, complex)])
        w = np.zeros(nout, complex)
        for k in range(-half + 1, half + 1):
            d = k - frac
            w += np.sinc(d) * _kaiser(d / half, 6.0) * zp[np.clip(base + k + half, 0, len(zp) - 1)]
        s = np.arange(nout) / self.fb
        return w * np.exp(-1j * 2 * np.pi * self.FC * eps / (1 + eps) * s)

    def energies(self, w, nwin, offset):
        p = self.p
        ds = int(round(p.data_start * self.fb)) + offset
        segs = np.stack([w[ds + n * self.ns: ds + (n + 1) * self.ns] for n in range(nwin)])
        X = segs @ self.dft
        return X

    def refine_eps(self, w, off, eps0):
        """Residual time scale from the data tones: the frequency offset (on a grid of df/4)
        that maximises the sum over symbols and groups of the strongest candidate's energy."""
        p, o = self.p, self.opt
        q = p.df / 4
        DM = int(np.ceil(2 * o["max_eps"] * self.FC / q)) + 1
        if not hasattr(self, "_fine"):
            fg = p.f_lo - DM * q + q * np.arange(4 * (p.N - 1) + 1 + 2 * DM)
            tt = np.arange(self.ns) / self.fb
            self._fine = np.exp(-1j * 2 * np.pi * np.outer(tt, fg - self.FC))
            self._cidx = 4 * p.cand + DM  # fine index of each candidate at zero offset
        # search the absolute time scale over +-max_eps: offsets relative to eps0
        dlo = int(np.floor((-o["max_eps"] - eps0) * self.FC / q))
        dhi = int(np.ceil((o["max_eps"] - eps0) * self.FC / q))
        dlo, dhi = max(dlo, -DM), min(dhi, DM)
        ds = int(round(p.data_start * self.fb)) + off
        wp = np.concatenate([np.zeros(self.ns, complex), w])  # window -1 may start before w
        segs = np.stack([wp[self.ns + ds + n * self.ns: self.ns + ds + (n + 1) * self.ns]
                         for n in range(-1, p.nsym)])
        E4 = np.abs(segs @ self._fine) ** 2
        if o["refine"] == 2:  # onset score: energy rise over the window before
            E4 = np.maximum(E4[1:] - E4[:-1], 0)
        else:
            E4 = E4[1:]
        rows = np.arange(p.nsym)[:, None, None]
        sc = np.array([np.sum(np.max(E4[rows, self._cidx + d], axis=2)) for d in range(dlo, dhi + 1)])
        j = int(np.argmax(sc))
        d = float(j + dlo)
        if 0 < j < len(sc) - 1:
            den = sc[j - 1] - 2 * sc[j] + sc[j + 1]
            if den < 0:
                d += 0.5 * (sc[j - 1] - sc[j + 1]) / den
        return d * q / self.FC

    def decode(self, y):
        p, o = self.p, self.opt
        z = self.baseband(y)
        self.tries = 0
        order = (1, 0) if o["early"] else (0,)
        first = None
        for which in order:
            sy = self.sync(z, which)
            if sy is None:
                continue
            self.tries += 1
            res = self.decode_at(z, sy)
            first = first or (res, sy)
            if res is not None:
                return res, sy
        return first

    def tail_weights(self, sy):
        """Energy a tone leaves in its bin in windows n, n+1, ... relative (from the chirp profile)."""
        o = self.opt
        L = o["L"]
        if L == 0:
            return np.array([1.0])
        if o["weights"] == "flat":
            return np.ones(L + 1)
        if isinstance(o["weights"], (list, tuple, np.ndarray)):
            return np.asarray(o["weights"], float)[: L + 1]
        prof, a = sy["prof"]
        t0 = sy["t0"] - a
        noise = np.median(prof[: max(int(0.01 * self.fb), 3)]) if False else np.percentile(prof, 5)
        pr = np.maximum(prof - noise, 0)
        tau = (np.arange(len(pr)) - t0) / self.ns  # in symbols
        w = np.zeros(L + 1)
        for l in range(L + 1):
            tri = np.maximum(0, 1 - np.abs(tau - l)) if l > 0 else np.clip(1 - tau, 0, 1) * (tau > -0.5)
            w[l] = np.sum(pr * tri)
        w = w / w[0]
        return w

    def decode_at(self, z, sy, t0_shift=0.0, eps=None):
        p, o = self.p, self.opt
        eps = sy["eps"] if eps is None else eps
        eps = float(np.clip(eps, -o["max_eps"], o["max_eps"]))
        L = o["L"]
        nwin = p.nsym + L
        nout = int(round((p.data_start + nwin * p.T) * self.fb)) + 64
        off_ms = o["offset_ms"]
        if o["rev_thr"] > 0 and sy.get("rev", 0) > o["rev_thr"]:
            off_ms = o["offset_rev_ms"]
        off = int(round(off_ms * 1e-3 * self.fb))
        w = self.resample(z, sy["t0"] + t0_shift, eps, nout)
        if o["refine"] and not o["genie"]:
            d_eps = self.refine_eps(w, off, eps)
            eps = eps + d_eps
            t0 = sy["m1"] - eps * self.shift1 * self.fb if "m1" in sy else sy["t0"]
            sy["eps"] = eps
            sy["t0"] = t0
            w = self.resample(z, t0 + t0_shift, eps, nout)
        X = self.energies(w, nwin, off)
        E = np.abs(X) ** 2  # (nwin, N)
        wts = self.tail_weights(sy)
        # integrate: S[n,k] = sum_l wts[l] E[n+l,k]
        S = np.zeros((p.nsym, p.N))
        for l in range(len(wts)):
            S += wts[l] * E[l:l + p.nsym]
        # interference + noise level per symbol/bin (variance of an empty bin's integrated energy)
        sw = np.sum(wts)
        if o["nu0"] == "median":
            nu0 = np.median(E[: p.nsym]) / np.log(2)
        else:  # mean of the candidates that are not the strongest of their group
            ce = E[np.arange(p.nsym)[:, None, None], p.cand]
            nu0 = (np.sum(ce) - np.sum(np.max(ce, axis=2))) / (ce.size - ce[..., 0].size)
        prev = np.vstack([np.full((1, p.N), nu0), E[: p.nsym - 1]])
        w1 = wts[1] if len(wts) > 1 else o.get("rho", 0.0)
        tailsum = sum(wts[l] * w1 ** l for l in range(len(wts)))
        nu = nu0 * sw + o["nu_c"] * w1 * tailsum * np.maximum(prev - nu0, 0)
        ce_ = E[np.arange(p.nsym)[:, None, None], p.cand]
        sy["share"] = float(np.mean(np.max(ce_, axis=2) / (np.sum(ce_, axis=2) + 1e-30)))
        idx = p.cand.reshape(p.nsym, -1)
        Sc = S[np.arange(p.nsym)[:, None], idx].reshape(p.nsym, p.G, p.M)
        Nc = nu[np.arange(p.nsym)[:, None], idx].reshape(p.nsym, p.G, p.M)
        es = max(np.mean(np.max(Sc, axis=2)) - np.mean(Nc), 1e-3 * np.mean(Nc))
        if o["metric"] == "lin":
            m = Sc / Nc * (es / (es + np.mean(Nc))) * o["scale"]
        elif o["metric"] == "i0":
            x = 2 * np.sqrt(es * np.maximum(Sc, 0)) / Nc
            m = (np.log(scipy.special.i0e(x)) + x - es / Nc) * o["scale"]
        else:  # "mean": plain energy over the group's mean (no noise model)
            m = Sc / (np.mean(Sc, axis=2, keepdims=True) + 1e-30) * o["scale"]
        llr = np.zeros((p.nsym, p.G, p.bpg))
        for b in range(p.bpg):
            bm = self._bitmap[b]
            llr[:, :, b] = _lse2(m[:, :, bm == 0]) - _lse2(m[:, :, bm == 1])
        slots = llr.reshape(-1)
        coded = np.zeros(p.nslots)
        coded[p.perm] = slots
        coded = np.clip(coded[: p.ncoded], -30, 30)
        mother = np.zeros(p.nmother)
        mother[p.keep] = coded
        bits = viterbi(mother, p.rate_inv, p.nbits, p.K)
        fb_ = list(bits[: p.nbits_frame - 16])
        crc = 0
        for b in bits[p.nbits_frame - 16: p.nbits_frame]:
            crc = (crc << 1) | int(b)
        if crc16(fb_, p.crc_init) != crc:
            return None
        kind = fb_[0] * 2 + fb_[1]
        payload = 0
        for b in fb_[2:]:
            payload = (payload << 1) | int(b)
        return kind, payload

    @property
    def _bitmap(self):
        if not hasattr(self, "_bm"):
            p = self.p
            inv = np.zeros(p.M, dtype=np.int64)
            for v, i in enumerate(GRAY[p.bpg]):
                inv[i] = v
            self._bm = [np.array([(inv[i] >> (p.bpg - 1 - b)) & 1 for i in range(p.M)])
                        for b in range(p.bpg)]
        return self._bm


def _lse2(x):
    mx = np.max(x, axis=-1)
    return mx + np.log(np.sum(np.exp(x - mx[..., None]), axis=-1))


def _lse(x):
    m = np.max(x)
    return m + np.log(np.sum(np.exp(x - m)))


def _maxfilt(P2, nc, L, maxlag):
    from scipy.ndimage import maximum_filter1d
    seg = P2[nc - maxlag: nc - maxlag + L + 2 * maxlag] if nc >= maxlag else None
    mf = maximum_filter1d(P2, size=2 * maxlag + 1, mode="constant")
    return mf[nc: nc + L] if len(mf) >= nc + L else np.pad(mf[nc:], (0, nc + L - len(mf)))


if __name__ == "__main__":
    for fs in (48000, 44100):
        p = Profile()
        x, _ = encode(p, fs, 1, 0x0123456789ABCDEF)
        y = np.concatenate([np.zeros(3000), x, np.zeros(int(0.5 * fs))])
        y = y + 1e-3 * np.random.default_rng(0).standard_normal(len(y))
        r = Receiver(p, fs)
        res, sy = r.decode(y)
        print(fs, p.describe(), "->", res and hex(res[1]), "eps", sy["eps"], "t0", sy["t0"] * r.D, "true 3000")
