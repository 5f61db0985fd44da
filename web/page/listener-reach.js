// The rooms' reach: what this visit of the listener page heard, told to the hub anonymously
// (POST /v1/reach, docs/present-api.md) so that the venue learns from real shows which phones
// hear its boxes. A report says the kind of phone (phone-kind.js), what the browser granted of
// the microphone, each band's level, the decoder's bursts, the time to the first token, how the
// phone joined its box and which box; never anything that tells this phone from another.
//
// Sent once the visit has something to say (it joined a box, or listened a while and found
// none) and again when that changes (another box, the first token): at once. Its counts and
// levels, which move with every burst, go at most every 5 minutes while they change, and when
// the page is hidden. Each report carries the receipt the hub gave the one before, which the hub
// takes back: a visit counts once however often it reports. The receipt stays in the tab's
// sessionStorage, so a reload is the same visit.
//
// listener.js calls `startReach` once, `reachCapture` with the microphone's track,
// `reachListening` when audio reaches the decoder, `reachHeard` for every burst, `reachStats`
// with the decoder's stats (once a second), `reachLevels` with the band meter's levels; listener.js and
// listener-show.js call `reachJoined` when the phone finds its box (by ear, the code, the QR code).

import { phoneKind } from "./phone-kind.js";
import { phoneHeaders } from "./phone-id.js";

const receiptKey = "nearcast-reach-receipt";
const quietMs = 30_000;          // without a box this long after the page opened: reported as none found
const countsEveryMs = 300_000;   // the counts and levels, at most this often while they change
const tickMs = 5_000;
const floorDb = -160;            // the levels' histogram: 1 dB bins from here to 10 dB

const visit = {
  hub: "",
  key: () => "",
  startedAt: performance.now(),
  kind: null,
  capture: null,
  listeningSince: null,
  firstTokenMs: null,
  joinedBy: "none",
  beaconName: null,
  detected: 0,
  decoded: 0,
  levels: { high: new Uint32Array(10 - floorDb + 1), low: new Uint32Array(10 - floorDb + 1) },
  sent: null,              // {moment, all}: what the last report said (its JSON without the receipt)
  sentAt: -Infinity,
  sending: false,
  waitUntil: 0,            // after a 429: not before this
  receipt: null,
};

/** Starts the visit's reports to `hub` with `key()` (the public key, or the pass a phone got for
 * the code). Nothing is sent without a hub or a key. */
export function startReach(hub, key) {
  visit.hub = hub;
  visit.key = key;
  try {
    visit.receipt = sessionStorage.getItem(receiptKey);
  } catch { /* no storage: each load counts as a visit */ }
  phoneKind().then((kind) => {
    visit.kind = kind;
    report(false);
  });
  document.getElementById("reach-note").hidden = !hub;
  setInterval(() => report(false), tickMs);
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "hidden") report(true);
  });
}

/** What the browser granted of the page's microphone request (each setting as it reports it). */
export function reachCapture(track) {
  const settings = (track.getSettings && track.getSettings()) || {};
  const capture = {};
  if (Number.isInteger(settings.sampleRate)) capture.sampleRate = settings.sampleRate;
  for (const name of ["echoCancellation", "noiseSuppression", "autoGainControl"]) {
    if (typeof settings[name] === "boolean") capture[name] = settings[name];
  }
  visit.capture = capture;
}

/** Audio reaches the decoder from now: the first token's time counts from here. */
export function reachListening() {
  visit.listeningSince ??= performance.now();
}

/** A burst decoded (any box's token). */
export function reachHeard() {
  visit.decoded += 1;
  if (visit.firstTokenMs === null && visit.listeningSince !== null) {
    visit.firstTokenMs = Math.round(performance.now() - visit.listeningSince);
  }
}

/** The decoder's count of the bursts it demodulated (listener-worker.js's stats, once a second). */
export function reachStats(stats) {
  if (Number.isFinite(stats.candidates)) visit.detected = stats.candidates;
}

/** The band meter's levels now, dBFS per analyser bin: {high, low}. */
export function reachLevels(levels) {
  for (const band of ["high", "low"]) {
    const db = Number.isFinite(levels[band]) ? levels[band] : floorDb;
    visit.levels[band][Math.round(Math.min(10, Math.max(floorDb, db))) - floorDb] += 1;
  }
}

/** The phone found its box `beaconName`: "heard", "code" or "qr". The first way in is the
 * visit's; the box is the latest. */
export function reachJoined(how, beaconName) {
  if (visit.joinedBy === "none") visit.joinedBy = how;
  visit.beaconName = beaconName;
  setTimeout(() => report(false));   // after the caller's own work (a pass adopted): its key is ready
}

/** A band's median level over the visit, or null before the meter read it. */
function medianLevel(bins) {
  const total = bins.reduce((sum, count) => sum + count, 0);
  if (total === 0) return null;
  let below = 0;
  for (let i = 0; i < bins.length; i++) {
    below += bins[i];
    if (below * 2 >= total) return i + floorDb;
  }
  return null;
}

function body() {
  const bands = ["high", "low"].map((band) => ({ band, levelDb: medianLevel(visit.levels[band]) }))
    .filter((band) => band.levelDb !== null);
  const report = {
    platform: visit.kind.platform, browser: visit.kind.browser, joinedBy: visit.joinedBy,
    // The decoder's count comes with its stats, once a second: a burst decoded since was detected.
    bands, bursts: { detected: Math.max(visit.detected, visit.decoded), decoded: visit.decoded },
  };
  if (visit.beaconName) report.beaconName = visit.beaconName;
  if (visit.capture) report.capture = visit.capture;
  if (visit.firstTokenMs !== null) report.firstTokenMs = visit.firstTokenMs;
  return report;
}

/** Sends a report when the visit has one to send: at once when what it says of the phone changed
 * (its box, its way in, its first token), its counts at most every 5 minutes, anything unsaid
 * when `leaving` (the page hidden). */
async function report(leaving) {
  const key = visit.key();
  if (!visit.hub || !key || !visit.kind || visit.sending || performance.now() < visit.waitUntil) return;
  const now = performance.now();
  const said = body();
  const moment = JSON.stringify([said.beaconName, said.joinedBy, said.firstTokenMs !== undefined]);
  const all = JSON.stringify(said);
  if (visit.sent === null) {
    if (!visit.beaconName && !leaving && now - visit.startedAt < quietMs) return;
  } else if (visit.sent.all === all || (visit.sent.moment === moment && !leaving && now - visit.sentAt < countsEveryMs)) {
    return;
  }
  visit.sending = true;
  try {
    await send(said, key, leaving);
    visit.sent = { moment, all };
    visit.sentAt = now;
  } catch {
    // Tried again at the next tick: a report is worth little, and never worth a burst of retries.
  } finally {
    visit.sending = false;
  }
}

async function send(said, key, leaving) {
  const request = (receipt) => fetch(`${visit.hub}/v1/reach`, {
    method: "POST", keepalive: leaving,
    headers: { "Content-Type": "application/json", "X-Api-Key": key, ...phoneHeaders() },
    body: JSON.stringify(receipt ? { ...said, receipt } : said),
  });
  let response = await request(visit.receipt);
  if (response.status === 400 && visit.receipt && (await response.clone().json().catch(() => ({}))).error?.field === "receipt") {
    // A receipt this hub no longer takes (another hub, another project's key): a visit anew.
    keepReceipt(null);
    response = await request(null);
  }
  if (response.status === 429) {
    visit.waitUntil = performance.now() + 1000 * (Number(response.headers.get("Retry-After")) || 60);
    throw new Error("too many reports");
  }
  // Refused otherwise (the box deleted meanwhile, say): said nothing, and not said again until it changes.
  if (!response.ok) return;
  keepReceipt((await response.json()).receipt);
  document.body.dataset.reachReports = String(Number(document.body.dataset.reachReports || 0) + 1);   // for the tests
}

function keepReceipt(receipt) {
  visit.receipt = receipt;
  try {
    if (receipt) sessionStorage.setItem(receiptKey, receipt);
    else sessionStorage.removeItem(receiptKey);
  } catch { /* no storage: the receipt lives as long as the page */ }
}
