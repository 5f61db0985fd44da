// The presenter's page (`/present`, served by the hub): pick a deck and the room's box, then
// present: full-screen slides moved by the keyboard (or a clicker, which sends the same keys), the
// audience's way in (a QR code, the join code and a short address), the phones following, and the
// audience's reactions falling over the slide. A remote layout for the presenter's phone.
//
// Presenter view, as PowerPoint, Keynote and reveal.js split it: this window opens a second one,
// `/present?view=audience` (the projected window: the slide, the way in, the falling reactions,
// nothing else), and becomes the console (current and next slide, timer, room, controls,
// thumbnails). Both windows move the show and both follow the hub's show events, so either
// window's keys work; they tell each other only what the hub does not carry (the projected window
// is open or closed, the way in is hidden) over a BroadcastChannel. One screen works without it.
//
// The project's secret key is typed once and kept in this tab's sessionStorage; every request
// sends it in the X-Api-Key header, never in an address (so images and the event stream are
// fetched, not linked). The projected window gets it by sessionStorage (the browser copies it into
// a window opened by window.open) or, failing that, from its opener by postMessage.
// `/present#key=SECRET&deck=ID&beacon=NAME[&remote=1]` opens a show directly; the fragment never
// leaves the browser and is removed from the address bar at once.
//
// The page shown is kept on the hub (the show), so a reload, or a second screen, resumes at it.
// The API is docs/present-api.md.

const $ = (id) => document.getElementById(id);
const keyStorage = "nearcast.present.key";
const showStorage = "nearcast.present.show";   // {deck, beacon} of this tab's show
const timerStorage = "nearcast.present.timer"; // {show: "beacon@startedMs", originMs}

const reconnectMs = 2_000;          // after the event stream drops
const maxFalling = 150;             // reactions on screen at once; beyond it the oldest go first
const fallMinMs = 5_000;
const fallMaxMs = 15_000;
const keyHandoverMs = 3_000;        // how long the projected window waits for its opener's key

/** This window is the projected one of a presenter view (opened by the console). */
const isProjectedWindow = new URLSearchParams(location.search).get("view") === "audience";

let secretKey = sessionStorage.getItem(keyStorage) || "";
let show = null;                    // the hub's show object, as last heard
let beaconId = "";                  // "4!hex"
let choices = [];                   // the project's reaction choices
let uploading = false;              // a PDF is on its way to the hub
const openedAtMs = Date.now();      // reactions from before this page opened are not drawn

// --- The fragment: a direct link to a show --------------------------------------------------------
{
  const fragment = new URLSearchParams(location.hash.slice(1));
  if (fragment.get("key")) {
    secretKey = fragment.get("key");
    sessionStorage.setItem(keyStorage, secretKey);
  }
  if (fragment.get("deck") && fragment.get("beacon")) {
    saveShow(fragment.get("deck"), beaconIdOf(fragment.get("beacon")));
  }
  if (fragment.get("remote") === "1") document.body.classList.add("remote");
  if (location.hash) history.replaceState(null, "", location.pathname + location.search);
}

/** "beacons/4!0a1b…" or "4!0a1b…" -> "4!0a1b…" */
function beaconIdOf(name) {
  return String(name).replace(/^beacons\//, "");
}

function saveShow(deck, beacon) {
  sessionStorage.setItem(showStorage, JSON.stringify({ deck, beacon }));
}

const savedShow = () => JSON.parse(sessionStorage.getItem(showStorage) || "null");

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

/** Images need the key too: fetched once each and shown from blob URLs. A deck never changes, so
 * the pages of a deck switched away from stay valid for switching back. */
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

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// --- Setting up -----------------------------------------------------------------------------------

function setupState(text, problem = false) {
  $("setup-state").textContent = text;
  $("setup-state").dataset.state = problem ? "problem" : "ready";
}

function showSetup() {
  $("setup").hidden = false;
  $("stage").hidden = true;
}

async function setUp() {
  showSetup();
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
      forgetKey();
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
  fillDeckSelect(decks.decks);
  // A box is listed by its name: the beacon's description is the name the venue gave it (the room).
  fillSelect($("beacon-select"), (beacons.beacons || []).map((b) => [beaconIdOf(b.beaconName), b.description || beaconIdOf(b.beaconName)]));
  const saved = savedShow();
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

function forgetKey() {
  sessionStorage.removeItem(keyStorage);
  secretKey = "";
}

function fillSelect(select, options) {
  select.replaceChildren(...options.map(([value, text]) => new Option(text, value)));
}

function fillDeckSelect(decks) {
  fillSelect($("deck-select"), decks.map((d) => [d.deck, `${d.title} (${d.pages} pages)`]));
}

$("key-form").addEventListener("submit", (event) => {
  event.preventDefault();
  secretKey = $("key").value.trim();
  $("key").value = "";
  sessionStorage.setItem(keyStorage, secretKey);
  setUp();
});

$("forget-key").addEventListener("click", () => {
  forgetKey();
  sessionStorage.removeItem(showStorage);
  setUp();
});

// --- Uploading a deck, with the title the audience's phones show ----------------------------------

/** "Quarterly review.final.pdf" -> "Quarterly review.final": the file's name is only a default. */
const titleFromFileName = (name) => name.replace(/\.[^.]*$/, "") || name;

$("upload").addEventListener("change", () => {
  const file = $("upload").files[0];
  const title = $("upload-title");
  // The default follows the file chosen until the presenter types a title of their own.
  if (file && (!title.value || title.dataset.fromFile === title.value)) {
    title.value = titleFromFileName(file.name);
    title.dataset.fromFile = title.value;
  }
  $("upload-start").disabled = !file || uploading;
});

$("upload-start").addEventListener("click", async () => {
  const file = $("upload").files[0];
  if (!file || uploading) return;
  const title = $("upload-title").value.trim() || titleFromFileName(file.name);
  setUploading(true);
  setupState(`Uploading ${file.name} (${(file.size / 1e6).toFixed(1)} MB); the hub renders every page…`);
  try {
    const created = await (await call("POST", `/v1/decks?title=${encodeURIComponent(title)}`, file, "application/pdf")).json();
    fillDeckSelect((await json("GET", "/v1/decks")).decks);
    $("deck-select").value = created.deck;
    setupState(`“${title}”: ${created.pages} pages, ready.`);
    $("upload").value = "";
    $("upload-title").value = "";
  } catch (error) {
    setupState(`${file.name} was refused: ${error.message}`, true);
  } finally {
    setUploading(false);
  }
});

/** While a deck uploads, nothing can start or switch to a deck (the list is about to change, and a
 * Present pressed now would start the old selection). */
function setUploading(on) {
  uploading = on;
  for (const id of ["start-show", "deck-select", "switch-deck", "upload-start"]) $(id).disabled = on;
  if (!on) $("upload-start").disabled = !$("upload").files[0];
}

$("show-form").addEventListener("submit", (event) => {
  event.preventDefault();
  if (uploading) return;
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

/** Opens the show on the box: the running one at its page, moved to `deck` if it shows another
 * (the hub switches the deck of a running show without dropping anyone), else a new one. */
async function present(deck, beacon) {
  beaconId = beacon;
  setupState("Opening the show…");
  let opened;
  try {
    const current = await runningShow(beaconId);
    opened = current && current.deck === deck ? current : await json("PUT", `/v1/shows/${beaconId}`, { deck, page: 1 });
  } catch (error) {
    setupState(`Could not start the show: ${error.message}`, true);
    return;
  }
  openStage(opened);
  announceConsole();
}

/** The show running on `beacon`, or null. */
async function runningShow(beacon) {
  try {
    return await json("GET", `/v1/shows/${beacon}`);
  } catch (error) {
    if (error.status === 404) return null;
    throw error;
  }
}

function openStage(opened) {
  show = null;
  applyShow(opened);
  $("setup").hidden = true;
  $("stage").hidden = false;
  labelLayoutButton();
  follow();
  startTimer();
}

/** Takes the hub's show (an answer or an event): a new deck rebuilds what depends on the deck. */
function applyShow(next) {
  const deckChanged = !show || show.deck !== next.deck;
  show = next;
  choices = show.reactions.choices;
  if (deckChanged) {
    if (!isProjectedWindow) saveShow(show.deck, beaconId);
    buildThumbnails();
  }
  render();
}

function buildThumbnails() {
  const strip = $("thumbs");
  strip.replaceChildren();
  if (isProjectedWindow) return;   // the projected window never shows slides to come
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
function render() {
  const page = currentPage();
  $("page-number").textContent = `${page} / ${show.pages}`;
  $("prev").disabled = page <= 1;
  $("next").disabled = page >= show.pages;
  renderThumbnailMarks(page);
  renderRoom();
  renderCounts();
  renderJoin();
  renderSlides(page);
}

/** The current slide in the strip, and the slides the audience may open (the hub's `shown`: those
 * that stayed up 2 s, and the current one). */
function renderThumbnailMarks(page) {
  const shown = new Set(show.shown || []);
  for (const button of $("thumbs").children) {
    const number = Number(button.dataset.page);
    button.setAttribute("aria-current", String(number === page));
    button.dataset.shown = String(shown.has(number));
    button.title = shown.has(number) ? `Slide ${number}: the audience can open it` : `Slide ${number}`;
    if (number === page && document.body.classList.contains("thumbs-on")) button.scrollIntoView({ block: "nearest", inline: "center" });
  }
}

/** The phones following, the box by its name, and why no phone follows when none does. */
function renderRoom() {
  const followers = show.followers ?? 0;
  $("followers").textContent = followers;
  $("box-name").textContent = show.box && show.box.name ? `· ${show.box.name}` : "";
  const reach = show.reach;
  const explain = followers === 0 && reach && reach.state !== "ok" && reach.message;
  $("reach").hidden = !explain;
  $("reach").textContent = explain || "";
  if (reach) $("reach").dataset.state = reach.state;
}

async function renderSlides(page) {
  const last = page >= show.pages;
  $("next-caption").textContent = last ? "The end" : `Next: ${page + 1}`;
  $("next-frame-caption").textContent = last ? "The end" : `Next: ${page + 1} / ${show.pages}`;
  try {
    const [full, now, next, nextFull] = await Promise.all([
      pageImage(page, "full"), pageImage(page, "thumb"),
      last ? null : pageImage(page + 1, "thumb"),
      last ? null : pageImage(page + 1, "full"),   // the console's next slide, and ready for the key press
    ]);
    if (currentPage() !== page) return;   // moved on meanwhile
    $("slide").src = full;
    $("slide").dataset.page = page;
    $("slide").dataset.deck = show.deck;
    $("current-thumb").src = now;
    $("next-thumb").src = next || "";
    $("next-slide").src = nextFull || "";
    $("next-slide").dataset.page = last ? "" : page + 1;
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

/** The way in, in the panel (QR code, code, address) and in the projected corner (the same, big):
 * `HOST/j/CODE` opens the show; the code alone is what a phone that cannot hear the box types. */
let qrCode = null;
function renderJoin() {
  const code = show.code || "";
  // Joining by the code switched off (J): the way in says so, and no QR code is shown.
  const off = show.codeJoining === false;
  document.body.classList.toggle("code-off", off);
  if (off) qrCode = null;
  $("code-passes").textContent = show.codePasses === undefined ? ""
    : `${show.codePasses} pass${show.codePasses === 1 ? "" : "es"} by code in the last 10 minutes.`;
  const host = code ? `${location.host}/j/` : "";
  $("join-code").textContent = off ? "Code off (J)" : code;
  setJoinAddress(host, code);
  $("way-in-address").textContent = host;
  $("way-in-code").textContent = code;
  $("way-in").dataset.code = code;
  if (!code || code === qrCode) return;
  qrCode = code;
  call("GET", `/v1/shows/${beaconId}/qr.svg?base=${encodeURIComponent(location.origin)}`)
    .then((r) => r.blob())
    .then((blob) => {
      if (code !== qrCode) return;
      const url = URL.createObjectURL(blob);
      for (const image of [$("qr"), $("way-in-qr")]) {
        const old = image.src;
        image.src = url;
        image.dataset.code = code;
        if (old.startsWith("blob:") && old !== url) URL.revokeObjectURL(old);
      }
    })
    .catch((error) => stageState(`The QR code could not be loaded: ${error.message}`, true));
}

/** Joining by the code: `{joining}` on or off, or `{rotate: true}` for a new code now. */
async function setCode(change) {
  if (!show) return;
  try {
    const fresh = await json("PUT", `/v1/shows/${beaconId}/code`, change);
    show = { ...show, ...codeFields(fresh) };
    if (!("code" in fresh)) delete show.code;
    renderJoin();
    stageState(change.rotate ? "A new code is on the screen: the one before no longer lets anyone in."
      : change.joining ? "Joining by the code is on." : "Joining by the code is off: only phones that hear the box join.");
  } catch (error) {
    stageState(`The code could not be changed: ${error.message}`, true);
  }
}

const codeFields = (s) => ({ code: s.code, codeExpiresMs: s.codeExpiresMs, joinPath: s.joinPath, codeJoining: s.codeJoining,
                             codeMaxShare: s.codeMaxShare, codePasses: s.codePasses });

// The code changes every minute (the one before is still taken for a minute): the screen asks for
// the current one every 10 s, since the hub sends no event for it.
setInterval(async () => {
  if (!show || $("stage").hidden || show.codeJoining === false) return;
  try {
    const fresh = await json("GET", `/v1/shows/${beaconId}`);
    if (!show || fresh.startedMs !== show.startedMs || fresh.code === show.code) return;
    show = { ...show, ...codeFields(fresh) };
    renderJoin();
  } catch { /* the event stream says when the hub is away */ }
}, 10_000);

/** `host/j/` and the code, each unbreakable: a narrow panel wraps between them, never in the code. */
function setJoinAddress(host, code) {
  const parts = [host, code].map((text) => {
    const span = document.createElement("span");
    span.textContent = text;
    return span;
  });
  $("join-address").replaceChildren(parts[0], document.createElement("wbr"), parts[1]);
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
  if (page === currentPage()) return;
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
        await sleep(1_000);
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

// --- Keys and buttons -----------------------------------------------------------------------------

const pageMoves = {
  ArrowRight: 1, ArrowDown: 1, PageDown: 1, " ": 1, Enter: 1, n: 1,
  ArrowLeft: -1, ArrowUp: -1, PageUp: -1, Backspace: -1, p: -1,
};

/** Keys of the console and of one screen; the projected window takes only those that move the
 * show, full screen and the way in (its viewers see no controls). */
const controlKeys = {
  f: () => toggleFullscreen(),
  c: () => setWayInHidden(!document.body.classList.contains("way-in-hidden"), true),
  t: () => toggleThumbnails(),
  v: () => togglePresenterView(),
  d: () => openDeckPicker(),
  j: () => setCode({ joining: show.codeJoining === false }),
  k: () => setCode({ rotate: true }),
  "?": () => { $("keys-help").open = !$("keys-help").open; },
};
const projectedWindowKeys = new Set(["f", "c"]);

document.addEventListener("keydown", (event) => {
  if (!show || $("stage").hidden || event.altKey || event.ctrlKey || event.metaKey) return;
  if ($("deck-picker").open) return;   // the dialog's own keys (Escape closes it)
  const key = event.key.length === 1 ? event.key.toLowerCase() : event.key;
  if (event.key in pageMoves) go(currentPage() + pageMoves[event.key]);
  else if (key === "n" || key === "p") go(currentPage() + pageMoves[key]);
  else if (event.key === "Home") go(1);
  else if (event.key === "End") go(show.pages);
  else if (key in controlKeys && (!isProjectedWindow || projectedWindowKeys.has(key))) controlKeys[key]();
  else return;
  event.preventDefault();
});

$("prev").addEventListener("click", () => go(currentPage() - 1));
$("next").addEventListener("click", () => go(currentPage() + 1));
$("slide").addEventListener("click", () => go(currentPage() + 1));
$("fullscreen").addEventListener("click", toggleFullscreen);
$("toggle-thumbs").addEventListener("click", () => toggleThumbnails());
$("presenter-view").addEventListener("click", () => togglePresenterView());
$("switch-deck").addEventListener("click", () => openDeckPicker());
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

/** The strip shows every slide to come, so it is the presenter's only: off on one screen (which
 * may be mirrored to the projector) until T, on in the console, never on the projected screen. */
function toggleThumbnails(on = !document.body.classList.contains("thumbs-on")) {
  document.body.classList.toggle("thumbs-on", on);
  $("toggle-thumbs").setAttribute("aria-pressed", String(on));
  if (on && show) renderThumbnailMarks(currentPage());
}

/** The way in on the projected screen; hidden in one window, hidden in the other. */
function setWayInHidden(hidden, tellOtherWindow) {
  document.body.classList.toggle("way-in-hidden", hidden);
  if (tellOtherWindow) broadcast({ type: "way-in", hidden });
}

// --- Switching deck on the stage: the same show goes on -------------------------------------------

async function openDeckPicker() {
  if (!show || uploading || isProjectedWindow) return;
  const dialog = $("deck-picker");
  $("deck-picker-state").textContent = "Reading the project's decks…";
  $("deck-list").replaceChildren();
  if (!dialog.open) dialog.showModal();
  try {
    const { decks } = await json("GET", "/v1/decks");
    $("deck-list").replaceChildren(...decks.map(deckChoice));
    $("deck-picker-state").textContent = decks.length > 1 ? "" : "The project has no other deck: upload one on the start page.";
    const current = $("deck-list").querySelector("[aria-current=true]");
    ($("deck-list").querySelector("button:not([aria-current=true])") || current)?.focus();
  } catch (error) {
    $("deck-picker-state").textContent = `Could not read the decks: ${error.message}`;
  }
}

function deckChoice(deck) {
  const item = document.createElement("li");
  const button = document.createElement("button");
  button.type = "button";
  button.dataset.deck = deck.deck;
  const current = deck.deck === show.deck;
  button.setAttribute("aria-current", String(current));
  button.className = current ? "quiet" : "";
  button.textContent = `${deck.title} (${deck.pages} pages)${current ? ": showing" : ""}`;
  button.addEventListener("click", () => switchDeck(deck.deck));
  item.append(button);
  return item;
}

/** PUT {deck, page: 1}: the hub keeps the show (followers, counts, start) and sends every phone the
 * new deck at its first page. */
async function switchDeck(deck) {
  if (uploading) return;
  if (deck === show.deck) {
    $("deck-picker").close();
    return;
  }
  $("deck-picker-state").textContent = "Switching…";
  for (const button of $("deck-list").querySelectorAll("button")) button.disabled = true;
  try {
    pendingPage = null;
    applyShow(await json("PUT", `/v1/shows/${beaconId}`, { deck, page: 1 }));
    $("deck-picker").close();
    stageState("");
  } catch (error) {
    $("deck-picker-state").textContent = `The hub did not switch: ${error.message}`;
    for (const button of $("deck-list").querySelectorAll("button")) button.disabled = false;
  }
}

// --- Presenter view: the projected window and the console -----------------------------------------

const channel = "BroadcastChannel" in window ? new BroadcastChannel("nearcast.present") : null;
let projectedWindow = null;        // the window this console opened, while it is open

/** Messages between the two windows of one show; never the key. */
function broadcast(message) {
  if (channel && beaconId) channel.postMessage({ ...message, beacon: beaconId });
}

channel?.addEventListener("message", ({ data }) => {
  if (!data || data.beacon !== beaconId) return;   // another show's windows
  if (isProjectedWindow) {
    if (data.type === "console-hello") broadcast({ type: "projector-open" });
    else if (data.type === "close-projector") window.close();
  } else if (data.type === "projector-open") {
    setConsole(true);
  } else if (data.type === "projector-closed") {
    setConsole(false);
  }
  if (data.type === "way-in") setWayInHidden(data.hidden, false);
});

/** A console (re)opened, after a reload say, asks whether its projected window is still there. */
function announceConsole() {
  if (!isProjectedWindow) broadcast({ type: "console-hello" });
}

function togglePresenterView() {
  if (document.body.classList.contains("console")) closePresenterView();
  else openPresenterView();
}

function openPresenterView() {
  // The address carries only the view; the key goes by sessionStorage (copied into the new
  // window) or by postMessage on request, never in the URL.
  projectedWindow = window.open("/present?view=audience", `nearcast-projected-${beaconId}`, "popup,width=1280,height=720");
  if (!projectedWindow) {
    stageState("The browser blocked the second window: allow pop-ups for this page.", true);
    return;
  }
  setConsole(true);
  stageState("Move the new window to the projector and press F there.");
}

function closePresenterView() {
  if (projectedWindow && !projectedWindow.closed) projectedWindow.close();
  else broadcast({ type: "close-projector" });   // opened before this console's reload
  projectedWindow = null;
  setConsole(false);
}

function setConsole(on) {
  if (document.body.classList.contains("console") === on) return;
  document.body.classList.toggle("console", on);
  $("presenter-view").textContent = on ? "One screen" : "Presenter view";
  toggleThumbnails(on);
  if (!on && document.fullscreenElement) document.exitFullscreen();
}

// The projected window asks its opener for the key when the browser did not copy sessionStorage.
window.addEventListener("message", (event) => {
  if (event.origin !== location.origin || !event.data) return;
  if (event.data.type === "need-key" && event.source === projectedWindow && secretKey && beaconId) {
    event.source.postMessage({ type: "key", key: secretKey, beacon: beaconId, deck: show && show.deck }, location.origin);
  }
});

/** The projected window: the running show of the console's box, nothing to set up. */
async function startProjectedWindow() {
  document.body.classList.add("projected");
  document.title = "Nearcast Present: the projected window";
  showSetup();
  $("key-form").hidden = true;
  $("show-form").hidden = true;
  const saved = savedShow();
  let handed = secretKey && saved ? { key: secretKey, beacon: saved.beacon } : await keyFromOpener();
  if (!handed) {
    setupState("Open this window with Presenter view (V) on the presenter's page.", true);
    return;
  }
  secretKey = handed.key;
  sessionStorage.setItem(keyStorage, secretKey);
  beaconId = handed.beacon;
  window.addEventListener("pagehide", () => broadcast({ type: "projector-closed" }));
  await waitForShow();
}

function keyFromOpener() {
  if (!window.opener) return Promise.resolve(null);
  return new Promise((resolve) => {
    const timeout = setTimeout(() => resolve(null), keyHandoverMs);
    window.addEventListener("message", function answer(event) {
      if (event.origin !== location.origin || event.source !== window.opener || event.data?.type !== "key") return;
      clearTimeout(timeout);
      window.removeEventListener("message", answer);
      if (event.data.deck) saveShow(event.data.deck, event.data.beacon);
      resolve({ key: event.data.key, beacon: event.data.beacon });
    });
    window.opener.postMessage({ type: "need-key" }, location.origin);
  });
}

/** Shows the box's show once there is one (at once, or when the presenter starts one). */
async function waitForShow() {
  showSetup();
  for (;;) {
    try {
      const running = await runningShow(beaconId);
      if (running) {
        openStage(running);
        broadcast({ type: "projector-open" });
        return;
      }
      setupState("Waiting for the presenter to start the show…");
    } catch (error) {
      setupState(`Waiting for the hub (${error.message})…`, true);
    }
    await sleep(reconnectMs);
  }
}

// --- The timer: from the show's start, or from Restart --------------------------------------------

let timerInterval = null;

/** The show survives deck switches, so the timer keys on the box and the show's start. */
const timerShowId = () => `${beaconId}@${show.startedMs}`;

function timerOriginMs() {
  const saved = JSON.parse(sessionStorage.getItem(timerStorage) || "null");
  return saved && saved.show === timerShowId() ? saved.originMs : show.startedMs || openedAtMs;
}

function startTimer() {
  clearInterval(timerInterval);
  renderTimer();
  timerInterval = setInterval(renderTimer, 1_000);
}

// --- Why no phone follows: the hub's `reach` changes with the box and the phones, which send no
// show event of their own, so it is asked for while nobody follows. ------------------------------

const reachPollMs = 10_000;
setInterval(async () => {
  if (!show || isProjectedWindow || $("stage").hidden || (show.followers ?? 0) > 0) return;
  try {
    const fresh = await json("GET", `/v1/shows/${beaconId}`);
    if (!show || fresh.startedMs !== show.startedMs) return;   // ended or replaced meanwhile
    show = { ...show, reach: fresh.reach, box: fresh.box };
    renderRoom();
  } catch { /* the event stream says when the hub is away */ }
}, reachPollMs);

function renderTimer() {
  if (!show) return;
  const seconds = Math.max(0, Math.floor((Date.now() - timerOriginMs()) / 1_000));
  const [h, m, s] = [Math.floor(seconds / 3600), Math.floor(seconds / 60) % 60, seconds % 60];
  const pad = (n) => String(n).padStart(2, "0");
  $("elapsed").textContent = h ? `${h}:${pad(m)}:${pad(s)}` : `${m}:${pad(s)}`;
}

$("timer-restart").addEventListener("click", () => {
  if (!show) return;
  sessionStorage.setItem(timerStorage, JSON.stringify({ show: timerShowId(), originMs: Date.now() }));
  renderTimer();
});

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
        forgetKey();
        stream = null;
        show = null;
        if (!isProjectedWindow) return setUp();
        showSetup();   // never the key form on the projector
        return setupState("The hub refused the key: open this window again from the presenter's page.", true);
      }
      await sleep(reconnectMs);
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
    const restarted = show && next.startedMs !== show.startedMs;
    applyShow(next);
    if (restarted) renderTimer();
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
    clearInterval(timerInterval);
    if (isProjectedWindow) {
      waitForShow();   // the projector waits for the presenter's next show
      return;
    }
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

const start = isProjectedWindow ? startProjectedWindow() : setUp();
start.catch((error) => setupState(`The page could not start: ${error.message}`, true));
