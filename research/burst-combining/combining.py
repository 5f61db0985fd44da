#!/usr/bin/env python3
"""Burst combining for format 2, in an ideal AWGN model (numpy, scipy).

What it models: the frame (kind 2 + payload 64 + CRC-16/AUG-CCITT + tail 8), the K=9 code
(561, 753), BurstPlan's puncturing and interleaver, 4-FSK with the Gray map, noncoherent
demodulation with SoftDemodulator's metric log I0(2*sqrt(Es*E)/N0) and its N0/Es estimates,
and a 256-state Viterbi. Sync, timing and time scale are ideal (the Swift decoder loses
about 0.5-1 dB to them; see --calibrate). Es/N0 per tone-symbol = C/N0 - 21.25 dB
(8 tones of P/8 each, 60 ms; the chirps carry the same mean power, BurstEncoder.toneAmplitude).

  python3 combining.py --table          # success vs C/N0 for K = 1..5, three ways of combining
  python3 combining.py --margins        # the acceptance margin: right frames vs mixtures
  python3 combining.py --sync           # chirp-pair detection, alone and accumulated
  python3 combining.py --copies         # tonal share, LLR correlation and per-copy support
  python3 combining.py --support        # acceptance rules with per-copy support by segment
Each prints a table; seeds are fixed, so a run prints the same numbers.
"""
import argparse, sys
import numpy as np
from scipy.special import i0e

PUNCT = (22, 68, 112, 158)
SLOT = [31,0,93,88,48,2,32,128,26,63,152,159,62,131,15,51,78,134,6,135,110,76,92,103,136,160,58,60,115,66,29,70,
169,167,138,120,41,106,121,46,87,17,170,99,68,139,158,82,47,23,64,140,156,171,122,80,38,118,161,40,127,34,165,109,
44,105,36,89,73,148,129,7,91,14,69,173,53,150,123,98,19,153,116,149,162,50,59,72,174,111,155,137,24,107,96,33,
3,27,77,30,65,56,145,112,12,172,113,163,20,55,100,71,94,126,166,52,108,1,74,151,124,28,57,42,144,117,147,81,
101,90,164,8,85,84,114,125,11,133,54,43,146,142,35,79,5,168,86,9,61,83,154,4,102,22,18,132,37,97,75,10,
143,25,119,45,95,49,175,39,67,104,13,16,130,21,141,157]
G0, G1 = 0o561, 0o753
NSTEP = 90
MOTHER_POS = [p for p in range(180) if p not in PUNCT]          # coded bit c -> mother position
SLOT_MOTHER = np.array([MOTHER_POS[SLOT[j]] for j in range(176)])  # slot j -> mother position

def parity(x):
    return bin(x).count("1") & 1

OUT = np.zeros((256, 2, 2), dtype=np.int8)   # OUT[state, bit] = (c0, c1)
for s in range(256):
    for b in range(2):
        r = ((s << 1) | b) & 0x1FF
        OUT[s, b] = (parity(r & G0), parity(r & G1))

def crc16(bits):                       # bits: list of 0/1, MSB first; CRC-16/AUG-CCITT
    crc = 0x1D0F
    for bit in bits:
        fb = ((crc >> 15) & 1) ^ bit
        crc = (crc << 1) & 0xFFFF
        if fb: crc ^= 0x1021
    return crc

def frame_bits(rng):
    kind = [0, 1][rng.integers(2)]
    header = [(kind >> 1) & 1, kind & 1] + list(rng.integers(0, 2, 64))
    c = crc16(header)
    return header + [(c >> (15 - i)) & 1 for i in range(16)] + [0] * 8

def accepts(bits):
    """FrameCodec.token(fromFrameBits:): tail zero, CRC, kind not 3, padding for kind 2."""
    if any(bits[82:]): return False
    header = bits[:66]
    c = 0
    for b in bits[66:82]: c = (c << 1) | b
    if crc16(header) != c: return False
    kind = header[0] * 2 + header[1]
    if kind == 3: return False
    if kind == 2:
        payload = 0
        for b in header[2:]: payload = (payload << 1) | b
        tz = 0
        while tz < 8 and (payload >> (8 * tz)) & 0xFF == 0: tz += 1
        if tz >= 7: return False
        return (payload >> (8 * tz)) & 0xFF == 0x80
    return True

def encode(bits):
    s = 0; out = np.zeros(180, dtype=np.int8)
    for i, b in enumerate(bits):
        out[2 * i], out[2 * i + 1] = OUT[s, b]
        s = ((s << 1) | b) & 0xFF
    return out

def tones_of(mother):
    """Label (0..3) of each of the 88 groups, then the Gray-mapped tone."""
    slotbits = mother[SLOT_MOTHER]
    labels = slotbits[0::2] * 2 + slotbits[1::2]
    return labels ^ (labels >> 1)

def energies(tones, esn0, rng):
    """Received energies (88 groups x 4 tones), N0 = 1."""
    n = (rng.standard_normal((88, 4)) + 1j * rng.standard_normal((88, 4))) / np.sqrt(2)
    a = np.zeros((88, 4), complex)
    a[np.arange(88), tones] = np.sqrt(esn0) * np.exp(2j * np.pi * rng.random(88))
    return np.abs(a + n) ** 2

def label_metrics(e):
    """SoftDemodulator: N0 = mean of the non-strongest, Es = mean strongest - N0; mu per label."""
    top = e.max(1)
    n0 = max((e.sum() - top.sum()) / (88 * 3), 1e-9)
    es = max(top.mean() - n0, 1e-3 * n0)
    x = 2 * np.sqrt(es * e) / n0
    mu_tone = np.log(i0e(x)) + x
    mu = np.empty_like(mu_tone)
    for t in range(4): mu[:, t ^ (t >> 1)] = mu_tone[:, t]      # tone -> label
    share = (top / e.sum(1)).mean()
    return mu, share

def lse(a, b):
    m = np.maximum(a, b); return m + np.log1p(np.exp(-np.abs(a - b)))

def bit_llrs(mu):
    """180 mother-code LLRs (positive: bit 1), clipped at +-30 as the decoder does."""
    hi = lse(mu[:, 2], mu[:, 3]) - lse(mu[:, 0], mu[:, 1])
    lo = lse(mu[:, 1], mu[:, 3]) - lse(mu[:, 0], mu[:, 2])
    llr = np.zeros(180)
    llr[SLOT_MOTHER[0::2]] = np.clip(hi, -30, 30)
    llr[SLOT_MOTHER[1::2]] = np.clip(lo, -30, 30)
    return llr

PRED = np.array([[s >> 1, (s >> 1) + 128] for s in range(256)])

def viterbi(llr):
    """ViterbiDecoder.decode: bits, the winning metric, and the smallest add-compare-select gap on
    the winning path (= winning metric minus the best other codeword's, both ending in state 0)."""
    m = np.full(256, -1e30); m[0] = 0
    dec = np.zeros((NSTEP, 256), dtype=np.int8); gap = np.zeros((NSTEP, 256))
    sgn = 2 * OUT.astype(float) - 1
    bit = np.arange(256) & 1
    for k in range(NSTEP):
        l0, l1 = llr[2 * k], llr[2 * k + 1]
        cand = np.empty((256, 2))
        for j in range(2):
            p = PRED[:, j]
            cand[:, j] = m[p] + sgn[p, bit, 0] * l0 + sgn[p, bit, 1] * l1
        dec[k] = cand[:, 1] > cand[:, 0]
        gap[k] = np.abs(cand[:, 1] - cand[:, 0])
        m = cand.max(1)
    s = 0; bits = [0] * NSTEP; path_gap = np.inf
    for k in range(NSTEP - 1, -1, -1):
        bits[k] = s & 1
        if m[0] > -1e29: path_gap = min(path_gap, gap[k, s])
        s = PRED[s, dec[k, s]]
    return bits, m[0], path_gap

def overruled(llr, bits):
    """Share of the |LLR| mass the decoded codeword disagrees with (0: none, 0.5: a coin)."""
    c = encode(bits).astype(float) * 2 - 1
    mass = np.abs(llr).sum()
    return float(np.abs(llr)[np.sign(llr) * c < 0].sum() / mass) if mass > 0 else 1.0

def cn0_to_esn0(cn0):
    return 10 ** ((cn0 - 21.25) / 10)

def run_table(args):
    rng = np.random.default_rng(1)
    cn0s = [float(x) for x in args.cn0.split(",")]
    print(f"Ideal-sync AWGN model, {args.trials} frames per cell: frames decoded (CRC, kind, tail)")
    print("C/N0   K  bit-LLR sum  label-metric sum  one burst at K x energy  any one alone")
    for cn0 in cn0s:
        for K in range(1, args.kmax + 1):
            ok_bit = ok_lab = ok_ref = ok_any = 0
            for _ in range(args.trials):
                fb = frame_bits(rng); tones = tones_of(encode(fb))
                mus = []; llr_sum = np.zeros(180); single = False
                for k in range(K):
                    mu, _ = label_metrics(energies(tones, cn0_to_esn0(cn0), rng))
                    l = bit_llrs(mu); mus.append(mu); llr_sum += l
                    if not single:
                        b, _, _ = viterbi(l); single = b == fb
                ok_any += single
                b, _, _ = viterbi(llr_sum); ok_bit += b == fb
                b, _, _ = viterbi(bit_llrs(sum(mus))); ok_lab += b == fb
                mu, _ = label_metrics(energies(tones, K * cn0_to_esn0(cn0), rng))
                b, _, _ = viterbi(bit_llrs(mu)); ok_ref += b == fb
            n = args.trials
            print(f"{cn0:4.1f}  {K}   {100*ok_bit/n:6.1f} %     {100*ok_lab/n:6.1f} %          {100*ok_ref/n:6.1f} %              {100*ok_any/n:6.1f} %")
        sys.stdout.flush()

def mixture(rng, kind, K, cn0):
    """Two random frames and the label metrics of K copies: all of the first ("same"), the first
    (K+1)//2 of the first and the rest of the second ("mix"), or noise alone ("noise")."""
    fa = frame_bits(rng); fb = frame_bits(rng)
    ta, tb = tones_of(encode(fa)), tones_of(encode(fb))
    mus = []
    for k in range(K):
        if kind == "noise":
            e = rng.exponential(1.0, (88, 4))
        else:
            t = ta if (kind == "same" or k < (K + 1) // 2) else tb
            e = energies(t, cn0_to_esn0(cn0), rng)
        mus.append(label_metrics(e)[0])
    return fa, fb, mus

def run_margins(args):
    """The acceptance statistics for right frames (K copies of one token) and for mixtures
    (copies of two tokens, or noise), the CRC ignored: a wrong frame passes the CRC, kind and
    padding checks with probability ~2^-16 * 0.5 whatever else, so P(margin passes | wrong)
    times that is the false-accept rate per try."""
    rng = np.random.default_rng(2)
    rows = []
    def stats(llr):
        b, metric, g = viterbi(llr)
        mass = np.abs(llr).sum()
        return b, g / mass, overruled(llr, b)
    cases = [("same token K=2 @24.5", 24.5, 2, "same"), ("same token K=3 @23", 23, 3, "same"),
             ("same token K=5 @22", 22, 5, "same"), ("same token K=3 @26", 26, 3, "same"),
             ("2+1 of two tokens @26", 26, 3, "mix"), ("1+1 of two tokens @26", 26, 2, "mix"),
             ("2+2 of two tokens @30", 30, 4, "mix"), ("3+2 of two tokens @24", 24, 5, "mix"),
             ("noise K=3", None, 3, "noise")]
    print(f"{args.trials} combinations per row. gap = smallest add-compare-select gap on the winning path"
          " / sum|LLR|; overruled = (sum|LLR| - path metric) / (2 sum|LLR|).")
    print("same token: right frames (of the trials) and the share of them each threshold keeps;")
    print("two tokens, noise: frames that are neither token, and the share of them each threshold lets through")
    print("case                    frames  gap p1/p50/p99       gap>=.015 .020 .025   overruled p1/p50/p99   ov<=.030 .035 .040")
    for name, cn0, K, kind in cases:
        gaps, ovs, count = [], [], 0
        for _ in range(args.trials):
            fa, fb, mus = mixture(rng, kind, K, cn0)
            llr = sum(bit_llrs(mu) for mu in mus)
            b, g, o = stats(llr)
            if kind == "same" and b != fa: continue
            if kind != "same" and (b == fa or b == fb): continue
            count += 1; gaps.append(g); ovs.append(o)
        if not gaps:
            print(f"{name:22s}  {count:5d}"); continue
        g, o = np.array(gaps), np.array(ovs)
        q = lambda v: "/".join(f"{x:.3f}" for x in np.percentile(v, [1, 50, 99]))
        gr = "  ".join(f"{np.mean(g >= t):.3f}" for t in (0.015, 0.020, 0.025))
        orr = "  ".join(f"{np.mean(o <= t):.3f}" for t in (0.030, 0.035, 0.040))
        print(f"{name:22s}  {count:5d}   {q(g):19s}  {gr}    {q(o):19s}    {orr}")
        sys.stdout.flush()

def run_copies(args):
    """Per-copy evidence: the tonal share of one burst (the decoder's gate is 0.58), the
    correlation of two bursts' LLRs (same token, different tokens, noise), and each copy's
    support z = sum(c_i * L_i) / sqrt(sum L_i^2) for a codeword c (its own token, another one)."""
    rng = np.random.default_rng(3)
    print("C/N0  tonal share p10/p50/p90   rho same p10/p50   rho other p50/p99   z own p1/p50   z other p50/p99.9")
    for cn0 in [22, 24, 26, 28]:
        sh, rs, ro, zo, zx = [], [], [], [], []
        for _ in range(args.trials):
            fa, fb = frame_bits(rng), frame_bits(rng)
            ca, cb = encode(fa), encode(fb)
            ta, tb = tones_of(ca), tones_of(cb)
            mu1, s1 = label_metrics(energies(ta, cn0_to_esn0(cn0), rng))
            mu2, _ = label_metrics(energies(ta, cn0_to_esn0(cn0), rng))
            mu3, _ = label_metrics(energies(tb, cn0_to_esn0(cn0), rng))
            l1, l2, l3 = bit_llrs(mu1), bit_llrs(mu2), bit_llrs(mu3)
            sh.append(s1)
            r = lambda a, b: float(a @ b / np.sqrt((a @ a) * (b @ b)))
            rs.append(r(l1, l2)); ro.append(r(l1, l3))
            z = lambda l, c: float(l @ (2.0 * c - 1) / np.sqrt(l @ l))
            zo.append(z(l1, ca)); zx.append(z(l1, cb))
        p = lambda v, q: np.percentile(v, q)
        print(f"{cn0:4d}  {p(sh,10):.3f}/{p(sh,50):.3f}/{p(sh,90):.3f}        {p(rs,10):.3f}/{p(rs,50):.3f}        "
              f"{p(ro,50):+.3f}/{p(ro,99):.3f}      {p(zo,1):.1f}/{p(zo,50):.1f}      {p(zx,50):+.2f}/{p(zx,99.9):.2f}")
    e = [label_metrics(rng.exponential(1.0, (88, 4)))[1] for _ in range(args.trials)]
    print(f"noise tonal share p50/p99: {np.percentile(e,50):.3f}/{np.percentile(e,99):.3f}")

def run_support(args):
    """Acceptance rules that ask each copy to support the combined frame not only as a whole
    (z >= 4, what the decoder does) but in each of S consecutive segments of the codeword: a
    hybrid of two tokens follows one token's path for a stretch and the other's for another, so
    a copy of either fails to support some segment, while a true copy's support is spread over
    all of them. The CRC is ignored as in --margins. Sums label metrics as the decoder does."""
    rng = np.random.default_rng(4)
    cases = [("same token K=2 @24.5", 24.5, 2, "same"), ("same token K=3 @23", 23, 3, "same"),
             ("same token K=5 @22", 22, 5, "same"), ("same token K=5 @22.5", 22.5, 5, "same"),
             ("same token K=3 @26", 26, 3, "same"),
             ("2+1 of two tokens @26", 26, 3, "mix"), ("1+1 of two tokens @26", 26, 2, "mix"),
             ("2+2 of two tokens @30", 30, 4, "mix"), ("3+2 of two tokens @24", 24, 5, "mix"),
             ("3+2 of two tokens @22", 22, 5, "mix"), ("noise K=3", None, 3, "noise")]
    rules = [("gap>=.020 z>=4 (today)", lambda g, z, s3, s4: (g >= 0.020) & (z >= 4)),
             ("gap>=.010 z>=4", lambda g, z, s3, s4: (g >= 0.010) & (z >= 4)),
             ("z>=4", lambda g, z, s3, s4: z >= 4),
             ("z>=4 seg3>=1", lambda g, z, s3, s4: (z >= 4) & (s3 >= 1)),
             ("z>=4 seg3>=1.5", lambda g, z, s3, s4: (z >= 4) & (s3 >= 1.5)),
             ("z>=4 seg4>=1", lambda g, z, s3, s4: (z >= 4) & (s4 >= 1)),
             ("gap>=.005 z>=4 seg3>=1", lambda g, z, s3, s4: (g >= 0.005) & (z >= 4) & (s3 >= 1)),
             ("gap>=.010 z>=4 seg3>=1", lambda g, z, s3, s4: (g >= 0.010) & (z >= 4) & (s3 >= 1))]
    print(f"{args.trials} combinations per row; same token: right frames and the share each rule keeps;")
    print("two tokens, noise: frames that are neither token and the share each rule lets through.")
    print("rules: " + "; ".join(f"[{i}] {n}" for i, (n, _) in enumerate(rules)))
    print("case                    frames  " + "  ".join(f"[{i}]  " for i in range(len(rules))))
    def segz(l, c, S):
        out = []
        for j in range(S):
            sl = slice(j * 180 // S, (j + 1) * 180 // S)
            e = l[sl] @ l[sl]
            out.append(float(l[sl] @ c[sl] / np.sqrt(e)) if e > 0 else 0.0)
        return min(out)
    for name, cn0, K, kind in cases:
        G, Z, S3, S4 = [], [], [], []
        for _ in range(args.trials):
            fa, fb, mus = mixture(rng, kind, K, cn0)
            llrs = [bit_llrs(mu) for mu in mus]
            llr = bit_llrs(sum(mus))
            b, metric, g = viterbi(llr)
            if kind == "same" and b != fa: continue
            if kind != "same" and (b == fa or b == fb): continue
            c = encode(b).astype(float) * 2 - 1
            G.append(g / np.abs(llr).sum())
            Z.append(min(float(l @ c / np.sqrt(l @ l)) for l in llrs))
            S3.append(min(segz(l, c, 3) for l in llrs)); S4.append(min(segz(l, c, 4) for l in llrs))
        if not G:
            print(f"{name:22s}      0"); continue
        G, Z, S3, S4 = map(np.array, (G, Z, S3, S4))
        print(f"{name:22s}  {len(G):5d}  " + "  ".join(f"{np.mean(r(G, Z, S3, S4)):.3f}" for _, r in rules))
        sys.stdout.flush()

def run_sync(args):
    """Chirp-pair score as the decoder scales it: L*rho ~ |sqrt(g) + z|^2 per chirp, z ~ CN(0,1),
    g = E_chirp/N0 = C/N0 - 15.23 dB; the pair's score is the mean of the two; threshold 7."""
    from scipy.stats import ncx2, chi2
    print("C/N0  one burst (threshold 7)  K bursts' scores summed, threshold at the same odds over 20 lags")
    for cn0 in [22, 23, 24, 25, 26, 27, 28]:
        g = 10 ** ((cn0 - 15.23) / 10)
        row = [f"{cn0:4d}"]
        # score*2 = sum of two |.|^2 -> (1/2) * ncx2(df=4, nc=2*2g)
        p1 = ncx2.sf(2 * 2 * 7, 4, 4 * g)
        row.append(f"{100*p1:6.1f} %")
        for K in (2, 3, 5):
            pfa = chi2.sf(2 * 2 * 7, 4) / 20          # the same false-alarm odds, spread over 20 lag choices
            thr = chi2.isf(pfa, 4 * K)
            row.append(f"K={K}: {100*ncx2.sf(thr, 4*K, 4*K*g):5.1f} % (sum>{thr/4:.1f})")
        print("  ".join(row))

if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--table", action="store_true"); ap.add_argument("--margins", action="store_true")
    ap.add_argument("--sync", action="store_true"); ap.add_argument("--copies", action="store_true")
    ap.add_argument("--support", action="store_true")
    ap.add_argument("--trials", type=int, default=400); ap.add_argument("--kmax", type=int, default=5)
    ap.add_argument("--cn0", default="22,23,24,25,26")
    a = ap.parse_args()
    if a.table: run_table(a)
    if a.margins: run_margins(a)
    if a.sync: run_sync(a)
    if a.copies: run_copies(a)
    if a.support: run_support(a)
