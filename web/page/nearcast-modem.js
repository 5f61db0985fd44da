// The box's modem decoder, compiled to WebAssembly from NearcastCore (tools/setup/build-web), behind a
// small JavaScript class. Used by the listener's Worker and by decode.html.
//
//   const modem = await NearcastModem.load(new URL("nearcast-modem.wasm", import.meta.url));
//   const decoder = modem.open(48000);
//   for (const burst of decoder.push(float32Samples)) console.log(burst.kind, burst.hex);
//   decoder.finish();

/** A decoded burst: the token and how it was received (the fields `nearcast decode --json` prints),
 * and the token as the hub's API names what was heard (`advertisedId`: an observation's, a
 * presence proof's and a reaction's `{type, id}`, the id in base64), encoded here once. */
function burstAt(exports, index, sampleRate) {
  const length = exports.nc_burst_length(index);
  const packed = BigInt.asUintN(64, exports.nc_burst_payload(index));
  const bytes = new Uint8Array(length);
  for (let i = 0; i < length; i++) bytes[i] = Number((packed >> BigInt(8 * (length - 1 - i))) & 0xFFn);
  const start = exports.nc_burst_start(index);
  const kind = exports.nc_burst_kind(index) === 1 ? "eid" : "direct";
  return {
    kind,
    bytes,
    hex: Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join(""),
    advertisedId: { type: kind === "eid" ? "EDDYSTONE_EID" : "EDDYSTONE", id: btoa(String.fromCharCode(...bytes)) },
    startSample: start,
    offsetSeconds: start / sampleRate,
    sync: exports.nc_burst_sync(index),
    snrDB: exports.nc_burst_snr(index),
    timeScalePPM: exports.nc_burst_time_scale(index),
    tonalShare: exports.nc_burst_tonal_share(index),
    band: exports.nc_burst_band(index) === 1 ? "low" : "high",
    copies: exports.nc_burst_copies(index),
    format: exports.nc_format_version(),
  };
}

/** A field check sweep measured (the fields `nearcast check --json` prints, in the hub's names). */
function readingAt(exports, index, sampleRate) {
  const start = exports.nc_check_start(index);
  const tones = [];
  for (let tone = 0; tone < exports.nc_check_tone_count(); tone++) {
    tones.push({
      hz: exports.nc_check_tone_hz(tone),
      levelDb: exports.nc_check_level(index, tone),
      noiseDb: exports.nc_check_noise(index, tone),
      snrDb: exports.nc_check_snr(index, tone),
    });
  }
  const band = (name, number) => ({
    band: name, levelDb: exports.nc_check_band_level(index, number), snrDb: exports.nc_check_band_snr(index, number),
  });
  return { startSample: start, offsetSeconds: start / sampleRate, tones, bands: [band("high", 0), band("low", 1)] };
}

/** The verdicts in the order nc_check_judge numbers them (FieldCheckVerdict's cases). */
const verdicts = ["both", "high", "low", "neither"];

/** Why the WebAssembly module stopped: its own fatal-error message when it wrote one. */
export class ModemTrap extends Error {}

export class NearcastModem {
  constructor(instance) {
    this.exports = instance.exports;
    // Entropy for Swift's hashing seed (the module imports nothing, so it is handed over).
    const seed = new BigUint64Array(1);
    crypto.getRandomValues(seed);
    this.exports.nc_seed(seed[0]);
  }

  /** Fetches and instantiates the module (streaming compilation where the server sends application/wasm). */
  static async load(url) {
    const response = await fetch(url);
    if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
    let result;
    if (WebAssembly.instantiateStreaming && (response.headers.get("content-type") || "").startsWith("application/wasm")) {
      result = await WebAssembly.instantiateStreaming(response, {});
    } else {
      result = await WebAssembly.instantiate(await response.arrayBuffer(), {});
    }
    return new NearcastModem(result.instance);
  }

  /** A decoder for audio at `sampleRate` (44100 or 48000); throws for another rate. */
  open(sampleRate) {
    if (this.exports.nc_open(sampleRate) !== 0) {
      throw new RangeError(`the modem decodes audio at 44100 or 48000 Hz, not ${sampleRate}`);
    }
    return new ModemDecoder(this, sampleRate);
  }

  /** Runs `body`; a trap in the module becomes a ModemTrap with the module's own message. */
  guarded(body) {
    try {
      return body();
    } catch (error) {
      if (!(error instanceof WebAssembly.RuntimeError)) throw error;
      const length = this.exports.nc_message_length();
      const text = length > 0
        ? new TextDecoder().decode(new Uint8Array(this.exports.memory.buffer, this.exports.nc_message(), length)).trim()
        : error.message;
      throw new ModemTrap(`the decoder stopped: ${text}`);
    }
  }
}

export class ModemDecoder {
  constructor(modem, sampleRate) {
    this.modem = modem;
    this.exports = modem.exports;
    this.sampleRate = sampleRate;
    this.capacity = this.exports.nc_input_capacity();
  }

  /** Measures the field check's sweep too (the hub's /check page): each sweep found comes from
   * `takeReadings()`. */
  enableCheck() {
    if (this.exports.nc_check_enable(1) !== 0) throw new Error("the decoder is not open");
    this.readings = [];
  }

  /** The sweeps measured since the last call. */
  takeReadings() {
    const readings = this.readings || [];
    this.readings = [];
    return readings;
  }

  /** Which bands a phone can use ("both", "high", "low" or "neither"), from a sweep's reading
   * (null: none heard) and whether each band's calibration burst decoded: the box's own rule. */
  judge(reading, highDecoded, lowDecoded) {
    const snr = (name) => (reading ? reading.bands.find((b) => b.band === name).snrDb : 0);
    return verdicts[this.exports.nc_check_judge(reading ? 1 : 0, snr("high"), snr("low"), highDecoded ? 1 : 0, lowDecoded ? 1 : 0)];
  }

  /** The calibration bursts' token as hex ("74657374"). */
  get testTokenHex() { return BigInt.asUintN(64, this.exports.nc_check_test_token()).toString(16).padStart(8, "0"); }

  collectReadings() {
    if (!this.readings) return;
    for (let i = 0; i < this.exports.nc_check_count(); i++) this.readings.push(readingAt(this.exports, i, this.sampleRate));
  }

  /** Decodes `samples` (a Float32Array of any length): the bursts it completed. */
  push(samples) {
    const bursts = [];
    for (let offset = 0; offset < samples.length; offset += this.capacity) {
      const count = Math.min(this.capacity, samples.length - offset);
      // The memory may have grown (and its buffer been replaced) since the last call.
      new Float32Array(this.exports.memory.buffer, this.exports.nc_input(), count)
        .set(samples.subarray(offset, offset + count));
      const found = this.modem.guarded(() => this.exports.nc_push(count));
      for (let i = 0; i < found; i++) bursts.push(burstAt(this.exports, i, this.sampleRate));
      this.collectReadings();
    }
    return bursts;
  }

  /** Decodes what the end of the stream left waiting. */
  finish() {
    const found = this.modem.guarded(() => this.exports.nc_finish());
    const bursts = [];
    for (let i = 0; i < found; i++) bursts.push(burstAt(this.exports, i, this.sampleRate));
    this.collectReadings();
    return bursts;
  }

  /** Samples pushed, and sync candidates demodulated, since the decoder was opened. */
  get samplesPushed() { return this.exports.nc_samples_pushed(); }
  get candidates() { return this.exports.nc_candidates(); }
}
