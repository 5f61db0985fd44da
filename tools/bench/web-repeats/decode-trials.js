// The listener page's WebAssembly decoder (nearcast-modem.js, both bands, as listener-worker.js
// opens it) on the bench's trials: each WAV `nearcast bench modem --write-trials` wrote is
// decoded by a fresh decoder fed `block` samples at a time, and every burst reported comes back
// with the samples the decoder had been fed when it reported it. tools/bench/bench-web-repeats
// calls `decodeTrials` and compares with what the native decoder reported on the same audio.
import { NearcastModem } from "./nearcast-modem.js";
import { readWAV } from "./wav.js";

const modemReady = NearcastModem.load(new URL("nearcast-modem.wasm", import.meta.url));

async function decodeTrial(modem, name, block) {
  const response = await fetch(name);
  if (!response.ok) throw new Error(`${name}: HTTP ${response.status}`);
  const { sampleRate, samples } = readWAV(await response.arrayBuffer(), name);
  const decoder = modem.open(sampleRate);
  const bursts = [];
  const note = (found) => {
    for (const burst of found) {
      bursts.push({ kind: burst.kind, payload: burst.hex, start: burst.startSample, copies: burst.copies,
                    band: burst.band, reported_at: decoder.samplesPushed });
    }
  };
  const started = performance.now();
  for (let offset = 0; offset < samples.length; offset += block) {
    note(decoder.push(samples.subarray(offset, Math.min(samples.length, offset + block))));
  }
  note(decoder.finish());
  const decodeMs = performance.now() - started;
  return { name, bursts, decodeMs, audioSeconds: decoder.samplesPushed / sampleRate };
}

window.decodeTrials = async (names, block) => {
  const modem = await modemReady;
  const results = [];
  for (const name of names) results.push(await decodeTrial(modem, name, block));
  return results;
};

modemReady.then(() => { document.getElementById("state").textContent = "ready"; },
                (error) => { document.getElementById("state").textContent = `failed: ${error.message}`; });
