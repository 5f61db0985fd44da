// The field check's bookkeeping beside the decoder (in the check page's Worker): each sweep the
// analyser measured is paired with the calibration bursts that follow it (the test token
// "test", once in the high band and once in the low one, within 5 s of the sweep's start), and
// judged by the box's own rule (FieldCheckVerdict, through the WebAssembly module) once that
// window has passed.

/** Samples after a sweep's start within which its calibration bursts end: its 3.94 s sequence and a room's echo. */
const windowSeconds = 5;

export class FieldCheckSession {
  /** `decoder`: a ModemDecoder with `enableCheck()` called. */
  constructor(decoder) {
    this.decoder = decoder;
    this.window = Math.round(windowSeconds * decoder.sampleRate);
    this.testHex = decoder.testTokenHex;
    this.pending = [];
    this.recentTests = [];   // calibration bursts heard lately: {band, startSample}
  }

  /** Takes the bursts a push decoded (and the sweeps it measured); returns the checks whose
   * window has closed: {verdict, offsetSeconds, sampleRate, tones, bands: [{band, levelDb, snrDb, decoded}]}. */
  update(bursts) {
    for (const burst of bursts) {
      if (burst.kind === "direct" && burst.hex === this.testHex) this.recentTests.push({ band: burst.band, startSample: burst.startSample });
    }
    for (const reading of this.decoder.takeReadings()) this.pending.push(reading);
    const now = this.decoder.samplesPushed;
    this.recentTests = this.recentTests.filter((t) => now - t.startSample < 2 * this.window);
    const done = [];
    this.pending = this.pending.filter((reading) => {
      if (now < reading.startSample + this.window) return true;
      done.push(this.result(reading));
      return false;
    });
    return done;
  }

  result(reading) {
    const decoded = { high: false, low: false };
    for (const test of this.recentTests) {
      if (test.startSample >= reading.startSample && test.startSample < reading.startSample + this.window) decoded[test.band] = true;
    }
    return {
      verdict: this.decoder.judge(reading, decoded.high, decoded.low),
      offsetSeconds: reading.offsetSeconds,
      sampleRate: this.decoder.sampleRate,
      tones: reading.tones,
      bands: reading.bands.map((band) => ({ ...band, decoded: decoded[band.band] })),
    };
  }
}
