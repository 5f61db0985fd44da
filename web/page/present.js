// The presenter's page (`/present`, served by the hub): pick a deck and the room's box, then
// present: full-screen slides moved by the keyboard (or a clicker, which sends the same keys), a
// thumbnail strip, the audience's address as a QR code and a short address, the phones following,
// and the audience's reactions falling over the slide. A remote layout for the presenter's phone.
//
// The project's secret key is typed once and kept in this tab's sessionStorage; every request
// sends it in the X-Api-Key header, never in an address (so images and the event stream are
// fetched, not linked). `/present#key=SECRET&deck=ID&beacon=NAME[&remote=1]` opens a show directly;
// the fragment never leaves the browser and is removed from the address bar at once.
//
// The page shown is kept on the hub (the show), so a reload, or a second screen, resumes at it.
// The API is docs/present-api.md.

const $ = (id) => document.getElementById(id);
const keyStorage = "nearcast.present.key";
const showStorage = "nearcast.present.show";   // {deck, beacon} of this tab's show

const reconnectMs = 2_000;          // after the event stream drops
const maxFalling = 150;             // reactions on screen at once; beyond it the oldest go first
const fallMinMs = 5_000;
const fallMaxMs = 15_000;

let secretKey = sessionStorage.getItem(keyStorage) || "";
let show = null;                    // the hub's show object, as last heard
let beaconId = "";                  // "4!hex"
let choices = [];                   // the project's reaction choices
const openedAtMs = Date.now();      // reactions from before this page opened are not drawn

// --- The fragment: a direct link to a show --------------------------------------------------------
{
  const fragment = new URLSearchParams(location.hash.slice(1));
  if (fragment.get("key")) {
    secretKey = fragment.get("key");
    sessionStorage.setItem(keyStorage, secretKey);
  }
  if (fragment.get("deck") && fragment.get("beacon")) {
    sessionStorage.setItem(showStorage, JSON.stringify({ deck: fragment.get("deck"), beacon: beaconIdOf(fragment.get("beacon")) }));
  }
  if (fragment.get("remote") === "1") document.body.classList.add("remote");
  if (location.hash) history.replaceState(null, "", location.pathname + location.search);
}

/** "beacons/4!0a1b…" or "4!0a1b…" -> "4!0a1b…" */
function beaconIdOf(name) {
  return String(name).replace(/^beacons\//, "");
}

// --- Talking to the hub ---------------------------------------------------------------------------

class HubError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

async function call(method, path, body, contentType = "application/json") {
  const headers = { "X-Api-Key": secretKey };
  if (body !== undefined) headers["Content-Type"] = contentType;
  let response;
  try {
    response = await fetch(path, {
      method, headers, cache: "no-store",
      body: body === undefined ? undefined : contentType === "application/json" ? JSON.stringify(body) : body,
    });
  } catch (error) {
    throw new HubError(0, `the hub cannot be reached (${error.message})`);
  }
  if (!response.ok) {
    let message = `HTTP ${response.status}`;
    try { message = (await response.json()).error.message; } catch { /* not the API's error shape */ }
    throw new HubError(response.status, message);
  }
  return response;
}

const json = async (method, path, body) => (await call(method, path, body)).json();

/** Images need the key too: fetched once each and shown from blob URLs. */
const blobs = new Map();
function imageURL(path) {
  if (!blobs.has(path)) {
    const promise = call("GET", path).then((r) => r.blob()).then((b) => URL.createObjectURL(b));
    promise.catch(() => blobs.delete(path));   // a failed fetch is tried again next time
    blobs.set(path, promise);
  }
  return blobs.get(path);
}

const pageImage = (page, size) => imageURL(`/v1/decks/${show.deck}/pages/${page}${size === "thumb" ? "?size=thumb" : ""}`);

// --- Setting up -----------------------------------------------------------------------------------

function setupState(text, problem = false) {
  $("setup-state").textContent = text;
  $("setup-state").dataset.state = problem ? "problem" : "ready";
}

async function setUp() {
  $("setup").hidden = false;
  $("stage").hidden = true;
  if (!secretKey) {
    setupState("Type the project's secret key to present.");
    $("key-form").hidden = false;
    $("show-form").hidden = true;
    $("key").focus();
    return;
  }
  setupState("Reading the project's decks and boxes…");
  let decks;
  let beacons;
  try {
    [decks, beacons] = await Promise.all([json("GET", "/v1/decks"), json("GET", "/v1beta1/beacons")]);
  } catch (error) {
    if (error.status === 401 || error.status === 403) {
      sessionStorage.removeItem(keyStorage);
      secretKey = "";
      setupState(`The hub refused the key: ${error.message}. Type the project's secret key.`, true);
      $("key-form").hidden = false;
      $("show-form").hidden = true;
    } else {
      setupState(`Could not read the project: ${error.message}`, true);
    }
    return;
  }
  $("key-form").hidden = true;
  $("show-form").hidden = false;
  fillSelect($("deck-select"), decks.decks.map((d) => [d.deck, `${d.title} (${d.pages} pages)`]));
  fillSelect($("beacon-select"), (beacons.beacons || []).map((b) => [beaconIdOf(b.beaconName), b.description || beaconIdOf(b.beaconName)]));
  const saved = JSON.parse(sessionStorage.getItem(showStorage) || "null");
  if (saved) {
    $("deck-select").value = saved.deck;
    $("beacon-select").value = saved.beacon;
  }
  if (!decks.decks.length) setupState("No decks yet: upload a PDF.");
  else if (!(beacons.beacons || []).length) setupState("The project has no box: register one (the box does it when it syncs with the hub).", true);
  else setupState("Pick a deck and the room's box.");
  // A direct link, or this tab's show before a reload: straight back to it.
  if (saved && decks.decks.some((d) => d.deck === saved.deck)) await present(saved.deck, saved.beacon);
}

function fillSelect(select, options) {
  select.replaceChildren(...options.map(([value, text]) => new Option(text, value)));
}

$("key-form").addEventListener("submit", (event) => {
  event.preventDefault();
  secretKey = $("key").value.trim();
  $("key").value = "";
  sessionStorage.setItem(keyStorage, secretKey);
  setUp();
});

$("forget-key").addEventListener("click", () => {
  sessionStorage.removeItem(keyStorage);
  sessionStorage.removeItem(showStorage);
  secretKey = "";
  setUp();
});

$("upload").addEventListener("change", async () => {
  const file = $("upload").files[0];
  if (!file) return;
  setupState(`Uploading ${file.name} (${(file.size / 1e6).toFixed(1)} MB); the hub renders every page…`);
  try {
    const title = encodeURIComponent(file.name.replace(/\.pdf$/i, ""));
    const created = await (await call("POST", `/v1/decks?title=${title}`, file, "application/pdf")).json();
    const decks = await json("GET", "/v1/decks");
    fillSelect($("deck-select"), decks.decks.map((d) => [d.deck, `${d.title} (${d.pages} pages)`]));
    $("deck-select").value = created.deck;
    setupState(`${file.name}: ${created.pages} pages, ready.`);
  } catch (error) {
    setupState(`${file.name} was refused: ${error.message}`, true);
  }
  $("upload").value = "";
});

$("show-form").addEventListener("submit", (event) => {
  event.preventDefault();
  if ($("remote-choice").checked) document.body.classList.add("remote");
  const deck = $("deck-select").value;
  const beacon = $("beacon-select").value;
  if (!deck || !beacon) {
    setupState("Pick a deck and a box first.", true);
    return;
  }
  present(deck, beacon);
});

// --- Presenting -----------------------------------------------------------------------------------

let stream = null;        // AbortController of the event stream
let stageStateIsConnection = false;   // the state line says the stream is down
let pendingPage = null;   // a page the presenter asked for that the hub has not confirmed
let putting = false;

/** Opens the show: the running one on the box when it is this deck (at its page), else a new one. */
async function present(deck, beacon) {
  beaconId = beacon;
  setupState("Opening the show…");
  try {
    let current = null;
    try {
      current = await json("GET", `/v1/shows/${beaconId}`);
    } catch (error) {
      if (error.status !== 404) throw error;
    }
    show = current && current.deck === deck ? current : await json("PUT", `/v1/shows/${beaconId}`, { deck, page: 1 });
  } catch (error) {
    setupState(`Could not start the show: ${error.message}`, true);
    return;
  }
  sessionStorage.setItem(showStorage, JSON.stringify({ deck, beacon }));
  choices = show.reactions.choices;
  $("setup").hidden = true;
  $("stage").hidden = false;
  labelLayoutButton();
  buildThumbnails();
  render();
  follow();
}

function buildThumbnails() {
  const strip = $("thumbs");
  strip.replaceChildren();
  for (let page = 1; page <= show.pages; page++) {
    const button = document.createElement("button");
    button.type = "button";
    button.dataset.page = page;
    button.setAttribute("aria-label", `Slide ${page}`);
    const image = document.createElement("img");
    image.alt = "";
    button.append(image);
    button.addEventListener("click", () => go(page));
    strip.append(button);
    pageImage(page, "thumb").then((url) => { image.src = url; }).catch(() => {});
  }
}

/** Draws the page shown (the one asked for, or the hub's) and everything around it. */
async function render() {
  const page = pendingPage ?? show.page;
  $("page-number").textContent = `${page} / ${show.pages}`;
  $("prev").disabled = page <= 1;
  $("next").disabled = page >= show.pages;
  for (const button of $("thumbs").children) {
    const current = Number(button.dataset.page) === page;
    button.setAttribute("aria-current", String(current));
    if (current) button.scrollIntoView({ block: "nearest", inline: "center" });
  }
  $("followers").textContent = show.followers ?? 0;
  renderCounts();
  renderJoin();
  $("next-caption").textContent = page < show.pages ? `Next: ${page + 1}` : "The end";
  try {
    const [full, now, next] = await Promise.all([
      pageImage(page, "full"), pageImage(page, "thumb"), page < show.pages ? pageImage(page + 1, "thumb") : null,
    ]);
    if ((pendingPage ?? show.page) !== page) return;   // moved on meanwhile
    $("slide").src = full;
    $("slide").dataset.page = page;
    $("current-thumb").src = now;
    $("next-thumb").src = next || "";
    if (page < show.pages) pageImage(page + 1, "full").catch(() => {});   // ready for the next key press
  } catch (error) {
    stageState(`Slide ${page} could not be loaded: ${error.message}`, true);
  }
}

function renderCounts() {
  const counts = show.counts || {};
  $("counts").replaceChildren(...choices.map((choice) => {
    const item = document.createElement("span");
    item.dataset.reaction = choice.value;
    if (choice.kind === "image") {
      const image = document.createElement("img");
      image.alt = choice.value;
      imageURL(choice.url).then((url) => { image.src = url; }).catch(() => {});
      item.append(image);
    } else {
      item.append(choice.value);
    }
    const count = document.createElement("span");
    count.className = "count";
    count.textContent = ` ${counts[choice.value] || 0}`;
    item.append(count);
    return item;
  }));
}

let qrCode = null;
function renderJoin() {
  if (!show.code) {
    $("join-address").textContent = "";
    return;
  }
  $("join-address").textContent = `${location.host}${show.joinPath}`;
  if (show.code === qrCode) return;
  qrCode = show.code;
  const code = show.code;
  call("GET", `/v1/shows/${beaconId}/qr.svg?base=${encodeURIComponent(location.origin)}`)
    .then((r) => r.blob())
    .then((blob) => {
      if (code !== qrCode) return;
      const old = $("qr").src;
      $("qr").src = URL.createObjectURL(blob);
      $("qr").dataset.code = code;
      if (old.startsWith("blob:")) URL.revokeObjectURL(old);
    })
    .catch((error) => stageState(`The QR code could not be loaded: ${error.message}`, true));
}

function stageState(text, problem = false) {
  $("stage-state").textContent = text;
  $("stage-state").dataset.state = problem ? "problem" : "ok";
}

/** Moves the show to `page`: drawn at once, sent to the hub one request at a time (the latest
 * wins when keys come faster than the hub answers). */
async function go(page) {
  if (!show) return;
  page = Math.min(Math.max(1, page), show.pages);
  if (page === (pendingPage ?? show.page)) return;
  pendingPage = page;
  render();
  if (putting) return;
  putting = true;
  try {
    while (pendingPage !== null && pendingPage !== show.page) {
      const target = pendingPage;
      try {
        const answer = await json("PUT", `/v1/shows/${beaconId}`, { deck: show.deck, page: target });
        show = { ...show, ...answer };
        stageState("");
      } catch (error) {
        stageState(`The hub did not take slide ${target}: ${error.message}`, true);
        if (error.status === 404 || error.status === 403) break;
        await new Promise((r) => setTimeout(r, 1_000));
        continue;   // the hub is away: the latest page asked for is sent again
      }
      if (pendingPage === target) pendingPage = null;
    }
  } finally {
    putting = false;
    pendingPage = null;
    render();
  }
}

const currentPage = () => pendingPage ?? (show ? show.page : 1);

document.addEventListener("keydown", (event) => {
  if (!show || $("stage").hidden || event.altKey || event.ctrlKey || event.metaKey) return;
  const moves = {
    ArrowRight: 1, ArrowDown: 1, PageDown: 1, " ": 1, Enter: 1, n: 1,
    ArrowLeft: -1, ArrowUp: -1, PageUp: -1, Backspace: -1, p: -1,
  };
  if (event.key in moves) go(currentPage() + moves[event.key]);
  else if (event.key === "Home") go(1);
  else if (event.key === "End") go(show.pages);
  else if (event.key === "f") toggleFullscreen();
  else if (event.key === "t") $("stage").classList.toggle("no-thumbs");
  else return;
  event.preventDefault();
});

$("prev").addEventListener("click", () => go(currentPage() - 1));
$("next").addEventListener("click", () => go(currentPage() + 1));
$("slide").addEventListener("click", () => go(currentPage() + 1));
$("fullscreen").addEventListener("click", toggleFullscreen);
function labelLayoutButton() {
  $("layout").textContent = document.body.classList.contains("remote") ? "Screen layout" : "Remote layout";
}
$("layout").addEventListener("click", () => {
  document.body.classList.toggle("remote");
  labelLayoutButton();
});
$("end-show").addEventListener("click", async () => {
  if (!confirm("End the show? The audience's pages stop following.")) return;
  try {
    await json("DELETE", `/v1/shows/${beaconId}`);
  } catch (error) {
    stageState(`Could not end the show: ${error.message}`, true);
  }
});

function toggleFullscreen() {
  if (document.fullscreenElement) document.exitFullscreen();
  else document.documentElement.requestFullscreen().catch(() => {});
}

// --- The show's events: the page (moved by another screen too), the room, the reactions ----------

async function follow() {
  if (stream) stream.abort();
  const controller = new AbortController();
  stream = controller;
  while (!controller.signal.aborted) {
    try {
      const response = await fetch(`/v1/shows/${beaconId}/events`, {
        headers: { "X-Api-Key": secretKey, Accept: "text/event-stream" }, signal: controller.signal, cache: "no-store",
      });
      if (!response.ok) throw new HubError(response.status, `HTTP ${response.status}`);
      if (stageStateIsConnection) stageState("");
      await readEvents(response.body, onEvent);
      if (!controller.signal.aborted) throw new Error("the hub closed the stream");
    } catch (error) {
      if (controller.signal.aborted) return;
      stageStateIsConnection = true;
      stageState(`Reconnecting to the hub (${error.message})…`, true);
      if (error.status === 401 || error.status === 403) {
        sessionStorage.removeItem(keyStorage);
        secretKey = "";
        stream = null;
        show = null;
        return setUp();
      }
      await new Promise((r) => setTimeout(r, reconnectMs));
    }
  }
}

/** Server-Sent Events from a fetch body (EventSource cannot send a header). */
async function readEvents(body, handle) {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  let event = "message";
  let data = [];
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += value;
    let newline;
    while ((newline = buffer.search(/\r\n|\r|\n/)) >= 0) {
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + (buffer.startsWith("\r\n", newline) ? 2 : 1));
      if (line === "") {
        if (data.length) handle(event, data.join("\n"));
        event = "message";
        data = [];
      } else if (line.startsWith(":")) {
        continue;   // a keep-alive comment
      } else {
        const colon = line.indexOf(":");
        const field = colon < 0 ? line : line.slice(0, colon);
        const text = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
        if (field === "event") event = text;
        else if (field === "data") data.push(text);
      }
    }
  }
}

function onEvent(type, data) {
  if (type === "show") {
    const next = JSON.parse(data);
    if (next.deck !== show.deck) {   // another screen started another deck on this box
      show = next;
      choices = show.reactions.choices;
      blobs.clear();
      buildThumbnails();
    } else {
      show = next;
      choices = show.reactions.choices;
    }
    render();
  } else if (type === "reactions") {
    const batch = JSON.parse(data);
    if (show) show.counts = batch.counts;
    renderCounts();
    for (const reaction of batch.reactions) {
      if (reaction.time >= Math.max(openedAtMs, show ? show.startedMs : 0) - 2_000) drop(reaction.value);
    }
  } else if (type === "ended") {
    stream.abort();
    stream = null;
    show = null;
    sessionStorage.removeItem(showStorage);
    setUp().then(() => setupState("The show ended. Pick a deck to present again."));
  }
}

// --- Reactions falling over the slide, the way the seed's app drew them: from a random point of
// the top edge, 60 pt heavy, falling over 5-15 s, spinning up to ±8π, shrinking to half, fading.

function drop(value) {
  const overlay = $("reactions");
  if (document.body.classList.contains("remote")) return;
  while (overlay.childElementCount >= maxFalling) overlay.firstElementChild.remove();
  const choice = choices.find((c) => c.value === value);
  let item;
  if (choice && choice.kind === "image") {
    item = document.createElement("img");
    item.alt = value;
    imageURL(choice.url).then((url) => { item.src = url; }).catch(() => {});
  } else {
    item = document.createElement("span");
    item.textContent = value;
  }
  item.dataset.reaction = value;
  overlay.append(item);
  const width = overlay.clientWidth;
  const height = overlay.clientHeight;
  const x = Math.random() * Math.max(0, width - 80);
  const spin = (Math.random() * 2 - 1) * 8 * Math.PI;
  const duration = fallMinMs + Math.random() * (fallMaxMs - fallMinMs);
  const animation = item.animate([
    { transform: `translate(${x}px, -80px) rotate(0rad) scale(1)`, opacity: 1 },
    { transform: `translate(${x}px, ${height}px) rotate(${spin}rad) scale(0.5)`, opacity: 0 },
  ], { duration, easing: "linear", fill: "forwards" });
  animation.onfinish = () => item.remove();
}

setUp().catch((error) => setupState(`The page could not start: ${error.message}`, true));
