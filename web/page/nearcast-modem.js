// The box's modem decoder, compiled to WebAssembly from NearcastCore (tools/build-web), behind a
// small JavaScript class. Used by the listener's Worker and by decode.html.
//
//   const modem = await NearcastModem.load(new URL("nearcast-modem.wasm", import.meta.url));
//   const decoder = modem.open(48000);
//   for (const burst of decoder.push(float32Samples)) console.log(burst.kind, burst.hex);
//   decoder.finish();

/** A decoded burst: the token and how it was received (the fields `nearcast decode --json` prints). */
function burstAt(exports, index, sampleRate) {
  const length = exports.nc_burst_length(index);
  const packed = BigInt.asUintN(64, exports.nc_burst_payload(index));
  const bytes = new Uint8Array(length);
  for (let i = 0; i < length; i++) bytes[i] = Number((packed >> BigInt(8 * (length - 1 - i))) & 0xFFn);
  const start = exports.nc_burst_start(index);
  return {
    kind: exports.nc_burst_kind(index) === 1 ? "eid" : "direct",
    bytes,
    hex: Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join(""),
    startSample: start,
    offsetSeconds: start / sampleRate,
    sync: exports.nc_burst_sync(index),
    snrDB: exports.nc_burst_snr(index),
    timeScalePPM: exports.nc_burst_time_scale(index),
    tonalShare: exports.nc_burst_tonal_share(index),
    band: exports.nc_burst_band(index) === 1 ? "low" : "high",
    format: exports.nc_format_version(),
  };
}

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
    }
    return bursts;
  }

  /** Decodes what the end of the stream left waiting. */
  finish() {
    const found = this.modem.guarded(() => this.exports.nc_finish());
    const bursts = [];
    for (let i = 0; i < found; i++) bursts.push(burstAt(this.exports, i, this.sampleRate));
    return bursts;
  }

  /** Samples pushed, and sync candidates demodulated, since the decoder was opened. */
  get samplesPushed() { return this.exports.nc_samples_pushed(); }
  get candidates() { return this.exports.nc_candidates(); }
}
