"""tools/vm/loopback_tone.py: the audio part of `tools/vm/vm-board check`, on captures made here
(what snd-aloop would return, and the ways it could go wrong) instead of a booted board."""
import os
import struct
import subprocess
import sys
import tempfile
import unittest
import wave

TOOLS_VM = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, TOOLS_VM)
import loopback_tone  # noqa: E402  (found through the path above)

SCRIPT = os.path.join(TOOLS_VM, "loopback_tone.py")


class LoopbackToneTests(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.tone = os.path.join(self.dir.name, "tone.wav")
        loopback_tone.write_tone(self.tone)
        with wave.open(self.tone, "rb") as w:
            self.params = (w.getnchannels(), w.getsampwidth(), w.getframerate())
            self.frames = w.readframes(w.getnframes())
        self.played = self.frames[: loopback_tone.RATE * 2]   # the tone without its silence

    def tearDown(self):
        self.dir.cleanup()

    def silence(self, frames):
        return b"\0\0" * frames

    def test_the_file_is_what_arecord_captures_and_ends_in_silence(self):
        # aplay plays it as written; arecord -f S16_LE -r 48000 -c 1 must be the same format.
        self.assertEqual(self.params, (1, 2, 48000))
        silence_frames = int(48000 * loopback_tone.TRAILING_SILENCE_S)
        self.assertEqual(len(self.frames), 2 * (48000 + silence_frames))
        self.assertEqual(self.frames[-2 * silence_frames:], self.silence(silence_frames))
        # The random part is there: no two whole periods of the 1 kHz sine are alike.
        self.assertNotEqual(self.played[:96], self.played[96:192])

    def test_the_tone_is_the_same_every_time(self):
        # The capture is compared against a file written in the same run, but a seeded tone keeps a
        # failure reproducible: the same samples on every board.
        again = os.path.join(self.dir.name, "again.wav")
        loopback_tone.write_tone(again)
        with open(self.tone, "rb") as a, open(again, "rb") as b:
            self.assertEqual(a.read(), b.read())

    def test_a_capture_holding_the_tone_gives_its_frame(self):
        capture = self.silence(1234) + self.played + self.silence(12000)
        found, message = loopback_tone.find_tone(self.tone, capture)
        self.assertTrue(found, message)
        self.assertEqual(message, "48000 samples bit-exact at frame 1234 of %d captured" % (1234 + 48000 + 12000))

    def test_the_lost_trailing_silence_does_not_matter(self):
        # A drain can lose the last ~192 frames: they are silence, and the capture may end with the tone.
        found, message = loopback_tone.find_tone(self.tone, self.silence(10) + self.played)
        self.assertTrue(found, message)

    def test_one_changed_sample_is_a_failure_that_says_the_start_was_heard(self):
        changed = bytearray(self.played)
        changed[2 * 30000] ^= 1   # one sample, in the middle, off by one
        found, message = loopback_tone.find_tone(self.tone, self.silence(500) + bytes(changed))
        self.assertFalse(found)
        self.assertEqual(message, "the tone is not in the capture (%d bytes captured; its first 10 ms found at byte 1000)"
                         % (2 * 500 + len(changed)))

    def test_a_capture_of_silence_says_the_start_was_not_heard(self):
        found, message = loopback_tone.find_tone(self.tone, self.silence(48000 * 4))
        self.assertFalse(found)
        self.assertEqual(message, "the tone is not in the capture (384000 bytes captured; its first 10 ms not found)")

    def test_a_tone_cut_short_is_a_failure(self):
        found, _ = loopback_tone.find_tone(self.tone, self.silence(100) + self.played[:-2])
        self.assertFalse(found)

    def test_a_match_at_an_odd_byte_is_not_the_tone(self):
        # Samples made of two halves of the real ones: the bytes match, the samples do not.
        found, message = loopback_tone.find_tone(self.tone, b"\0" + self.played + b"\0")
        self.assertFalse(found, message)
        # ... unless the tone is also there on a sample boundary further on.
        found, message = loopback_tone.find_tone(self.tone, b"\0" + self.played + b"\0" + self.played)
        self.assertTrue(found, message)
        self.assertIn("at frame %d" % (len(self.played) // 2 + 1), message)

    def test_the_command_line_as_the_check_calls_it(self):
        capture = os.path.join(self.dir.name, "capture.raw")
        with open(capture, "wb") as f:
            f.write(self.silence(7) + self.played)
        tone = os.path.join(self.dir.name, "cli.wav")
        write = subprocess.run([sys.executable, SCRIPT, "write", tone], capture_output=True, text=True)
        self.assertEqual((write.returncode, write.stdout, write.stderr), (0, "", ""))
        found = subprocess.run([sys.executable, SCRIPT, "find", tone, capture], capture_output=True, text=True)
        self.assertEqual(found.returncode, 0, found.stderr)
        self.assertEqual(found.stdout, "48000 samples bit-exact at frame 7 of 48007 captured\n")
        with open(capture, "wb") as f:
            f.write(struct.pack("<h", 1) * 48000)
        missing = subprocess.run([sys.executable, SCRIPT, "find", tone, capture], capture_output=True, text=True)
        self.assertEqual(missing.returncode, 1)
        self.assertIn("the tone is not in the capture", missing.stdout)
        usage = subprocess.run([sys.executable, SCRIPT, "play"], capture_output=True, text=True)
        self.assertEqual(usage.returncode, 2)
        self.assertIn("loopback_tone.py write TONE.wav", usage.stderr)


if __name__ == "__main__":
    unittest.main()
