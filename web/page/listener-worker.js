// The listener's decoder Worker: drains the SharedArrayBuffer ring the AudioWorklet fills and
// runs the box's WebAssembly decoder on it. It posts:
//   {type: "ready"}                         the decoder is loaded and open
//   {type: "burst", burst}                  a decoded token
//   {type: "stats", ...}                    every second: decode CPU per audio second, gaps
//   {type: "error", message}                the decoder could not start or stopped
//   {type: "check", result}                 (started with check: true, the /check page) a field
//                                           check measured and judged (field-check.js)
import { NearcastModem } from "./nearcast-modem.js";
import { FieldCheckSession } from "./field-check.js";

const pollMilliseconds = 20;
const blockSamples = 4096;
let decoder = null;
let samples = null;
let control = null;
let read = 0;
let block = null;
let checks = null;
const stats = { decodeMs: 0, audioSeconds: 0, gaps: 0, droppedSamples: 0 };

/** Samples written and not yet read; when the writer is about to lap the reader (less than a
 * quarter ring left), the reader skips to half a ring behind the writer and counts a gap: a
 * burst that straddles it is lost, the next one is heard. */
function available() {
  const written = Atomics.load(control, 0);
  let waiting = (written - read) | 0;
  if (waiting > samples.length - samples.length / 4) {
    stats.gaps += 1;
    stats.droppedSamples += waiting - samples.length / 2;
    read = (written - samples.length / 2) | 0;
    waiting = samples.length / 2;
  }
  return waiting;
}

function drain() {
  if (!decoder) return;
  const mask = samples.length - 1;
  const started = performance.now();
  let waiting = available();
  while (waiting > 0) {
    const count = Math.min(waiting, blockSamples);
    for (let i = 0; i < count; i++) block[i] = samples[(read + i) & mask];
    read = (read + count) | 0;
    // Checked again after the copy: a block the writer overtook while it was copied is a gap.
    waiting = available();
    const bursts = decoder.push(block.subarray(0, count));
    for (const burst of bursts) postMessage({ type: "burst", burst });
    if (checks) for (const result of checks.update(bursts)) postMessage({ type: "check", result });
    stats.audioSeconds += count / decoder.sampleRate;
  }
  stats.decodeMs += performance.now() - started;
}

onmessage = async (event) => {
  const message = event.data;
  if (message.type !== "start") return;
  try {
    const modem = await NearcastModem.load(new URL("nearcast-modem.wasm", import.meta.url));
    decoder = modem.open(message.sampleRate);
    if (message.check) {
      decoder.enableCheck();
      checks = new FieldCheckSession(decoder);
    }
    samples = new Float32Array(message.samples);
    control = new Int32Array(message.control);
    read = Atomics.load(control, 0);
    block = new Float32Array(blockSamples);
    postMessage({ type: "ready" });
    setInterval(() => {
      try {
        drain();
      } catch (error) {
        decoder = null;
        postMessage({ type: "error", message: error.message });
      }
    }, pollMilliseconds);
    setInterval(() => {
      postMessage({ type: "stats", ...stats, samplesPushed: decoder ? decoder.samplesPushed : 0,
                    candidates: decoder ? decoder.candidates : 0 });
    }, 1000);
  } catch (error) {
    postMessage({ type: "error", message: error.message });
  }
};
