// The listener page: the microphone, through an AudioWorklet and a SharedArrayBuffer ring, into
// the box's decoder (WebAssembly, in a Worker); heard tokens resolved by the hub
// (beaconinfo:getforobserved with the project's public API key) and their messages followed live
// (attachments:watch). The page says whether it is listening and, when not, why.
//
// When the heard box carries a presentation (Nearcast Present), listener-show.js shows it and
// its reaction bar.
//
// URL parameters: key (the project's public API key), hub (the hub's address), lostAfter (the
// seconds without hearing the box before a presentation is given up, default 120). A hub serving the
// page answers `listener-hub.json` beside it, so there the page uses its own origin; served
// anywhere else without `hub=`, it has no hub. Without a key or a hub, heard tokens are shown
// as hex.

import { CaptureProblem, hubAddress, openMicrophone, startWorker } from "./capture.js";
import { heardBeacon, listeningFailed, startShows } from "./listener-show.js";

const params = new URLSearchParams(location.search);
const apiKey = params.get("key") || "";
let hub = (params.get("hub") || "").replace(/\/+$/, "");

/** The bands a box sends in (high 18.5-20 kHz, low 15-16.5 kHz; the decoder hears both), and what
 * counts as "no energy in them" (see docs/venue-operator.md, "The listener page"). */
const bands = [[18_500, 20_000], [15_000, 16_500]];
const silentBandDB = -110;        // per-bin level (dBFS) a real microphone's own noise stays above
const silentBandSeconds = 5;      // how long the band must stay below it before the page says so
const unknownRetryMs = 60_000;    // a token the hub did not know is asked again after this
const tokenRefreshMs = 300_000;   // a heard token is resolved again after this, for a fresh watchToken
const failedRetryMs = 5_000;      // a lookup that failed (network, hub error) is tried again after this
const watchRetryMs = 10_000;      // a watch the hub ended with an error is opened again after this

const $ = (id) => document.getElementById(id);
const stateLine = $("state");
const startButton = $("start");
const heardList = $("heard");
const tokenList = $("tokens");

// --- What the page says about itself ------------------------------------------------------------
// One line, from the most serious condition down: a fault that stops listening (kept until a
// reload), then not listening yet (starting, waiting for a tap, audio suspended), then a
// silent band, then a hub problem, then "Listening".

const status = {
  fault: null,          // why the page cannot listen; final
  starting: "Starting…",
  waitingForTap: false,
  decoderReady: false,
  suspended: false,
  band: null,
  hub: null,
};

function showStatus() {
  let kind;
  let text;
  const rate = context ? `${(context.sampleRate / 1000).toFixed(1)} kHz` : "";
  if (status.fault) {
    [kind, text] = ["problem", status.fault];
  } else if (status.starting) {
    [kind, text] = ["starting", status.starting];
  } else if (status.waitingForTap) {
    [kind, text] = ["starting", "Tap Listen to start (the browser waits for a tap before it records audio)."];
  } else if (!status.decoderReady) {
    [kind, text] = ["starting", "Starting the decoder…"];
  } else if (status.suspended) {
    [kind, text] = ["problem", "The browser paused the audio (another app took it, or the page is in the background). Tap Listen to go on."];
  } else if (status.band) {
    [kind, text] = ["problem", `${status.band} (listening at ${rate})`];
  } else if (status.hub) {
    [kind, text] = ["problem", `Listening at ${rate}, but ${status.hub}`];
  } else if (!hub || !apiKey) {
    [kind, text] = ["listening", `Listening at ${rate}; tokens are shown as heard, not resolved `
      + (hub ? "(no API key in the page's address: ?key=)" : "(no hub: ?hub=)")];
  } else {
    [kind, text] = ["listening", `Listening at ${rate}`];
  }
  stateLine.dataset.state = kind;
  stateLine.textContent = text;
  startButton.hidden = !(status.waitingForTap || (status.suspended && !status.fault));
}

function fail(text) {
  status.fault = status.fault || text;
  stopMicrophone();
  listeningFailed();
  showStatus();
}

function hubTrouble(text) {
  status.hub = text;
  showStatus();
}

// --- Messages: what the hub says the heard tokens stand for -------------------------------------

/** beaconName -> {attachments: [{namespacedType, text}], source: EventSource|null} */
const beacons = new Map();
/** "kind:hex" -> {kind, hex, bytes, heard, note, beacon, retryAt, resolvedAt} */
const tokens = new Map();
/** beaconName -> the newest watchToken the hub gave for it: with the public key, the hub lets a
 * page watch a beacon (its messages, its show) only with a token from resolving what it heard. */
const watchTokens = new Map();
let firstMessageMs = null;

function textOf(base64) {
  const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
  return new TextDecoder().decode(bytes);
}

function renderMessages() {
  heardList.replaceChildren();
  for (const beacon of beacons.values()) {
    for (const attachment of beacon.attachments) {
      const line = document.createElement("div");
      line.className = "message";
      const type = document.createElement("span");
      type.className = "type";
      type.textContent = attachment.namespacedType;
      const text = document.createElement("span");
      text.className = "text";
      text.textContent = attachment.text;
      line.append(type, " ", text);
      heardList.append(line);
    }
  }
  const count = heardList.childElementCount;
  $("no-messages").hidden = count > 0;
  if (count > 0 && firstMessageMs === null) {
    firstMessageMs = performance.now();
    heardList.dataset.firstMessageMs = firstMessageMs.toFixed(0);
  }
}

function renderTokens() {
  tokenList.replaceChildren();
  for (const token of tokens.values()) {
    const line = document.createElement("div");
    line.className = "token";
    line.textContent = `${token.kind} ${token.hex} ×${token.heard}${token.note ? ` (${token.note})` : ""}`;
    tokenList.append(line);
  }
}

function setAttachments(beaconName, attachments) {
  const beacon = beacons.get(beaconName);
  if (!beacon) return;
  beacon.attachments = (attachments || []).map((a) => ({ namespacedType: a.namespacedType, text: textOf(a.data) }));
  renderMessages();
}

/** Forgets a beacon: its lines go, and the tokens that named it are asked about again when heard. */
function forgetBeacon(beaconName, note) {
  const beacon = beacons.get(beaconName);
  if (beacon && beacon.source) beacon.source.close();
  beacons.delete(beaconName);
  for (const token of tokens.values()) {
    if (token.beacon === beaconName) Object.assign(token, { beacon: null, note, retryAt: performance.now() });
  }
  renderMessages();
  renderTokens();
}

/** Follows a beacon's attachments: the hub sends them at once and again at every change. */
function watch(beaconName) {
  const url = `${hub}/v1beta1/${beaconName}/attachments:watch?key=${encodeURIComponent(apiKey)}`
    + `&token=${encodeURIComponent(watchTokens.get(beaconName) || "")}`;
  const source = new EventSource(url);
  source.addEventListener("attachments", (event) => {
    setAttachments(beaconName, JSON.parse(event.data).attachments);
    if (status.hub) hubTrouble(null);
  });
  source.addEventListener("deleted", () => forgetBeacon(beaconName, "removed from the hub"));
  source.onerror = () => {
    if (source.readyState === EventSource.CLOSED) {
      // The hub refused the watch (an error status; a reconnection after its token expired):
      // the messages may be stale, so they go, and the beacon's tokens are looked up again when
      // next heard, which brings a fresh token.
      forgetBeacon(beaconName, "the hub ended its watch");
      hubTrouble("the hub refused to keep this page up to date");
      setTimeout(() => { if (status.hub === "the hub refused to keep this page up to date") hubTrouble(null); }, watchRetryMs);
    } else {
      hubTrouble("reconnecting to the hub…");   // EventSource reconnects by itself
    }
  };
  return source;
}

async function hubError(response) {
  try {
    const body = await response.json();
    return `the hub answered ${response.status}: ${body.error.message}`;
  } catch {
    return `the hub answered HTTP ${response.status}`;
  }
}

async function resolve(token) {
  const id = btoa(String.fromCharCode(...token.bytes));
  const body = {
    observations: [{ advertisedId: { type: token.kind === "eid" ? "EDDYSTONE_EID" : "EDDYSTONE", id } }],
    namespacedTypes: ["*"],
  };
  let response;
  try {
    response = await fetch(`${hub}/v1beta1/beaconinfo:getforobserved?key=${encodeURIComponent(apiKey)}`, {
      method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
    });
  } catch (error) {
    throw new Error(`the hub at ${hub} cannot be reached (${error.message})`);
  }
  if (!response.ok) throw new Error(await hubError(response));
  const answer = await response.json();
  return (answer.beacons || [])[0] || null;
}

async function heard(burst) {
  const id = `${burst.kind}:${burst.hex}`;
  let token = tokens.get(id);
  if (token) {
    token.heard += 1;
    renderTokens();
    if (token.beacon) heardBeacon(token.beacon, burst, watchTokens.get(token.beacon));
    const stale = token.beacon && performance.now() - token.resolvedAt > tokenRefreshMs;
    if (!stale && (token.retryAt === null || performance.now() < token.retryAt)) return;
  } else {
    token = { kind: burst.kind, hex: burst.hex, bytes: burst.bytes, heard: 1, note: "", beacon: null, retryAt: null, resolvedAt: 0 };
    tokens.set(id, token);
  }
  if (!hub || !apiKey) {
    token.note = hub ? "no API key in the page's address (?key=)" : "no hub to ask";
    renderTokens();
    return;
  }
  token.note = "asking the hub…";
  token.retryAt = null;   // no second lookup while this one is under way
  renderTokens();
  try {
    const beacon = await resolve(token);
    if (!beacon) {
      token.note = "not known to the hub";
      token.retryAt = performance.now() + unknownRetryMs;
    } else {
      token.note = beacon.beaconName;
      token.beacon = beacon.beaconName;
      token.resolvedAt = performance.now();
      if (beacon.watchToken) watchTokens.set(beacon.beaconName, beacon.watchToken);
      heardBeacon(beacon.beaconName, burst, watchTokens.get(beacon.beaconName));
      if (!beacons.has(beacon.beaconName)) {
        beacons.set(beacon.beaconName, { attachments: [], source: null });
        setAttachments(beacon.beaconName, beacon.attachments);
        beacons.get(beacon.beaconName).source = watch(beacon.beaconName);
      }
    }
    if (status.hub) hubTrouble(null);
  } catch (error) {
    token.note = "not resolved";
    token.retryAt = performance.now() + failedRetryMs;
    hubTrouble(error.message);
  }
  renderTokens();
}

// --- Listening ----------------------------------------------------------------------------------

let context = null;
let stream = null;
let bandQuietSince = null;

function stopMicrophone() {
  if (stream) for (const track of stream.getTracks()) track.stop();
}

function startBandMeter(source) {
  const analyser = context.createAnalyser();
  analyser.fftSize = 4096;
  analyser.smoothingTimeConstant = 0.5;
  source.connect(analyser);
  const bins = new Float32Array(analyser.frequencyBinCount);
  const binHz = context.sampleRate / analyser.fftSize;
  const ranges = bands.map(([from, to]) => [Math.ceil(from / binHz), Math.min(bins.length - 1, Math.floor(to / binHz))]);
  setInterval(() => {
    if (status.fault || context.state !== "running") {
      bandQuietSince = null;   // no audio flows: the band is not judged
      return;
    }
    analyser.getFloatFrequencyData(bins);
    // The meter shows the louder band: the page can hear the box if either band reaches it.
    let level = -Infinity;
    for (const [low, high] of ranges) {
      let power = 0;
      for (let i = low; i <= high; i++) power += 10 ** (bins[i] / 10);
      level = Math.max(level, 10 * Math.log10(power / (high - low + 1)));
    }
    const meter = $("band-level");
    meter.value = Number.isFinite(level) ? Math.max(-130, level) : -130;
    meter.dataset.db = Number.isFinite(level) ? level.toFixed(1) : "-inf";
    $("band-db").textContent = Number.isFinite(level) ? `${level.toFixed(0)} dB` : "silent";
    const now = performance.now();
    if (!(level > silentBandDB)) {
      bandQuietSince ??= now;
      if (!status.band && now - bandQuietSince >= silentBandSeconds * 1000) {
        status.band = "No sound reaches this page at 18.5–20 kHz or 15–16.5 kHz: this microphone or browser seems to cut "
          + "the bands Nearcast uses, so it cannot hear the box here";
        showStatus();
      }
    } else {
      bandQuietSince = null;
      if (status.band) { status.band = null; showStatus(); }
    }
  }, 200);
}

function startDecoder(source) {
  return startWorker(context, source, {
    onMessage: (message) => {
      if (message.type === "burst") {
        heard(message.burst).catch((error) => hubTrouble(error.message));
      } else if (message.type === "ready") {
        status.decoderReady = true;
        showStatus();
      } else if (message.type === "stats") {
        showStats(message);
      } else if (message.type === "error") {
        fail(`The decoder stopped: ${message.message}. Reload the page to listen again.`);
      }
    },
    onError: (text) => fail(text),
  });
}

function showStats(stats) {
  const perSecond = stats.audioSeconds > 0 ? stats.decodeMs / stats.audioSeconds : 0;
  Object.assign($("stats").dataset, {
    decodeMsPerAudioSecond: perSecond.toFixed(3), audioSeconds: stats.audioSeconds.toFixed(1), gaps: stats.gaps,
  });
  $("stats").textContent = `Decoder: ${perSecond.toFixed(1)} ms of CPU per second of audio, `
    + `${stats.audioSeconds.toFixed(0)} s heard`
    + (stats.gaps ? `, ${stats.gaps} gaps (the phone was too busy)` : "")
    + (firstMessageMs !== null ? `; first message ${(firstMessageMs / 1000).toFixed(1)} s after the page opened` : "");
}

async function start() {
  let opened;
  try {
    opened = await openMicrophone(() => {
      status.starting = "Asking for the microphone…";
      showStatus();
    });
  } catch (error) {
    fail(error instanceof CaptureProblem ? error.message : `The microphone could not be opened: ${error.message}`);
    return;
  }
  ({ stream, context } = opened);
  const { track, source } = opened;
  track.addEventListener("ended", () => fail("The microphone was disconnected. Reload the page to listen again."));
  await startDecoder(source);
  startBandMeter(source);
  status.starting = null;
  context.onstatechange = () => {
    status.suspended = context.state === "suspended" && !status.waitingForTap;
    showStatus();
  };
  if (context.state !== "running") await context.resume().catch(() => {});
  status.waitingForTap = context.state !== "running";
  showStatus();
}

startButton.addEventListener("click", async () => {
  if (!context) return;
  await context.resume().catch(() => {});
  status.waitingForTap = false;
  status.suspended = context.state !== "running";
  showStatus();
});

(async () => {
  showStatus();
  hub = await hubAddress(hub);
  startShows(hub, apiKey);
  await start();
})().catch((error) => fail(`The listener could not start: ${error.message}`));
