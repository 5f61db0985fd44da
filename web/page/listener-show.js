// The listener page's presentation: when the box this phone hears carries a show (Nearcast
// Present), its current slide, full width, followed live; paging back through the slides already
// shown (never ahead of the presenter) and a button back to live; a reaction bar whose taps carry
// the proof that this phone is in the room: the EID it heard most recently, or a pass it got for
// the code on the presenter's screen. The page offers that code after hearing nothing for a while.
// When the box has not been heard for two minutes the page says so and stops following.
//
// The API is docs/present-api.md. listener.js calls `heardBeacon` for every burst of a resolved
// token and `listeningFailed` when the microphone cannot be used.

const $ = (id) => document.getElementById(id);

// Nearby's "lost": the box unheard this long. `?lostAfter=SECONDS` (at least 10) shortens it for
// a demonstration or a test; the page behaves the same otherwise.
const lostAfterMs = Math.max(10, Number(new URLSearchParams(location.search).get("lostAfter")) || 120) * 1000;
const proofForMs = 240_000;         // an EID heard this long ago is past the hub's window (2 periods of 2^7 s)
const offerCodeAfterMs = 30_000;    // hearing no show this long, the page offers the code
const showRetryMs = 15_000;         // a heard beacon without a show is asked again after this
const passLifetimeMs = 600_000;     // a pass lasts 10 minutes (the hub says exactly when it joins by code)

const phoneId = (() => {
  let id = localStorage.getItem("nearcast.phone");
  if (!id) {
    id = crypto.randomUUID ? crypto.randomUUID() : Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, "0")).join("");
    localStorage.setItem("nearcast.phone", id);
  }
  return id;
})();

const state = {
  hub: "",
  publicKey: "",
  pass: null,              // {id, beacon, expiresAt} from the code on the screen
  beacons: new Map(),      // beacon id ("4!hex") -> {heardAt, eid: {base64, at} | null, askedAt}
  show: null,              // the hub's show object for `beacon`
  beacon: null,            // the beacon id whose show this page follows
  source: null,            // EventSource of the show's events
  viewing: null,           // the page shown when not following live
  lost: false,
  startedAt: performance.now(),
  listeningFailed: false,
};

const keyFor = () => (state.pass && state.pass.beacon === state.beacon && !passExpired() ? state.pass.id : state.publicKey);
const passExpired = () => !state.pass || performance.now() > state.pass.expiresAt;
const beaconIdOf = (name) => String(name).replace(/^beacons\//, "");

/** Starts the show part: `hub` the hub's origin, `publicKey` the page's ?key=. A `#pass=&beacon=`
 * fragment (the hub's /j/CODE sends a phone here so) joins that beacon's show at once. */
export function startShows(hub, publicKey) {
  state.hub = hub;
  state.publicKey = publicKey;
  const fragment = new URLSearchParams(location.hash.slice(1));
  if (fragment.get("pass") && fragment.get("beacon")) {
    state.pass = { id: fragment.get("pass"), beacon: beaconIdOf(fragment.get("beacon")), expiresAt: performance.now() + passLifetimeMs };
    history.replaceState(null, "", location.pathname + location.search);
    openShow(state.pass.beacon);
  }
  $("join-by-code").addEventListener("submit", (event) => {
    event.preventDefault();
    joinByCode($("code").value);
  });
  $("back").addEventListener("click", () => view(currentPage() - 1));
  $("ahead").addEventListener("click", () => view(currentPage() + 1));
  $("live").addEventListener("click", () => view(null));
  setInterval(tick, 1_000);
  tick();
}

/** A burst of a token the hub resolved to `beaconName`; `token.kind` "eid" carries a proof;
 * `watchToken` is what the hub gave with the resolve, which lets the public key follow the show. */
export function heardBeacon(beaconName, token, watchToken) {
  const id = beaconIdOf(beaconName);
  const now = performance.now();
  let beacon = state.beacons.get(id);
  if (!beacon) {
    beacon = { heardAt: now, eid: null, askedAt: -Infinity };
    state.beacons.set(id, beacon);
  }
  beacon.heardAt = now;
  if (watchToken) beacon.watchToken = watchToken;
  if (token.kind === "eid") beacon.eid = { base64: btoa(String.fromCharCode(...token.bytes)), at: now };
  if (state.beacon === id && state.lost) {
    state.lost = false;
    openShow(id);   // back in range: follow again
  } else if (!state.beacon && now - beacon.askedAt > showRetryMs) {
    beacon.askedAt = now;
    openShow(id);
  }
  renderProof();
}

/** The microphone cannot be used here: the code is the only way in, so it is offered at once. */
export function listeningFailed() {
  state.listeningFailed = true;
  tick();
}

// --- The show ------------------------------------------------------------------------------------

async function openShow(id) {
  if (!state.hub) return;
  const key = state.pass && state.pass.beacon === id && !passExpired() ? state.pass.id : state.publicKey;
  if (!key) return;
  // The public key follows a show only with the token from resolving its box (a pass needs none).
  const known = state.beacons.get(id);
  const grant = key === state.publicKey && known && known.watchToken ? `&token=${encodeURIComponent(known.watchToken)}` : "";
  let response;
  try {
    response = await fetch(`${state.hub}/v1/shows/${id}?key=${encodeURIComponent(key)}${grant}`, { cache: "no-store" });
  } catch (error) {
    showState(`The hub cannot be reached (${error.message}).`);
    return;
  }
  if (response.status === 404) return;   // this box carries no show (yet): asked again while heard
  if (!response.ok) {
    showState(`The hub refused the presentation: ${await errorMessage(response)}`);
    return;
  }
  if (state.beacon && state.beacon !== id && !state.lost) return;   // already following another box
  state.beacon = id;
  state.lost = false;
  setShow(await response.json());
  follow(id, key, grant);
}

function follow(id, key, grant) {
  if (state.source) state.source.close();
  const source = new EventSource(`${state.hub}/v1/shows/${id}/events?key=${encodeURIComponent(key)}${grant}`);
  state.source = source;
  source.addEventListener("show", (event) => {
    setShow(JSON.parse(event.data));
    showState("");
  });
  source.addEventListener("ended", () => endShow("The presentation has ended."));
  source.onerror = () => {
    if (source.readyState === EventSource.CLOSED) {
      // Refused (an expired pass, a removed show): stop; the next heard EID asks again.
      endShow("The hub stopped sending this presentation.");
    } else {
      showState("Reconnecting to the presentation…");   // EventSource reconnects by itself
    }
  };
}

function endShow(text) {
  if (state.source) state.source.close();
  state.source = null;
  state.show = null;
  const beacon = state.beacons.get(state.beacon);
  if (beacon) beacon.askedAt = performance.now();
  state.beacon = null;
  state.viewing = null;
  $("show").hidden = true;
  showState(text);
}

function setShow(show) {
  const deckChanged = !state.show || state.show.deck !== show.deck;
  state.show = show;
  if (deckChanged) state.viewing = null;
  if (state.viewing !== null && state.viewing > show.shownUpTo) state.viewing = null;
  $("show").hidden = false;
  $("show-title").textContent = show.title;
  if (deckChanged || JSON.stringify(show.reactions) !== $("reaction-bar").dataset.choices) buildReactionBar(show.reactions);
  render();
}

const currentPage = () => state.viewing ?? (state.show ? state.show.page : 1);

/** Pages back (never past what the presenter has shown); `null` is live. */
function view(page) {
  if (!state.show) return;
  if (page !== null) page = Math.min(Math.max(1, page), state.show.shownUpTo);
  state.viewing = page === state.show.page ? null : page;
  render();
}

function render() {
  const show = state.show;
  const page = currentPage();
  const live = state.viewing === null;
  $("show").dataset.following = String(live);
  $("page-label").textContent = `${page} / ${show.pages}${live ? "" : ` (live: ${show.page})`}`;
  $("back").disabled = page <= 1;
  $("ahead").disabled = page >= show.shownUpTo;
  $("live").hidden = live;
  const slide = $("slide");
  const url = `${state.hub}/v1/decks/${show.deck}/pages/${page}?key=${encodeURIComponent(keyFor())}`;
  if (slide.dataset.src !== url) {
    slide.dataset.src = url;
    const image = new Image();
    image.onload = () => {
      if (slide.dataset.src !== url) return;   // moved on while it loaded
      slide.src = url;
      slide.dataset.page = page;
      slide.alt = `${show.title}, slide ${page}`;
    };
    image.onerror = () => { if (slide.dataset.src === url) showState(`Slide ${page} could not be loaded.`); };
    image.src = url;
  }
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
      image.src = `${state.hub}${choice.url}?key=${encodeURIComponent(keyFor())}`;
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

/** The proof a tap would carry now: the last EID heard from the show's box, or the pass. */
function proof() {
  if (!state.beacon) return null;
  if (state.pass && state.pass.beacon === state.beacon && !passExpired()) return { type: "NEARCAST_PASS", id: state.pass.id };
  const beacon = state.beacons.get(state.beacon);
  if (beacon && beacon.eid && performance.now() - beacon.eid.at < proofForMs) return { type: "EDDYSTONE_EID", id: beacon.eid.base64 };
  return null;
}

let coolingUntil = 0;

function renderProof() {
  const bar = $("reaction-bar");
  const proven = proof() !== null && !state.lost;
  const cooling = performance.now() < coolingUntil;
  for (const button of bar.children) button.disabled = !proven || cooling;
  bar.dataset.proof = proven ? (proof().type === "NEARCAST_PASS" ? "code" : "heard") : "none";
  if (!state.show || !state.show.reactions.enabled) {
    $("reaction-state").textContent = "";
  } else if (!proven) {
    $("reaction-state").textContent = "To react, this phone must hear the room's box (or enter the code on the screen).";
  } else if ($("reaction-state").dataset.sticky !== "true") {
    $("reaction-state").textContent = "";
  }
}

async function react(value, button) {
  const observed = proof();
  if (!observed) return renderProof();
  button.classList.add("sent");
  setTimeout(() => button.classList.remove("sent"), 300);
  let response;
  try {
    response = await fetch(`${state.hub}/v1/reactions`, {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-Api-Key": keyFor() },
      body: JSON.stringify({ observed, reaction: value, phone: phoneId }),
    });
  } catch (error) {
    return reactionState(`Not sent: the hub cannot be reached (${error.message}).`);
  }
  if (response.status === 202) return reactionState("");
  const message = await errorMessage(response);
  if (response.status === 429) {
    const seconds = Number(response.headers.get("Retry-After")) || 1;
    coolingUntil = performance.now() + seconds * 1000;
    reactionState(`Slow down: reactions again in ${seconds} s.`);
    setTimeout(() => { reactionState(""); renderProof(); }, seconds * 1000);
    renderProof();
  } else if (response.status === 403) {
    // The EID is past the hub's window (or the pass expired, or reactions were switched off).
    const beacon = state.beacons.get(state.beacon);
    if (beacon) beacon.eid = null;
    if (state.pass && observed.type === "NEARCAST_PASS") state.pass.expiresAt = 0;
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

// --- Joining by the code on the screen --------------------------------------------------------------

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
  const answer = await response.json();
  const expiresMs = Date.parse(answer.expiresTime);
  const lifetime = Number.isFinite(expiresMs) ? Math.max(0, expiresMs - Date.now()) : passLifetimeMs;
  const beacon = beaconIdOf(answer.beaconName);
  state.pass = { id: answer.pass, beacon, expiresAt: performance.now() + lifetime };
  $("code").value = "";
  codeState("");
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
    if (!heardRecently && passExpired() && (beacon || sinceOpened > lostAfterMs)) {
      state.lost = true;
      if (state.source) state.source.close();
      state.source = null;
      showState(state.pass
        ? "Your code has expired and this phone has not heard the room's box for two minutes: enter the code on the screen again."
        : "Lost: this phone has not heard the room's box for two minutes, so it stopped following. Come back in range, or enter the code on the screen.");
      $("show").dataset.lost = "true";
    }
  }
  if (!state.lost) delete $("show").dataset.lost;
  const following = state.beacon !== null && !state.lost;
  $("join-by-code").hidden = following || !(state.listeningFailed || now - state.startedAt >= offerCodeAfterMs || state.lost);
  if (state.show) renderProof();
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
