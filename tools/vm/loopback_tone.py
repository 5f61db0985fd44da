#!/usr/bin/env python3
"""The audio part of `tools/vm/vm-board check`: a tone to play through snd-aloop, and the proof that
the capture holds every sample of it, bit-exact.

  loopback_tone.py write TONE.wav             one second of tone (mono, S16_LE, 48 kHz), then silence
  loopback_tone.py find TONE.wav CAPTURE.raw  prints where the tone is in the raw S16_LE capture;
                                              exit 1, saying what was found instead, when it is not

The loopback copies samples without touching them, so the tone must appear whole in the capture;
the pseudo-random part makes a match by chance (or at a wrong offset) impossible. Runs in the guest
with the guest's Python (the host's on amd64, Debian 13's 3.13 on arm64): the standard library only.
"""
import math
import random
import struct
import sys
import wave

RATE = 48000
SAMPLE_BYTES = 2  # S16_LE, mono
# The last frames before a drain can be lost (about 192 at 48 kHz): the playback ends with this much
# silence, which the search leaves out.
TRAILING_SILENCE_S = 0.25
# How much of the tone's start is looked for when the whole tone is not there, to tell a capture that
# missed the tone from one that lost or changed samples inside it.
HEAD_MS = 10


def tone_samples(rate=RATE, seed=7):
    """One second of a 1 kHz sine with a pseudo-random part, as 16-bit sample values."""
    rng = random.Random(seed)
    return [int(6000 * math.sin(2 * math.pi * 1000 * i / rate)) + rng.randint(-3000, 3000)
            for i in range(rate)]


def write_tone(path, rate=RATE):
    """Writes the tone and the trailing silence to a mono 16-bit WAV file."""
    samples = tone_samples(rate) + [0] * int(rate * TRAILING_SILENCE_S)
    with wave.open(path, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(SAMPLE_BYTES)
        w.setframerate(rate)
        w.writeframes(struct.pack("<%dh" % len(samples), *samples))


def find_tone(tone_path, capture):
    """Looks for the tone of the WAV file at tone_path in capture (raw S16_LE mono bytes).

    Returns (True, "N samples bit-exact at frame F of M captured") or (False, what was seen)."""
    with wave.open(tone_path, "rb") as w:
        rate = w.getframerate()
        # The tone without the trailing silence: the silence may be cut short by the drain.
        played = w.readframes(w.getnframes())[: rate * SAMPLE_BYTES]
    at = capture.find(played)
    # A match at an odd byte would be samples made of two halves: not the tone.
    while at >= 0 and at % SAMPLE_BYTES:
        at = capture.find(played, at + 1)
    if at < 0:
        head_bytes = rate * HEAD_MS // 1000 * SAMPLE_BYTES
        head = capture.find(played[:head_bytes])
        return False, ("the tone is not in the capture (%d bytes captured; its first %d ms %s)"
                       % (len(capture), HEAD_MS,
                          "found at byte %d" % head if head >= 0 else "not found"))
    return True, ("%d samples bit-exact at frame %d of %d captured"
                  % (len(played) // SAMPLE_BYTES, at // SAMPLE_BYTES, len(capture) // SAMPLE_BYTES))


def main(argv):
    if len(argv) == 3 and argv[1] == "write":
        write_tone(argv[2])
        return 0
    if len(argv) == 4 and argv[1] == "find":
        with open(argv[3], "rb") as f:
            found, message = find_tone(argv[2], f.read())
        print(message)
        return 0 if found else 1
    print(__doc__.split("\n\n")[1], file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
