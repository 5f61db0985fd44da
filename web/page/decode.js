// decode.html: a WAV file through the WebAssembly decoder, printed as `nearcast decode --json`
// prints it, with the decoder's CPU time per second of audio.
import { ModemTrap, NearcastModem } from "./nearcast-modem.js";
import { readWAV } from "./wav.js";

const summary = document.getElementById("summary");
const decoded = document.getElementById("decoded");
const moduleURL = new URL("nearcast-modem.wasm", import.meta.url);
let modemReady = NearcastModem.load(moduleURL);

/** One burst as `nearcast decode --json` prints it (the same fields, order and decimals). */
export function jsonLine(burst) {
  return `{"payload":"${burst.hex}","kind":"${burst.kind}","offset_s":${burst.offsetSeconds.toFixed(6)},`
    + `"sync":${burst.sync.toFixed(3)},"snr_db":${burst.snrDB.toFixed(1)},`
    + `"time_scale_ppm":${burst.timeScalePPM.toFixed(0)},"tonal_share":${burst.tonalShare.toFixed(3)},`
    + `"band":"${burst.band}","format":${burst.format},"copies":${burst.copies}}`;
}

async function decodeFile(file) {
  summary.textContent = `decoding ${file.name}…`;
  for (const field of ["done", "error", "tokens", "audioSeconds", "decodeMs"]) delete summary.dataset[field];
  decoded.textContent = "";
  try {
    const modem = await modemReady;
    const { sampleRate, samples } = readWAV(await file.arrayBuffer(), file.name);
    const decoder = modem.open(sampleRate);
    const started = performance.now();
    // Each band's decoder reports in turn: in time order, as `nearcast decode` prints them.
    const bursts = [...decoder.push(samples), ...decoder.finish()].sort((a, b) => a.startSample - b.startSample);
    const elapsed = performance.now() - started;
    const seconds = samples.length / sampleRate;
    decoded.textContent = bursts.map(jsonLine).join("\n");
    summary.textContent = `${bursts.length} token${bursts.length === 1 ? "" : "s"} in ${seconds.toFixed(2)} s of audio `
      + `at ${sampleRate} Hz; decoding took ${elapsed.toFixed(1)} ms (${(elapsed / seconds).toFixed(2)} ms per audio second)`;
    Object.assign(summary.dataset, { tokens: bursts.length, audioSeconds: seconds, decodeMs: elapsed });
  } catch (error) {
    summary.textContent = `${file.name}: ${error.message}`;
    summary.dataset.error = error.message;
    // A module that trapped is left in an unknown state: the next file gets a fresh instance.
    if (error instanceof ModemTrap) modemReady = NearcastModem.load(moduleURL);
  }
  summary.dataset.done = "1";
}

document.getElementById("file").addEventListener("change", (event) => {
  const [file] = event.target.files;
  if (file) decodeFile(file);
});
