// The field check page (the hub's /check?key=API_KEY): listens with the box's own decoder and
// field check analyser (WebAssembly, in the listener's Worker) for the check signal the box plays
// on `audio sweep`, then shows in words and a plot what reached this phone in each band, which
// bands it can use, and on what platform and browser; and, if the user ticks the box, sends that
// result to the hub (POST /v1beta1/fieldchecks), where the operators' page lists it per box and
// kind of phone.
//
// URL parameters: key (the project's public API key), hub (the hub's address, when the page is
// not served by the hub). Tokens the box broadcasts, heard beside the signal, are resolved with
// the key to name the box the result belongs to.

import { CaptureProblem, hubAddress, openMicrophone, startWorker } from "./capture.js";
import { phoneKind } from "./phone-kind.js";

const params = new URLSearchParams(location.search);
const apiKey = params.get("key") || "";
let hub = (params.get("hub") || "").replace(/\/+$/, "");
const quietSeconds = 30;          // without a check signal this long, the page says what to do
const testTokenHex = "74657374";  // the calibration bursts' token, "test" (FieldCheckSignal.testToken)

const $ = (id) => document.getElementById(id);
const bandNames = { high: "High band (18.5–20 kHz)", low: "Low band (15–16.5 kHz)" };
const verdictWords = {
  both: "This phone hears both bands.",
  high: "This phone hears only the high band.",
  low: "This phone does not hear the high band, but hears the low one.",
  neither: "This phone hears neither band here.",
};
const advice = {
  both: "The high band (the least audible) serves it: keep the box on high, or both.",
  high: "Keep the box on high (or both).",
  low: "Set the box to low or both (audio band low on its console), so that phones like this one hear it.",
  neither: "Move closer to a speaker or raise the box's level (audio level), then check again. "
    + "People with such a phone can still join by the code on the presenter's screen.",
};

let context = null;
let latest = null;                 // the last check's result
let beaconName = null;             // the box, from its tokens
let started = 0;
const asked = new Set();           // tokens already resolved

function say(state, text) {
  $("state").dataset.state = state;
  $("state").textContent = text;
}

// --- The plot ----------------------------------------------------------------------------------

const svgNS = "http://www.w3.org/2000/svg";
const plot = { left: 40, right: 350, top: 10, bottom: 185, fromHz: 11_500, toHz: 21_500, fromDb: -120, toDb: 0 };
const x = (hz) => plot.left + (hz - plot.fromHz) / (plot.toHz - plot.fromHz) * (plot.right - plot.left);
const y = (db) => plot.top + (plot.toDb - Math.max(plot.fromDb, Math.min(plot.toDb, db))) / (plot.toDb - plot.fromDb) * (plot.bottom - plot.top);

function element(name, attributes, text) {
  const node = document.createElementNS(svgNS, name);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, value);
  if (text !== undefined) node.textContent = text;
  return node;
}

function drawPlot(result) {
  const svg = $("plot");
  const parts = [];
  for (const [name, from, to] of [["low", 15_000, 16_500], ["high", 18_500, 20_000]]) {
    parts.push(element("rect", { class: "band-area", x: x(from - 250), y: plot.top, width: x(to + 250) - x(from - 250), height: plot.bottom - plot.top }));
    parts.push(element("text", { x: x((from + to) / 2), y: plot.bottom - 6, "text-anchor": "middle" }, name));
  }
  for (let db = plot.toDb; db >= plot.fromDb; db -= 20) {
    parts.push(element("line", { class: "grid", x1: plot.left, x2: plot.right, y1: y(db), y2: y(db) }));
    parts.push(element("text", { x: plot.left - 4, y: y(db) + 4, "text-anchor": "end" }, `${db}`));
  }
  for (let hz = 12_000; hz <= 21_000; hz += 2_000) {
    parts.push(element("text", { x: x(hz), y: plot.bottom + 14, "text-anchor": "middle" }, `${hz / 1000}`));
  }
  parts.push(element("text", { x: (plot.left + plot.right) / 2, y: plot.bottom + 30, "text-anchor": "middle" }, "kHz"));
  parts.push(element("text", { x: 2, y: plot.top + 4 }, "dB"));
  parts.push(element("line", { class: "axis", x1: plot.left, x2: plot.right, y1: plot.bottom, y2: plot.bottom }));
  const line = (values) => values.map((v, i) => `${i ? "L" : "M"}${x(v.hz).toFixed(1)},${y(v.db).toFixed(1)}`).join(" ");
  parts.push(element("path", { class: "noise", d: line(result.tones.map((t) => ({ hz: t.hz, db: t.noiseDb }))) }));
  parts.push(element("path", { class: "level", d: line(result.tones.map((t) => ({ hz: t.hz, db: t.levelDb }))) }));
  for (const tone of result.tones) {
    const point = element("circle", { class: "level-point", cx: x(tone.hz), cy: y(tone.levelDb), r: 2.5 });
    point.append(element("title", {}, `${tone.hz} Hz: ${tone.levelDb.toFixed(1)} dB, ${tone.snrDb.toFixed(1)} dB above the noise`));
    parts.push(point);
  }
  svg.replaceChildren(...parts);
  svg.dataset.tones = result.tones.length;
}

// --- Results -----------------------------------------------------------------------------------

function showResult(result) {
  latest = result;
  $("result").hidden = false;
  $("verdict").dataset.verdict = result.verdict;
  $("verdict").textContent = verdictWords[result.verdict];
  $("advice").textContent = advice[result.verdict];
  const lines = result.bands.map((band) => {
    const line = document.createElement("div");
    line.dataset.band = band.band;
    line.dataset.snrDb = band.snrDb.toFixed(1);
    line.dataset.decoded = band.decoded;
    // 18 dB: FieldCheckVerdict.clearSNR, where a burst decodes (28 dB-Hz).
    const heard = band.snrDb >= 18 ? `${band.snrDb.toFixed(0)} dB above the noise` : band.snrDb >= 3 ? `only ${band.snrDb.toFixed(0)} dB above the noise` : "not above the noise";
    line.textContent = `${bandNames[band.band]}: reached this phone at ${band.levelDb.toFixed(0)} dB, ${heard}; `
      + `its test burst ${band.decoded ? "decoded" : "did not decode"}.`;
    return line;
  });
  $("bands-heard").replaceChildren(...lines);
  drawPlot(result);
  $("send-form").hidden = !hub || !apiKey;
  $("send").disabled = !$("consent").checked;
  $("send-state").textContent = "";
  say("listening", `Checked at ${new Date().toLocaleTimeString()}. Still listening: a new check signal updates the result.`);
}

async function send(event) {
  event.preventDefault();
  if (!latest || !$("consent").checked) return;
  const kind = await phoneKind();
  const round = (value) => Math.round(value * 10) / 10;
  const body = {
    beaconName, platform: kind.platform, browser: kind.browser, sampleRate: latest.sampleRate,
    tones: latest.tones.map((t) => ({ hz: t.hz, levelDb: round(t.levelDb), snrDb: round(t.snrDb) })),
    bands: latest.bands.map((b) => ({ band: b.band, snrDb: round(b.snrDb), decoded: b.decoded })),
    verdict: latest.verdict,
  };
  $("send").disabled = true;
  $("send-state").textContent = "Sending…";
  try {
    const response = await fetch(`${hub}/v1beta1/fieldchecks?key=${encodeURIComponent(apiKey)}`, {
      method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
    });
    if (!response.ok) {
      let reason = `HTTP ${response.status}`;
      try { reason = (await response.json()).error.message; } catch { /* the status says enough */ }
      throw new Error(`the hub answered ${response.status}: ${reason}`);
    }
    $("send-state").textContent = "Sent. Thank you: the venue sees what phones like this one heard.";
    $("send-state").dataset.sent = "true";
  } catch (error) {
    $("send-state").textContent = `Not sent: ${error.message}`;
    $("send").disabled = false;
  }
}

/** Names the box from a token it broadcasts (the result is filed under it). */
async function resolve(burst) {
  const id = `${burst.kind}:${burst.hex}`;
  if (!hub || !apiKey || asked.has(id)) return;
  asked.add(id);
  try {
    const response = await fetch(`${hub}/v1beta1/beaconinfo:getforobserved?key=${encodeURIComponent(apiKey)}`, {
      method: "POST", headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ observations: [{ advertisedId: burst.advertisedId }] }),
    });
    const beacon = response.ok ? ((await response.json()).beacons || [])[0] : null;
    if (beacon) {
      beaconName = beacon.beaconName;
      $("box").textContent = beacon.description ? `${beacon.description} (${beacon.beaconName})` : beacon.beaconName;
    }
  } catch {
    asked.delete(id);   // asked again when next heard
  }
}

// --- Listening ---------------------------------------------------------------------------------

async function start() {
  $("start").hidden = true;
  let opened;
  try {
    opened = await openMicrophone(() => say("starting", "Asking for the microphone…"));
  } catch (error) {
    say("problem", error instanceof CaptureProblem ? error.message : `The microphone could not be opened: ${error.message}`);
    return;
  }
  context = opened.context;
  $("rate").textContent = `${(context.sampleRate / 1000).toFixed(1)} kHz, the browser's processing off`;
  opened.track.addEventListener("ended", () => say("problem", "The microphone was disconnected. Reload the page to check again."));
  await startWorker(context, opened.source, {
    check: true,
    onMessage: (message) => {
      if (message.type === "check") {
        showResult(message.result);
      } else if (message.type === "burst" && message.burst.hex !== testTokenHex) {
        resolve(message.burst);
      } else if (message.type === "ready") {
        started = performance.now();
        say("listening", "Listening for the check signal…");
      } else if (message.type === "error") {
        say("problem", `The decoder stopped: ${message.message}. Reload the page to check again.`);
      }
    },
    onError: (text) => say("problem", text),
  });
  if (context.state !== "running") await context.resume().catch(() => {});
  setInterval(() => {
    if (latest || !started || context.state !== "running") return;
    const seconds = (performance.now() - started) / 1000;
    say(seconds < quietSeconds ? "listening" : "problem", seconds < quietSeconds
      ? `Listening for the check signal… (${seconds.toFixed(0)} s)`
      : `No check signal heard in ${seconds.toFixed(0)} s. Ask the technician to play it (audio sweep on the box's console), `
        + "and hold the phone where the audience sits, its microphone uncovered.");
  }, 1000);
}

$("start").addEventListener("click", () => start().catch((error) => say("problem", `The check could not start: ${error.message}`)));
$("consent").addEventListener("change", () => { $("send").disabled = !$("consent").checked || !latest; });
$("send-form").addEventListener("submit", (event) => send(event).catch((error) => { $("send-state").textContent = `Not sent: ${error.message}`; }));

(async () => {
  const kind = await phoneKind();
  $("platform").textContent = kind.platform;
  $("browser").textContent = kind.browser;
  hub = await hubAddress(hub);
  if (!apiKey) $("box").textContent = "not named: the page's address has no ?key= (results cannot be sent)";
  say("starting", "Tap Start the check, then allow the microphone.");
  $("start").hidden = false;
})().catch((error) => say("problem", `The check could not start: ${error.message}`));
