// The listener page: the microphone, through an AudioWorklet and a SharedArrayBuffer ring, into
// the box's decoder (WebAssembly, in a Worker); heard tokens resolved by the hub
// (beaconinfo:getforobserved with the project's public API key) and their messages followed live
// (attachments:watch). The page says whether it is listening and, when not, why.
//
// URL parameters: key (the project's public API key), hub (the hub's address). A hub serving the
// page answers `listener-hub.json` beside it, so there the page uses its own origin; served
// anywhere else without `hub=`, it has no hub. Without a key or a hub, heard tokens are shown
// as hex.

const params = new URLSearchParams(location.search);
const apiKey = params.get("key") || "";
let hub = (params.get("hub") || "").replace(/\/+$/, "");

/** Whether the page came from a hub: the hub serves listener-hub.json, a static server does not. */
async function servedByHub() {
  try {
    const response = await fetch(new URL("listener-hub.json", location.href), { cache: "no-store" });
    return response.ok && (await response.json()).servedByHub === true;
  } catch {
    return false;
  }
}

/** The band the box sends in, and what counts as "no energy in it" (see README, "The listener page"). */
const bandLow = 18_500;
const bandHigh = 20_000;
const silentBandDB = -110;        // per-bin level (dBFS) a real microphone's own noise stays above
const silentBandSeconds = 5;      // how long the band must stay below it before the page says so
const ringSeconds = 4;

const $ = (id) => document.getElementById(id);
const stateLine = $("state");
const startButton = $("start");
const heardList = $("heard");
const tokenList = $("tokens");

function setState(kind, text) {
  stateLine.dataset.state = kind;
  stateLine.textContent = text;
}

// --- Messages: what the hub says the heard tokens stand for -------------------------------------

/** beaconName -> {attachments: [{namespacedType, text}], source: EventSource} */
const beacons = new Map();
/** "kind:hex" -> {kind, hex, heard, note} */
const tokens = new Map();
let firstMessageMs = null;
let hubProblem = null;

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
  beacon.attachments = (attachments || []).map((a) => ({ namespacedType: a.namespacedType, text: textOf(a.data) }));
  renderMessages();
}

/** Follows a beacon's attachments: the hub sends them at once and again at every change. */
function watch(beaconName) {
  const url = `${hub}/v1beta1/${beaconName}/attachments:watch?key=${encodeURIComponent(apiKey)}`;
  const source = new EventSource(url);
  source.addEventListener("attachments", (event) => {
    setAttachments(beaconName, JSON.parse(event.data).attachments);
    if (hubProblem) { hubProblem = null; showListening(); }
  });
  source.addEventListener("deleted", () => {
    source.close();
    beacons.delete(beaconName);
    renderMessages();
  });
  // EventSource reconnects by itself (a hub restarting); say so meanwhile.
  source.onerror = () => {
    if (source.readyState !== EventSource.CLOSED) { hubProblem = "reconnecting to the hub…"; showListening(); }
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

async function resolve(token, bytes) {
  const id = btoa(String.fromCharCode(...bytes));
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
    if (!token.retryAt || performance.now() < token.retryAt) return;
  } else {
    token = { kind: burst.kind, hex: burst.hex, heard: 1, note: "" };
    tokens.set(id, token);
  }
  if (!hub || !apiKey) {
    token.note = hub ? "no API key in the page's address (?key=)" : "no hub to ask";
    renderTokens();
    return;
  }
  token.note = "asking the hub…";
  token.retryAt = null;
  renderTokens();
  try {
    const beacon = await resolve(token, burst.bytes);
    if (!beacon) {
      token.note = "not known to the hub";
    } else {
      token.note = beacon.beaconName;
      if (!beacons.has(beacon.beaconName)) {
        beacons.set(beacon.beaconName, { attachments: [], source: null });
        setAttachments(beacon.beaconName, beacon.attachments);
        beacons.get(beacon.beaconName).source = watch(beacon.beaconName);
      }
    }
    if (hubProblem) { hubProblem = null; showListening(); }
  } catch (error) {
    token.note = "not resolved";
    token.retryAt = performance.now() + 5_000;   // asked again when heard after this
    hubProblem = error.message;
    showListening();
  }
  renderTokens();
}

// --- Listening ----------------------------------------------------------------------------------

let context = null;
let bandQuietSince = null;
let bandWarning = null;

function showListening() {
  if (!context) return;
  const rate = `${(context.sampleRate / 1000).toFixed(1)} kHz`;
  if (bandWarning) setState("problem", `${bandWarning} (listening at ${rate})`);
  else if (hubProblem) setState("problem", `Listening at ${rate}, but ${hubProblem}`);
  else if (!hub || !apiKey) {
    setState("listening", `Listening at ${rate}; tokens are shown as heard, not resolved `
      + (hub ? "(no API key in the page's address: ?key=)" : "(no hub: ?hub=)"));
  } else setState("listening", `Listening at ${rate}`);
}

/** Why the microphone could not be opened, in the user's words. */
function microphoneProblem(error) {
  switch (error.name) {
    case "NotAllowedError":
    case "SecurityError":
      return "Microphone permission was denied. Allow the microphone for this site in the browser's settings, then reload.";
    case "NotFoundError":
    case "OverconstrainedError":
      return "No microphone was found.";
    case "NotReadableError":
      return "The microphone is in use by another app or cannot be read.";
    default:
      return `The microphone could not be opened: ${error.message}`;
  }
}

function startBandMeter(source) {
  const analyser = context.createAnalyser();
  analyser.fftSize = 4096;
  analyser.smoothingTimeConstant = 0.5;
  source.connect(analyser);
  const bins = new Float32Array(analyser.frequencyBinCount);
  const binHz = context.sampleRate / analyser.fftSize;
  const low = Math.ceil(bandLow / binHz);
  const high = Math.min(bins.length - 1, Math.floor(bandHigh / binHz));
  setInterval(() => {
    analyser.getFloatFrequencyData(bins);
    let power = 0;
    for (let i = low; i <= high; i++) power += 10 ** (bins[i] / 10);
    const level = 10 * Math.log10(power / (high - low + 1));
    const shown = Number.isFinite(level) ? level : -Infinity;
    $("band-level").value = Math.max(-130, shown);
    $("band-db").textContent = Number.isFinite(shown) ? `${shown.toFixed(0)} dB` : "silent";
    $("band-level").dataset.db = Number.isFinite(shown) ? shown.toFixed(1) : "-inf";
    const now = performance.now();
    if (!(shown > silentBandDB)) {
      bandQuietSince ??= now;
      if (!bandWarning && now - bandQuietSince >= silentBandSeconds * 1000) {
        bandWarning = "No sound reaches this page at 18.5–20 kHz: this microphone or browser seems to cut the band Nearcast uses, so it cannot hear the box here";
        showListening();
      }
    } else {
      bandQuietSince = null;
      if (bandWarning) { bandWarning = null; showListening(); }
    }
  }, 200);
}

function startDecoder(source) {
  const samples = new SharedArrayBuffer(4 * 2 ** Math.ceil(Math.log2(ringSeconds * context.sampleRate)));
  const control = new SharedArrayBuffer(8);
  const worker = new Worker(new URL("listener-worker.js", import.meta.url), { type: "module" });
  worker.onmessage = (event) => {
    const message = event.data;
    if (message.type === "burst") heard(message.burst);
    else if (message.type === "stats") showStats(message);
    else if (message.type === "error") setState("problem", `The decoder stopped: ${message.message}`);
  };
  worker.onerror = (event) => setState("problem", `The decoder could not start: ${event.message || "a script failed to load"}`);
  worker.postMessage({ type: "start", sampleRate: context.sampleRate, samples, control });
  return context.audioWorklet.addModule(new URL("listener-worklet.js", import.meta.url)).then(() => {
    const writer = new AudioWorkletNode(context, "nearcast-ring-writer", {
      numberOfInputs: 1, numberOfOutputs: 1, outputChannelCount: [1], channelCount: 1, channelCountMode: "explicit",
      processorOptions: { samples, control },
    });
    source.connect(writer);
    writer.connect(context.destination);   // pulls the node; its output is silence
  });
}

function showStats(stats) {
  const perSecond = stats.audioSeconds > 0 ? stats.decodeMs / stats.audioSeconds : 0;
  Object.assign($("stats").dataset, {
    decodeMsPerAudioSecond: perSecond.toFixed(3), audioSeconds: stats.audioSeconds.toFixed(1), overruns: stats.overruns,
  });
  $("stats").textContent = `Decoder: ${perSecond.toFixed(1)} ms of CPU per second of audio, `
    + `${stats.audioSeconds.toFixed(0)} s heard`
    + (stats.overruns ? `, ${stats.overruns} gaps (the phone was too busy)` : "")
    + (firstMessageMs !== null ? `; first message ${(firstMessageMs / 1000).toFixed(1)} s after the page opened` : "");
}

async function start() {
  startButton.hidden = true;
  if (!window.crossOriginIsolated) {
    setState("problem", "This page is not cross-origin isolated, so it cannot share audio with its decoder: "
      + "the server must send Cross-Origin-Opener-Policy: same-origin and Cross-Origin-Embedder-Policy: require-corp.");
    return;
  }
  if (!navigator.mediaDevices || !navigator.mediaDevices.getUserMedia) {
    setState("problem", "This browser gives no microphone to this page (it must be opened over HTTPS).");
    return;
  }
  if (!window.AudioWorkletNode) {
    setState("problem", "This browser lacks AudioWorklet, which the listener needs.");
    return;
  }
  setState("starting", "Asking for the microphone…");
  let stream;
  try {
    stream = await navigator.mediaDevices.getUserMedia({
      audio: { echoCancellation: false, noiseSuppression: false, autoGainControl: false, channelCount: 1 },
    });
  } catch (error) {
    setState("problem", microphoneProblem(error));
    return;
  }
  try {
    context = new AudioContext({ sampleRate: 48_000, latencyHint: "playback" });
  } catch {
    context = new AudioContext({ latencyHint: "playback" });   // a browser that cannot resample
  }
  if (context.sampleRate !== 48_000 && context.sampleRate !== 44_100) {
    setState("problem", `This browser gives audio at ${context.sampleRate} Hz, which cannot carry 18.5–20 kHz `
      + "(the listener needs 44.1 or 48 kHz).");
    return;
  }
  const source = context.createMediaStreamSource(stream);
  stream.getAudioTracks()[0].addEventListener("ended", () => {
    setState("stopped", "The microphone was disconnected. Reload the page to listen again.");
  });
  await startDecoder(source);
  startBandMeter(source);
  if (context.state !== "running") await context.resume().catch(() => {});
  if (context.state !== "running") {
    setState("starting", "Tap Listen to start (the browser waits for a tap before it plays or records audio).");
    startButton.hidden = false;
    startButton.onclick = async () => {
      await context.resume();
      startButton.hidden = true;
      showListening();
    };
    return;
  }
  showListening();
}

(async () => {
  if (!hub && location.protocol.startsWith("http") && await servedByHub()) hub = location.origin;
  await start();
})().catch((error) => setState("problem", `The listener could not start: ${error.message}`));
