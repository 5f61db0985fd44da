// The listener's decoder Worker: drains the SharedArrayBuffer ring the AudioWorklet fills and
// runs the box's WebAssembly decoder on it. It posts:
//   {type: "ready"}                         the decoder is loaded and open
//   {type: "burst", burst}                  a decoded token
//   {type: "stats", ...}                    every second: decode CPU per audio second, overruns
//   {type: "error", message}                the decoder could not start or stopped
import { NearcastModem } from "./nearcast-modem.js";

const pollMilliseconds = 20;
let decoder = null;
let samples = null;
let control = null;
let read = 0;
let block = null;
let stats = { decodeMs: 0, audioSeconds: 0, overruns: 0, droppedSamples: 0 };

function drain() {
  if (!decoder) return;
  const written = Atomics.load(control, 0);
  let available = (written - read) | 0;
  if (available > samples.length) {
    // The Worker fell a whole ring behind (a busy phone): skip to the newest audio. A burst
    // that straddles the gap is lost; the next one is heard.
    stats.overruns += 1;
    stats.droppedSamples += available - samples.length / 2;
    read = (written - samples.length / 2) | 0;
    available = samples.length / 2;
  }
  const mask = samples.length - 1;
  const started = performance.now();
  while (available > 0) {
    const count = Math.min(available, block.length);
    for (let i = 0; i < count; i++) block[i] = samples[(read + i) & mask];
    for (const burst of decoder.push(block.subarray(0, count))) postMessage({ type: "burst", burst });
    read = (read + count) | 0;
    available -= count;
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
    samples = new Float32Array(message.samples);
    control = new Int32Array(message.control);
    read = Atomics.load(control, 0);
    block = new Float32Array(4096);
    postMessage({ type: "ready" });
    setInterval(() => {
      try {
        drain();
      } catch (error) {
        postMessage({ type: "error", message: error.message });
        decoder = null;
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
