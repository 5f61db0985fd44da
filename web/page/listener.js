// The listener page: the microphone, through an AudioWorklet and a SharedArrayBuffer ring, into
// the box's decoder (WebAssembly, in a Worker); heard tokens resolved by the hub
// (beaconinfo:getforobserved with the project's public API key), and the messages of the boxes
// they name shown and followed live (listener-messages.js). The page says in plain words whether
// it is listening and, when not, why; the engineer's view (the rate, the band meter, the tokens and
// messages as the hub holds them, the decoder's CPU) is behind the closed "Details" disclosure.
//
// When a resolve says the heard box carries a presentation (Nearcast Present), listener-show.js
// shows it and its reaction bar, and the status line says whether the phone follows it.
// listener-reach.js tells the hub, anonymously, what this visit heard (the page says so).
//
// URL parameters: key (the project's public API key), hub (the hub's address), and
// listener-show.js's. A hub serving the page answers `listener-hub.json` beside it, so there the
// page uses its own origin; served anywhere else without `hub=`, it has no hub. A page opened by
// the QR code has no key but a pass (in its fragment), which resolves what it hears just as well.
// Without a key or a hub, heard tokens are shown as hex.

import { CaptureProblem, hubAddress, openMicrophone, processingStillOn, startWorker } from "./capture.js";
import { phoneHeaders } from "./phone-id.js";
import { firstMessageAt, followMessages, startMessages } from "./listener-messages.js";
import { bandSilent, browserFilters, followsShowOf, heardBeacon, heardRoom, listeningFailed, listeningStarted, resolvedBeacon,
         resolvingKey, situation, startShows } from "./listener-show.js";
import { reachCapture, reachHeard, reachJoined, reachLevels, reachListening, reachStats, startReach } from "./listener-reach.js";

const params = new URLSearchParams(location.search);
const apiKey = params.get("key") || "";   // the public key; resolvingKey() falls back to a pass
let hub = (params.get("hub") || "").replace(/\/+$/, "");

/** The bands a box sends in (high 18.5-20 kHz, low 15-16.5 kHz; the decoder hears both), and what
 * counts as "no energy in them" (see docs/venue-operator.md, "The listener page"). */
const bands = [[18_500, 20_000], [15_000, 16_500]];
const silentBandDB = -110;        // per-bin level (dBFS) a real microphone's own noise stays above
const silentBandSeconds = 5;      // how long the band must stay below it before the page says so
const unknownRetryMs = 60_000;    // a token the hub did not know is asked again after this
const tokenRefreshMs = 300_000;   // a heard token is resolved again after this, for a fresh watchToken
const showlessRefreshMs = 15_000; // ... or after this while its box shows nothing this page follows
const failedRetryMs = 5_000;      // a lookup that failed (network, hub error) is tried again after this

const $ = (id) => document.getElementById(id);
const stateLine = $("state");
const startButton = $("start");
const tokenList = $("tokens");

// --- What the page says about itself ------------------------------------------------------------
// Two lines. The audience's, `#state`: words, from the most serious condition down (following a
// show first: a phone that follows by the code needs no microphone, so no warning about one stays
// above its slide). The engineer's, `#hearing` in Details: the rate, and what is wrong in the
// page's terms (a silent band, the hub's answers).

const status = {
  fault: null,          // why the page cannot listen; final
  starting: "Starting…",
  waitingForTap: false,
  decoderReady: false,
  suspended: false,
  band: null,
  hub: null,
};

function audienceLine() {
  const show = situation();
  if (show && show.kind === "following") return [show.kind, show.text];
  if (status.fault) return ["problem", status.fault];
  if (status.starting) return ["starting", status.starting];
  if (status.waitingForTap) return ["starting", "Tap Listen to start (the browser waits for a tap before it records audio)."];
  if (status.suspended) return ["problem", "The browser paused the audio (another app took it, or the page is in the background). Tap Listen to go on."];
  if (show && show.kind === "lost") return [show.kind, show.text];
  if (!status.decoderReady) return ["starting", "Starting…"];
  // Nothing heard: the code box is the way in (it says why: a silent band, a filtering browser).
  if (show && show.kind === "join" && tokens.size === 0) return [show.kind, show.text];
  if (status.band) return ["problem", "No sound from the room's box reaches this phone's microphone."];
  if (status.hub) return ["problem", "Listening for the room, but this page cannot reach the presentation's server right now."];
  return ["listening", "Listening for the room…"];
}

function engineerLine() {
  if (!context) return status.fault || "Not listening yet.";
  const rate = `${(context.sampleRate / 1000).toFixed(1)} kHz`;
  if (status.band) return `${status.band} (listening at ${rate})`;
  if (status.hub) return `Listening at ${rate}, but ${status.hub}`;
  if (!hub || !resolvingKey()) {
    return `Listening at ${rate}; tokens are shown as heard, not resolved `
      + (hub ? "(no API key in the page's address: ?key=)" : "(no hub: ?hub=)");
  }
  return `Listening at ${rate}`;
}

function showStatus() {
  const [kind, text] = audienceLine();
  stateLine.dataset.state = kind;
  // Written only when it changes: the line is a live region, and this runs every second.
  if (stateLine.textContent !== text) stateLine.textContent = text;
  const hearing = engineerLine();
  if ($("hearing").textContent !== hearing) $("hearing").textContent = hearing;
  const tapNeeded = status.waitingForTap || (status.suspended && !status.fault);
  startButton.hidden = !tapNeeded;
  startButton.parentElement.hidden = !tapNeeded;   // its paragraph's margins go too
}

/** Tells the show part once audio reaches the decoder: the wait before the code is offered starts. */
function noteListening() {
  if (status.decoderReady && context && context.state === "running" && !status.fault) {
    listeningStarted();
    reachListening();
  }
}

function fail(text) {
  status.fault = status.fault || text;
  stopMicrophone();
  listeningFailed();
  showStatus();
}

/** What is wrong with the hub, in the engineer's words, or null; `ifStill`: only if the trouble
 * now is that one. */
function hubTrouble(text, ifStill) {
  if (ifStill !== undefined && status.hub !== ifStill) return;
  status.hub = text;
  showStatus();
}

// --- Heard tokens: what the hub says they stand for ----------------------------------------------

/** "kind:hex" -> {kind, hex, advertisedId, heard, note, beacon, retryAt, resolvedAt} */
const tokens = new Map();

function renderTokens() {
  tokenList.replaceChildren();
  for (const token of tokens.values()) {
    const line = document.createElement("div");
    line.className = "token";
    line.textContent = `${token.kind} ${token.hex} ×${token.heard}${token.note ? ` (${token.note})` : ""}`;
    tokenList.append(line);
  }
}

/** A beacon whose messages went (deleted on the hub, its watch refused): the tokens that named it
 * are resolved again when next heard. */
function beaconForgotten(beaconName, note) {
  for (const token of tokens.values()) {
    if (token.beacon === beaconName) Object.assign(token, { beacon: null, note, retryAt: performance.now() });
  }
  renderTokens();
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
  const body = {
    observations: [{ advertisedId: token.advertisedId }],
    // No types named, no attachments (as Google's API answered): the beacon's watch brings its
    // messages once per change (listener-messages.js), not once per resolve.
    namespacedTypes: [],
  };
  let response;
  try {
    response = await fetch(`${hub}/v1beta1/beaconinfo:getforobserved?key=${encodeURIComponent(resolvingKey())}`, {
      method: "POST", headers: { "Content-Type": "application/json", ...phoneHeaders() }, body: JSON.stringify(body),
    });
  } catch (error) {
    throw new Error(`the hub at ${hub} cannot be reached (${error.message})`);
  }
  if (!response.ok) throw new Error(await hubError(response));
  const answer = await response.json();
  return (answer.beacons || [])[0] || null;
}

/** How long a resolved token goes before it is resolved again when heard: soon while its beacon
 * shows nothing this page follows (a resolve says whether a show has started), else only for a
 * fresh watch token. */
function resolveAgainAfterMs(token) {
  return followsShowOf(token.beacon) ? tokenRefreshMs : showlessRefreshMs;
}

async function heard(burst) {
  heardRoom();
  reachHeard();
  const id = `${burst.kind}:${burst.hex}`;
  let token = tokens.get(id);
  if (token) {
    token.heard += 1;
    renderTokens();
    if (token.beacon) heardBeacon(token.beacon, burst);
    const stale = token.beacon && performance.now() - token.resolvedAt > resolveAgainAfterMs(token);
    if (!stale && (token.retryAt === null || performance.now() < token.retryAt)) return;
  } else {
    token = { kind: burst.kind, hex: burst.hex, advertisedId: burst.advertisedId, heard: 1, note: "", beacon: null,
              retryAt: null, resolvedAt: 0 };
    tokens.set(id, token);
  }
  if (!hub || !resolvingKey()) {
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
      followMessages(beacon.beaconName, beacon.watchToken);
      heardBeacon(beacon.beaconName, burst);
      reachJoined("heard", beacon.beaconName);
      resolvedBeacon(beacon.beaconName, beacon.hasShow === true);
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
    // Each band's mean power per bin; the meter shows the louder band: the page can hear the box
    // if either band reaches it.
    const [high, low] = ranges.map(([from, to]) => {
      let power = 0;
      for (let i = from; i <= to; i++) power += 10 ** (bins[i] / 10);
      return 10 * Math.log10(power / (to - from + 1));
    });
    reachLevels({ high, low });
    const level = Math.max(high, low);
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
        bandSilent(true);
        showStatus();
      }
    } else {
      bandQuietSince = null;
      if (status.band) {
        status.band = null;
        bandSilent(false);
        showStatus();
      }
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
        noteListening();
        showStatus();
      } else if (message.type === "stats") {
        showStats(message);
        reachStats(message);
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
    + (firstMessageAt() !== null ? `; first message ${(firstMessageAt() / 1000).toFixed(1)} s after the page opened` : "");
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
  checkCaptureSettings(track);
  reachCapture(track);
  await startDecoder(source);
  startBandMeter(source);
  status.starting = null;
  context.onstatechange = () => {
    status.suspended = context.state === "suspended" && !status.waitingForTap;
    noteListening();
    showStatus();
  };
  if (context.state !== "running") await context.resume().catch(() => {});
  status.waitingForTap = context.state !== "running";
  noteListening();
  showStatus();
}

/** The page asked the browser for its microphone with echo cancellation, noise suppression and
 * gain control off; a browser may ignore that. Its settings say so, and then the code is offered
 * at once (either of the first two hears neither band). */
function checkCaptureSettings(track) {
  const on = processingStillOn(track);
  $("capture-settings").textContent = on.length === 0
    ? "The browser's own processing of the microphone is off, as the page asked."
    : `The browser kept its ${on.join(", ")} on, though the page asked for it off.`;
  const filtering = on.filter((name) => name !== "automatic gain control");
  if (filtering.length > 0) browserFilters(filtering.join(", "));
}

startButton.addEventListener("click", async () => {
  if (!context) return;
  await context.resume().catch(() => {});
  status.waitingForTap = false;
  status.suspended = context.state !== "running";
  noteListening();
  showStatus();
});

(async () => {
  showStatus();
  hub = await hubAddress(hub);
  startReach(hub, resolvingKey);
  startMessages(hub, { key: resolvingKey, forgotten: beaconForgotten, trouble: hubTrouble });
  startShows(hub, apiKey, { onSituation: showStatus });
  await start();
})().catch((error) => fail(`The listener could not start: ${error.message}`));
