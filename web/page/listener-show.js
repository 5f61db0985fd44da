// The listener page's presentation: when a resolve says the box this phone hears carries a show
// (Nearcast Present, the answer's `hasShow`), its current slide, edge to edge, followed live (a tap enlarges it); paging back through
// the pages the presenter has shown (never ahead) and a button back to live; a reaction bar whose
// taps carry the proof that this phone is in the room: the EID it heard most recently, else a pass
// it got for the code on the presenter's screen (typed, or in the QR code's address). The page
// offers that code as soon as it knows it hears nothing, and keeps a pass alive while it hears the
// box. When the box has not been heard for two minutes (and no pass holds) the page says so and
// stops following.
//
// The API is docs/present-api.md. listener.js calls `startShows` once, `heardRoom` for every burst,
// `heardBeacon` for every burst of a resolved token, `resolvedBeacon` for every resolve's answer
// (the page asks for a show only when one says the beacon has one), `listeningStarted` /
// `listeningFailed` / `browserFilters` as the microphone goes (and `bandSilent` when nothing
// reaches it); it asks `resolvingKey` which key resolves what it hears, `followsShowOf` how soon
// to resolve a beacon's tokens again, and shows `situation` in its status line.
//
// URL parameters (all optional, for a demonstration or a test; the page behaves the same otherwise):
// lostAfter=SECONDS (at least 10) shortens the two minutes before "lost"; renewWithin=SECONDS
// (60-600) renews a pass by hearing when that much of it is left, instead of 5 minutes.

import { watchTokenFor } from "./listener-messages.js";
import { forgetPhoneId, lastRefusal, phoneHeaders, phoneIdFor, phoneQuery } from "./phone-id.js";
import { reachJoined } from "./listener-reach.js";

const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);

// Nearby's "lost": the box unheard this long.
const lostAfterMs = Math.max(10, Number(params.get("lostAfter")) || 120) * 1000;
const proofForMs = 240_000;         // an EID heard this long ago is past the hub's window (2 periods of 2^7 s)
const offerCodeAfterMs = 8_000;     // listening this long without following a show, the page offers the code
const endedQuietMs = 60_000;       // after a show ends, this long without offering the code (nothing is on a screen to type)
const passLifetimeMs = 600_000;     // a pass lasts 10 minutes (the hub says exactly when it gives one)
// A pass is renewed by hearing once this much of it is left: long enough for a few tries (a lost
// request, a burst missed) before it runs out; the same margin asks a phone that does not hear
// for the current code.
const renewWithinMs = Math.min(600, Math.max(60, Number(params.get("renewWithin")) || 300)) * 1000;
const renewRetryMs = 20_000;        // a renewal that failed is tried again after this


const state = {
  hub: "",
  publicKey: "",
  pass: null,              // {id, beacon, expiresAt, proof, renewalTriedAt, revoked} from the code (typed or the QR's) or hearing
  passRenewals: 0,
  beacons: new Map(),      // beacon id ("4!hex") -> {heardAt, eid: {observed, at} | null}
  heardRoomAt: null,       // when this page last decoded any box's token
  show: null,              // the hub's show object for `beacon`
  beacon: null,            // the beacon id whose show this page follows
  opening: null,           // the beacon id whose show is being asked for now
  source: null,            // EventSource of the show's events
  sourceKey: null,         // the key that EventSource was opened with
  viewing: null,           // the page shown when not following live
  lost: false,
  startedAt: performance.now(),
  listeningSince: null,    // when the microphone started feeding the decoder
  listeningFailed: false,
  filtering: null,         // what the browser's capture settings say it still filters, or null
  bandSilent: false,       // no sound at all in the box's bands reaches the microphone
  endedAt: null,           // when the show followed last ended (the phone then asks for nothing for a while)
  onSituation: () => {},
};

// A pass ends when it expires, or when its show revokes it (a new code, joining by code turned
// off, a new show): a revoked pass proves nothing, but until it expires it still names the
// project, so hearing the box renews it.
const passExpired = () => !state.pass || performance.now() > state.pass.expiresAt;
const passHolds = () => !passExpired() && !state.pass.revoked;
const validPassFor = (id) => (state.pass && state.pass.beacon === id && passHolds() ? state.pass.id : null);
const keyFor = () => validPassFor(state.beacon) || state.publicKey;
/** `?key=` with what reads the followed box now: its pass, or the public key with the watch token
 * from resolving the box (a deck's pages are not seen with the public key alone). */
function readQuery() {
  const key = keyFor();
  const token = key === state.publicKey ? watchTokenFor(`beacons/${state.beacon}`) : "";
  return `?key=${encodeURIComponent(key)}${token ? `&token=${encodeURIComponent(token)}` : ""}`;
}
const beaconIdOf = (name) => String(name).replace(/^beacons\//, "");

/** Starts the show part: `hub` the hub's origin, `publicKey` the page's ?key= (none when the page
 * was opened by the QR code), `onSituation` called when what `situation()` says may have changed.
 * A `#pass=&beacon=` fragment (the hub's /j/CODE sends a phone here so) joins that beacon's show at once. */
export function startShows(hub, publicKey, { onSituation = () => {} } = {}) {
  state.hub = hub;
  state.publicKey = publicKey;
  state.onSituation = onSituation;
  const fragment = new URLSearchParams(location.hash.slice(1));
  if (fragment.get("pass") && fragment.get("beacon")) {
    adoptPass({ pass: fragment.get("pass"), beaconName: fragment.get("beacon"), proof: "seen" });
    reachJoined("qr", `beacons/${state.pass.beacon}`);
    history.replaceState(null, "", location.pathname + location.search);
    openShow(state.pass.beacon);
  }
  $("join-by-code").addEventListener("submit", (event) => {
    event.preventDefault();
    joinByCode($("code").value);
  });
  $("back").addEventListener("click", () => view(neighbourPage(-1)));
  $("ahead").addEventListener("click", () => view(neighbourPage(+1)));
  $("live").addEventListener("click", () => view(null));
  startZoom();
  setInterval(tick, 1_000);
  tick();
}

/** The key that resolves what this page hears: the project's public key, else a pass (the QR
 * code's address carries only a pass, and the hub resolves with it too). "" when there is none. */
export function resolvingKey() {
  return state.publicKey || (passExpired() ? "" : state.pass.id);
}

/** A burst of any token: this phone hears a box (whether or not the hub knows it). */
export function heardRoom() {
  state.heardRoomAt = performance.now();
}

/** A burst of a token the hub resolved to `beaconName`; one of `kind` "eid" is a proof of presence. */
export function heardBeacon(beaconName, burst) {
  const id = beaconIdOf(beaconName);
  const now = performance.now();
  let beacon = state.beacons.get(id);
  if (!beacon) {
    beacon = { heardAt: now, eid: null };
    state.beacons.set(id, beacon);
  }
  beacon.heardAt = now;
  if (burst.kind === "eid") beacon.eid = { observed: burst.advertisedId, at: now };
  if (state.beacon === id && state.lost) {
    state.lost = false;
    openShow(id);   // back in range: follow again
  }
  renewPassByHearing();
  renderProof();
}

/** A resolve answered `beaconName` (heard just now): `hasShow`, whether it carries a show. The
 * show is asked for only then, so a page that hears a box without one asks the hub nothing more;
 * it learns of a show that starts later when it next resolves (listener.js resolves the tokens of
 * a beacon whose show it does not follow again after 15 s, when heard). */
export function resolvedBeacon(beaconName, hasShow) {
  const id = beaconIdOf(beaconName);
  if (hasShow && !state.beacon && state.opening === null) openShow(id);
}

/** Whether this page follows the show of `beaconName` now. */
export function followsShowOf(beaconName) {
  return state.beacon === beaconIdOf(beaconName) && state.show !== null && !state.lost;
}

/** The microphone feeds the decoder from now: the code is offered if no show follows soon. */
export function listeningStarted() {
  if (state.listeningSince !== null) return;
  state.listeningSince = performance.now();
  document.body.dataset.listeningSinceMs = state.listeningSince.toFixed(0);
  setTimeout(tick, offerCodeAfterMs + 50);   // on time, not up to a second late
  tick();
}

/** The microphone cannot be used here: the code is the only way in, so it is offered at once. */
export function listeningFailed() {
  state.listeningFailed = true;
  tick();
}

/** The browser kept its own echo cancellation or noise suppression on (it ignored the page's
 * request): such a microphone hears neither band, so the code is offered at once, saying why. */
export function browserFilters(what) {
  state.filtering = what;
  tick();
}

/** Whether any sound in the box's bands reaches the microphone (listener.js's band meter says
 * after a few seconds): when none does, the page knows it hears nothing and offers the code. */
export function bandSilent(silent) {
  state.bandSilent = silent;
  tick();
}

/** What the audience should read about the show now, in words: {kind, text}, or null when the
 * page neither follows nor offers the code (listener.js then says it is listening). `kind`:
 * "following", "lost", or "join" (the code box is offered). */
export function situation() {
  if (state.beacon && state.lost) return { kind: "lost", text: lostText() };
  if (state.beacon && state.show) return { kind: "following", text: "Following the presentation" };
  if (!$("join-by-code").hidden) return { kind: "join", text: "Join with the code on the screen" };
  return null;
}

function lostText() {
  return state.pass
    ? "Lost the room: your code has expired and this phone has not heard the room's box for two minutes. Type the code on the screen again."
    : "Lost the room: this phone has not heard the room's box for two minutes, so it stopped following. Come back in range, or type the code on the screen.";
}

// --- The show ------------------------------------------------------------------------------------

async function openShow(id) {
  state.opening = id;
  try {
    await askForShow(id);
  } finally {
    if (state.opening === id) state.opening = null;
  }
}

/** `renewed`: asked again with a pass just renewed by hearing (or with the public key). */
async function askForShow(id, renewed = false) {
  if (!state.hub) return;
  const key = validPassFor(id) || state.publicKey;
  if (!key) return;
  // The public key follows a show only with the token from resolving its box (a pass needs none).
  const token = key === state.publicKey ? watchTokenFor(`beacons/${id}`) : "";
  const grant = token ? `&token=${encodeURIComponent(token)}` : "";
  let response;
  try {
    response = await fetch(`${state.hub}/v1/shows/${id}?key=${encodeURIComponent(key)}${grant}`, { cache: "no-store", headers: phoneHeaders() });
  } catch (error) {
    showState(`The hub cannot be reached (${error.message}).`);
    return;
  }
  if (response.status === 404) return;   // the show ended meanwhile: the next resolve says when there is one
  if (response.status === 403 && !renewed && state.pass && key === state.pass.id) {
    // The pass was revoked (a new code revokes every pass of the show, the ones renewed since a
    // stream was opened too; so do joining by code turned off and a new show): renew it by
    // hearing, else follow with the public key if the page has it.
    if (await renewRevokedPass() || state.publicKey) return askForShow(id, true);
    return showState(revokedText);
  }
  if (!response.ok) {
    showState(`The hub refused the presentation: ${await errorMessage(response)}`);
    return;
  }
  if (state.beacon && state.beacon !== id && !state.lost) return;   // already following another box
  state.beacon = id;
  state.lost = false;
  setShow(await response.json());
  follow(id, key, grant);
  tick();
}

function follow(id, key, grant) {
  if (state.source) state.source.close();
  const source = new EventSource(`${state.hub}/v1/shows/${id}/events?key=${encodeURIComponent(key)}${grant}${phoneQuery()}`);
  state.source = source;
  state.sourceKey = key;
  source.addEventListener("show", (event) => {
    setShow(JSON.parse(event.data));
    showState("");
  });
  // The show ended (not a pass refused or revoked: then the code on the screen is what to type):
  // the phone says what happened and what is next, and asks for nothing for a while.
  source.addEventListener("ended", () => {
    state.endedAt = performance.now();
    endShow(endedText(state.show));
  });
  // The pass this stream was opened with was revoked or expired: renew it by hearing if this phone
  // hears the box, then follow again with what holds; else ask for the code on the screen.
  // (Any pass held now is taken as revoked too: one renewed since the stream opened was given
  // under the same code. A pass renewed after the revocation costs one renewal more, no harm.)
  source.addEventListener("revoked", async () => {
    source.close();
    if (state.source === source) state.source = null;
    if (await renewRevokedPass() && state.beacon === id) return openShow(id);
    if (state.beacon !== id) return;
    if (state.publicKey) return openShow(id);
    endShow(revokedText);
  });
  source.onerror = () => {
    if (source.readyState !== EventSource.CLOSED) {
      showState("Reconnecting to the presentation…");   // EventSource reconnects by itself
    } else if (keyFor() && keyFor() !== state.sourceKey) {
      // Refused with the key it was opened with (a pass since renewed): open it with the new one.
      openShow(id);
    } else {
      // Refused (an expired pass, a removed show): stop; the next heard EID asks again.
      endShow("The hub stopped sending this presentation.");
    }
  };
}

const revokedText = "The presenter changed the code, so this phone stopped following: type the code on the screen to follow again.";

/** The pass held was refused or its stream revoked: marks it so, and renews it by hearing if this
 * phone hears the box. True when a pass that holds is held after. */
async function renewRevokedPass() {
  if (!state.pass) return false;
  state.pass.revoked = true;
  state.pass.renewalTriedAt = -Infinity;
  await renewPassByHearing();
  return validPassFor(state.pass.beacon) !== null;
}

/** What the phone says when its show ends: the talk, and what comes next in the room if the
 * schedule says. */
function endedText(show) {
  const room = show && show.room;
  if (!room) return "The presentation has ended.";
  if (!room.next) return `The talk has ended. Nothing more is scheduled in ${room.name}.`;
  return `The talk has ended. Next here: ${room.next.title} at ${clockTime(room.next.start)}.`;
}

/** "14:00" in the phone's own zone, from an RFC 3339 time. */
function clockTime(time) {
  return new Date(time).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
}

/** The room line under the title: the room, and the next talk when one is not on now. */
function roomLine(room) {
  if (!room) return "";
  const next = room.next ? `next: ${room.next.title} at ${clockTime(room.next.start)}` : "";
  return [room.name, next].filter(Boolean).join(" \u00b7 ");
}

function endShow(text) {
  if (state.source) state.source.close();
  state.source = null;
  state.show = null;
  state.beacon = null;
  state.viewing = null;
  $("show").hidden = true;
  document.body.classList.remove("following");
  showState(text);
  tick();
}

/** A show object from the hub: a page turn, a new `shown`, or another deck (the presenter switched
 * decks: the phone goes to the new deck's page at once; the show, and this phone's place in it,
 * carry on). */
function setShow(show) {
  const deckChanged = !state.show || state.show.deck !== show.deck;
  state.show = show;
  if (deckChanged || (state.viewing !== null && !shownPages().includes(state.viewing))) state.viewing = null;
  $("show").hidden = false;
  document.body.classList.add("following");
  $("show-title").textContent = show.title;
  document.title = show.title || "Nearcast";
  const line = roomLine(show.room);
  $("show-room").textContent = line;
  $("show-room").hidden = line === "";
  state.endedAt = null;
  if (deckChanged || JSON.stringify(show.reactions) !== $("reaction-bar").dataset.choices) buildReactionBar(show.reactions);
  render();
  readyPhoneId();
}

/** Starts earning this phone's id for the show as soon as there is a proof (the work takes about a
 * second on a phone, in a worker), so it is there before the first tap. */
function readyPhoneId() {
  const observed = proof();
  // Earned with reactions off too: the id is also the phone's own budget at the hub.
  if (!state.show || !observed) return null;
  return phoneIdFor(state.hub, keyFor(), state.beacon, state.show, observed);
}

/** The pages the audience may open, ascending: the hub's `shown` (every page that stayed on the
 * projected screen, and the current one), else (an older hub) every page up to `shownUpTo`. */
function shownPages() {
  const show = state.show;
  if (!show) return [];
  if (Array.isArray(show.shown) && show.shown.length > 0) return show.shown;
  return Array.from({ length: show.shownUpTo }, (_, index) => index + 1);
}

const currentPage = () => state.viewing ?? (state.show ? state.show.page : 1);

/** The shown page before (`step` -1) or after (+1) the one on this phone, or null. */
function neighbourPage(step) {
  const page = currentPage();
  const pages = shownPages();
  return step < 0 ? pages.filter((p) => p < page).at(-1) ?? null : pages.find((p) => p > page) ?? null;
}

/** Shows `page` (one of the shown pages); `null` is live. */
function view(page) {
  if (!state.show) return;
  if (page !== null && !shownPages().includes(page)) return;
  state.viewing = page === state.show.page ? null : page;
  render();
}

function render() {
  const show = state.show;
  const page = currentPage();
  const live = state.viewing === null;
  $("show").dataset.following = String(live);
  $("page-label").textContent = `${page} / ${show.pages}${live ? "" : ` (live: ${show.page})`}`;
  $("back").disabled = neighbourPage(-1) === null;
  $("ahead").disabled = neighbourPage(+1) === null;
  $("live").hidden = live;
  const slide = $("slide");
  // Keyed by deck and page, not by URL: a renewed pass changes the URL, not the picture.
  const wanted = `${show.deck}/${page}`;
  if (slide.dataset.wanted !== wanted) {
    slide.dataset.wanted = wanted;
    const url = `${state.hub}/v1/decks/${show.deck}/pages/${page}${readQuery()}${phoneQuery()}`;
    const image = new Image();
    image.onload = () => {
      if (slide.dataset.wanted !== wanted) return;   // moved on while it loaded
      slide.src = url;
      Object.assign(slide.dataset, { page, deck: show.deck, shownMs: performance.now().toFixed(0) });
      slide.alt = `${show.title}, slide ${page}`;
      $("zoom-slide").src = url;
      $("zoom-slide").alt = slide.alt;
    };
    image.onerror = () => {
      if (slide.dataset.wanted !== wanted) return;
      slide.dataset.wanted = "";   // the next show event tries again (with a renewed key, say)
      showState(`Slide ${page} could not be loaded.`);
    };
    image.src = url;
  }
}

// --- Enlarging the slide ---------------------------------------------------------------------------
// A tap on the slide opens it alone on black, fitted to the screen (it keeps following); a tap on
// it there zooms to 2.5x around the tapped point, and back. Pinch zoom is the browser's own.

function startZoom() {
  const dialog = $("zoom");
  $("slide").addEventListener("click", () => {
    if (!$("slide").src) return;
    delete dialog.dataset.zoomed;
    dialog.showModal();
  });
  $("zoom-close").addEventListener("click", () => dialog.close());
  $("zoom-slide").addEventListener("click", (event) => toggleZoom(event));
}

function toggleZoom(event) {
  const dialog = $("zoom");
  const scroller = $("zoom-scroller");
  const image = $("zoom-slide");
  const box = image.getBoundingClientRect();
  const [x, y] = [(event.clientX - box.left) / box.width, (event.clientY - box.top) / box.height];
  if (dialog.dataset.zoomed === "true") {
    delete dialog.dataset.zoomed;
    return;
  }
  dialog.dataset.zoomed = "true";
  // Keep the tapped point under the finger: scroll so it lands where it was tapped.
  const zoomed = image.getBoundingClientRect();
  scroller.scrollLeft = x * zoomed.width - (event.clientX - scroller.getBoundingClientRect().left);
  scroller.scrollTop = y * zoomed.height - (event.clientY - scroller.getBoundingClientRect().top);
}

// --- Reactions -------------------------------------------------------------------------------------

function buildReactionBar(reactions) {
  const bar = $("reaction-bar");
  bar.dataset.choices = JSON.stringify(reactions);
  bar.replaceChildren();
  bar.hidden = !reactions.enabled;
  for (const choice of reactions.choices) {
    const button = document.createElement("button");
    button.type = "button";
    button.dataset.reaction = choice.value;
    if (choice.kind === "image") {
      const image = document.createElement("img");
      image.alt = choice.value;
      image.src = `${state.hub}${choice.url}?key=${encodeURIComponent(keyFor())}${phoneQuery()}`;
      button.append(image);
    } else {
      button.textContent = choice.value;
    }
    button.setAttribute("aria-label", `React ${choice.value}`);
    button.addEventListener("click", () => react(choice.value, button));
    bar.append(button);
  }
  renderProof();
}

/** The EID heard from beacon `id` recent enough for the hub to take it as proof, or null. */
function freshEid(id) {
  const beacon = state.beacons.get(id);
  return beacon && beacon.eid && performance.now() - beacon.eid.at < proofForMs ? beacon.eid : null;
}

/** The proof a tap would carry now: the last EID heard from the show's box (the stronger proof,
 * and it needs no pass), else the pass. */
function proof() {
  if (!state.beacon) return null;
  const eid = freshEid(state.beacon);
  if (eid) return eid.observed;
  const pass = validPassFor(state.beacon);
  return pass ? { type: "NEARCAST_PASS", id: pass } : null;
}

let coolingUntil = 0;

function renderProof() {
  const bar = $("reaction-bar");
  const proven = proof() !== null && !state.lost;
  const cooling = performance.now() < coolingUntil;
  for (const button of bar.children) button.disabled = !proven || cooling;
  if (proven) readyPhoneId();   // earned once per show (kept), so this costs nothing after
  bar.dataset.proof = proven ? (proof().type === "NEARCAST_PASS" ? "code" : "heard") : "none";
  if (!state.show || !state.show.reactions.enabled) {
    $("reaction-state").textContent = "";
  } else if (!proven) {
    $("reaction-state").textContent = "To react, this phone must hear the room's box (or enter the code on the screen).";
  } else if ($("reaction-state").dataset.sticky !== "true") {
    $("reaction-state").textContent = "";
  }
}

/** Answers after which a tap is sent again (with the same key): the hub's balancer lost the hub
 * (502, 504) or waited too long for the tap's body (408: it never reached a hub), or the hub
 * could not count it now (503). */
const tapSentAgainOn = [408, 502, 503, 504];
/** How long a tap waits before each time it is sent again: twice, within 2 s, then the phone says so. */
const tapRetryDelaysMs = [400, 1500];

/** A new tap's key (`Idempotency-Key`): 128 random bits in hex. */
function newTapKey() {
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (byte) => byte.toString(16).padStart(2, "0")).join("");
}

async function react(value, button) {
  const observed = proof();
  if (!observed) return renderProof();
  button.classList.add("sent");
  setTimeout(() => button.classList.remove("sent"), 300);
  const show = state.show, beacon = state.beacon;
  const phone = await readyPhoneId();
  if (!phone) return reactionState(`Not sent: this phone has no id from the hub yet (${lastRefusal || "try again"}).`);
  // The tap's key: the hub counts a tap sent again with its key once, so a tap whose answer was
  // lost (a hub lost under the show, a dropped connection, a 502 or 503) is sent again as is.
  const tap = newTapKey();
  let response;
  for (let attempt = 0; ; attempt++) {
    try {
      response = await fetch(`${state.hub}/v1/reactions`, {
        method: "POST",
        headers: { "Content-Type": "application/json", "X-Api-Key": keyFor(), "Idempotency-Key": tap, ...phoneHeaders() },
        body: JSON.stringify({ observed, reaction: value, phone }),
      });
      if (!tapSentAgainOn.includes(response.status) || attempt >= tapRetryDelaysMs.length) break;
    } catch (error) {
      if (attempt >= tapRetryDelaysMs.length) return reactionState(`Not sent: the hub cannot be reached (${error.message}).`);
    }
    document.body.dataset.tapsSentAgain = String(Number(document.body.dataset.tapsSentAgain || 0) + 1);
    await new Promise((resolve) => setTimeout(resolve, tapRetryDelaysMs[attempt]));
  }
  if (response.status === 202) return reactionState("");
  const message = await errorMessage(response);
  if (response.status === 429) {
    const seconds = Number(response.headers.get("Retry-After")) || 1;
    coolingUntil = performance.now() + seconds * 1000;
    reactionState(`Slow down: reactions again in ${seconds} s.`);
    setTimeout(() => { reactionState(""); renderProof(); }, seconds * 1000);
    renderProof();
  } else if (response.status === 403 && /^phone:/.test(message)) {
    // The id expired or is another show's: the next tap earns a new one.
    forgetPhoneId(beacon, show);
    readyPhoneId();
    reactionState("Not sent: this phone's id had expired; tap again in a moment.");
  } else if (response.status === 403) {
    // The EID is past the hub's window (or the pass expired, or reactions were switched off).
    const beacon = state.beacons.get(state.beacon);
    if (beacon && observed.type === "EDDYSTONE_EID") beacon.eid = null;
    if (state.pass && observed.type === "NEARCAST_PASS") state.pass.revoked = true;
    reactionState(`Not accepted: ${message}`);
    renderProof();
  } else {
    reactionState(`Not accepted: ${message}`);
  }
}

function reactionState(text) {
  $("reaction-state").textContent = text;
  $("reaction-state").dataset.sticky = String(text !== "");
}

// --- Passes: the code on the screen, and keeping one while hearing ------------------------------------

/** Takes a pass the hub gave (`POST /v1/presence`, or the QR code's address): {pass, beaconName,
 * expiresMs?, expiresTime?, proof?}. Its expiry is kept on the page's monotonic clock. */
function adoptPass(answer) {
  const expiresMs = Number.isFinite(answer.expiresMs) ? answer.expiresMs : Date.parse(answer.expiresTime);
  const lifetime = Number.isFinite(expiresMs) ? Math.max(0, expiresMs - Date.now()) : passLifetimeMs;
  state.pass = { id: answer.pass, beacon: beaconIdOf(answer.beaconName), expiresAt: performance.now() + lifetime,
                 proof: answer.proof || "seen", renewalTriedAt: -Infinity };
  Object.assign(document.body.dataset, { passProof: state.pass.proof, passRenewals: state.passRenewals,
                                         passExpires: new Date(Date.now() + lifetime).toISOString() });
}

/** While this phone hears the box, its pass is renewed before it runs out (POST /v1/presence with
 * the heard EID, the pass as the key): a phone that joined by the QR code is never dropped while
 * it hears the room. */
async function renewPassByHearing() {
  const pass = state.pass;
  const now = performance.now();
  if (!pass || (!pass.revoked && pass.expiresAt - now > renewWithinMs) || now - pass.renewalTriedAt < renewRetryMs) return;
  const eid = freshEid(pass.beacon);
  if (!eid) return;
  pass.renewalTriedAt = now;
  const key = passExpired() ? state.publicKey : pass.id;
  if (!key) return;
  let response;
  try {
    response = await fetch(`${state.hub}/v1/presence`, {
      method: "POST", headers: { "Content-Type": "application/json", "X-Api-Key": key, ...phoneHeaders() },
      body: JSON.stringify({ observed: eid.observed }),
    });
  } catch {
    return;   // tried again after renewRetryMs, while heard
  }
  if (!response.ok || state.pass !== pass) return;
  state.passRenewals += 1;
  adoptPass(await response.json());
  tick();
}

async function joinByCode(text) {
  const code = text.trim().toUpperCase().replace(/[^0-9A-Z]/g, "");
  if (!code) return codeState("Type the code shown on the presenter's screen.");
  codeState("Checking the code…");
  let response;
  try {
    response = await fetch(`${state.hub}/v1/presence`, {
      method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ code }),
    });
  } catch (error) {
    return codeState(`The hub cannot be reached (${error.message}).`);
  }
  if (!response.ok) return codeState(`Not accepted: ${await errorMessage(response)}`);
  adoptPass(await response.json());
  const beacon = state.pass.beacon;
  reachJoined("code", `beacons/${beacon}`);
  $("code").value = "";
  codeState("");
  if (state.beacon === beacon && !state.lost) return tick();   // a renewal: the show goes on
  if (state.beacon && state.beacon !== beacon) endShow("");
  state.lost = false;
  await openShow(beacon);
}

function codeState(text) {
  $("code-state").textContent = text;
}

// --- Every second: lost, proof, the code offer ----------------------------------------------------

function tick() {
  const now = performance.now();
  if (state.beacon && !state.lost) {
    const beacon = state.beacons.get(state.beacon);
    const heardRecently = beacon && now - beacon.heardAt < lostAfterMs;
    const sinceOpened = now - state.startedAt;
    if (!heardRecently && !passHolds() && (beacon || sinceOpened > lostAfterMs)) {
      state.lost = true;
      if (state.source) state.source.close();
      state.source = null;
      showState("");
      $("show").dataset.lost = "true";
    }
  }
  if (!state.lost) delete $("show").dataset.lost;
  offerCode(codeOffer(now));
  if (state.show) renderProof();
  state.onSituation();
}

/** Why the code box is offered now (a sentence, or "" for no sentence), or null when it is not. */
function codeOffer(now) {
  const following = state.beacon !== null && !state.lost;
  if (following) {
    // Following on a pass alone (not hearing), it needs the current code before the pass runs out.
    const left = state.pass && state.pass.beacon === state.beacon ? (state.pass.revoked ? 0 : state.pass.expiresAt - now) : Infinity;
    if (left > renewWithinMs || freshEid(state.beacon)) return null;
    if (state.pass.revoked) return "The presenter changed the code: type the new code on the screen to keep following.";
    return `Your code runs out in ${Math.max(1, Math.ceil(left / 60_000))} min: type the code on the screen now to keep following.`;
  }
  if (state.lost) return "";
  // A show just ended: the phone said what happened and asks for nothing (no code is on a screen).
  if (state.endedAt !== null && now - state.endedAt < endedQuietMs) return null;
  if (state.listeningFailed) return "This phone cannot listen here: type the code on the screen.";
  const since = state.listeningSince ?? state.startedAt;
  const waited = now - since >= offerCodeAfterMs;
  // A box heard whose show this page does not follow (it has none): the code is still offered, for
  // a show on another screen, with no reason that would not be true.
  if (state.heardRoomAt !== null) return waited ? "" : null;
  if (state.filtering) return "This browser filters its microphone, so it may not hear the room: type the code on the screen.";
  if (state.bandSilent) return "No sound from the room's box reaches this phone's microphone: type the code on the screen.";
  return waited ? "This phone has not heard the room yet." : null;
}

function offerCode(why) {
  const form = $("join-by-code");
  const offered = why !== null;
  if (offered && form.hidden) form.dataset.offeredMs = performance.now().toFixed(0);
  form.hidden = !offered;
  if ($("code-why").textContent !== (why || "")) $("code-why").textContent = why || "";   // once a second: only changes
  $("code-why").hidden = !why;
}

function showState(text) {
  $("show-state").textContent = text;
  $("show-state").hidden = text === "";
}

async function errorMessage(response) {
  try {
    return (await response.json()).error.message;
  } catch {
    return `HTTP ${response.status}`;
  }
}
