// The stage of the presenter's page: the slide, the next one, the strip of thumbnails, the pager,
// the room (the phones following, the box, why none follows) and the state line; and moving the
// show to a page. The page shown is kept on the hub (the show), so a reload, or a second screen,
// resumes at it.

import { follow } from "./present-events.js";
import { json, pageImage, runningShow } from "./present-hub.js";
import { labelLayoutButton } from "./present-keys.js";
import { renderCounts } from "./present-reactions.js";
import { $, isProjectedWindow, saveShow, session, sleep } from "./present-session.js";
import { renderJoin } from "./present-join.js";
import { setupState } from "./present-setup.js";
import { startTimer } from "./present-timer.js";
import { announceConsole, tellOtherWindowPage } from "./present-view.js";

let pendingPage = null;   // a page the presenter asked for that the hub has not confirmed
let putting = false;
// A page the other window of presenter view asked for (its key press, told over the
// BroadcastChannel before the hub heard of it): drawn at once, until the hub's show has it.
let otherWindowPage = null;
let otherWindowTimer = 0;
const otherWindowPageMs = 5_000;   // then the hub's page again (the hub refused it, say)

/** Opens the show on the box: the running one at its page, moved to `deck` if it shows another
 * (the hub switches the deck of a running show without dropping anyone), else a new one. */
export async function present(deck, beacon) {
  session.beaconId = beacon;
  setupState("Opening the show…");
  let opened;
  try {
    const current = await runningShow(session.beaconId);
    opened = current && current.deck === deck ? current : await json("PUT", `/v1/shows/${session.beaconId}`, { deck, page: 1 });
  } catch (error) {
    setupState(`Could not start the show: ${error.message}`, true);
    return;
  }
  openStage(opened);
  announceConsole();
}

export function openStage(opened) {
  session.show = null;
  applyShow(opened);
  $("setup").hidden = true;
  $("stage").hidden = false;
  labelLayoutButton();
  follow();
  startTimer();
}

/** Takes the hub's show (an answer or an event): a new deck rebuilds what depends on the deck. */
export function applyShow(next) {
  const deckChanged = !session.show || session.show.deck !== next.deck;
  if (deckChanged || next.page === otherWindowPage) setOtherWindowPage(null);
  session.show = next;
  session.choices = next.reactions.choices;
  if (deckChanged) {
    if (!isProjectedWindow) saveShow(next.deck, session.beaconId);
    buildThumbnails();
  }
  render();
}

/** The page on this screen: the one asked for (here, else in the other window), else the hub's. */
export function currentPage() {
  return pendingPage ?? otherWindowPage ?? (session.show ? session.show.page : 1);
}

/** The other window of presenter view moved to `page` of `deck` (or settled on it): drawn here at
 * once, so the projected window turns with the console's key, not after the hub's event. */
export function pageFromOtherWindow(page, deck) {
  if (!session.show || deck !== session.show.deck || pendingPage !== null) return;
  setOtherWindowPage(page === session.show.page ? null : page);
  render();
}

function setOtherWindowPage(page) {
  clearTimeout(otherWindowTimer);
  otherWindowPage = page;
  if (page === null) return;
  otherWindowTimer = setTimeout(() => {
    otherWindowPage = null;
    if (session.show) render();
  }, otherWindowPageMs);
}

/** A page asked for and not yet confirmed is dropped (another deck's page 1 replaces it). */
export function clearPendingPage() {
  pendingPage = null;
}

function buildThumbnails() {
  const strip = $("thumbs");
  strip.replaceChildren();
  if (isProjectedWindow) return;   // the projected window never shows slides to come
  for (let page = 1; page <= session.show.pages; page++) {
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
  const show = session.show;
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
  const shown = new Set(session.show.shown || []);
  for (const button of $("thumbs").children) {
    const number = Number(button.dataset.page);
    button.setAttribute("aria-current", String(number === page));
    button.dataset.shown = String(shown.has(number));
    button.title = shown.has(number) ? `Slide ${number}: the audience can open it` : `Slide ${number}`;
    if (number === page && document.body.classList.contains("thumbs-on")) button.scrollIntoView({ block: "nearest", inline: "center" });
  }
}

/** The strip shows every slide to come, so it is the presenter's only: off on one screen (which
 * may be mirrored to the projector) until T, on in the console, never on the projected screen. */
export function toggleThumbnails(on = !document.body.classList.contains("thumbs-on")) {
  document.body.classList.toggle("thumbs-on", on);
  $("toggle-thumbs").setAttribute("aria-pressed", String(on));
  if (on && session.show) renderThumbnailMarks(currentPage());
}

/** The phones following, the box by its name, and why no phone follows when none does; while the
 * show is young (the hub's `waiting`), the first phones counted as they join instead. */
function renderRoom() {
  const show = session.show;
  const followers = show.followers ?? 0;
  $("followers").textContent = followers;
  $("box-name").textContent = show.box && show.box.name ? `· ${show.box.name}` : "";
  const reach = show.reach;
  const explain = reach && (reach.state === "waiting" || (followers === 0 && reach.state !== "ok")) && reach.message;
  $("reach").hidden = !explain;
  $("reach").textContent = explain || "";
  if (reach) $("reach").dataset.state = reach.state;
}

// Why no phone follows: the hub's `reach` changes with the box and the phones, which send no show
// event of their own, and with the show's age (`waiting` ends 2 minutes in), so it is asked for
// while nobody follows or the show is young.
const reachPollMs = 10_000;
setInterval(async () => {
  const show = session.show;
  const young = show && show.reach && show.reach.state === "waiting";
  if (!show || isProjectedWindow || $("stage").hidden || ((show.followers ?? 0) > 0 && !young)) return;
  try {
    const fresh = await json("GET", `/v1/shows/${session.beaconId}`);
    if (!session.show || fresh.startedMs !== session.show.startedMs) return;   // ended or replaced meanwhile
    session.show = { ...session.show, reach: fresh.reach, box: fresh.box };
    renderRoom();
  } catch { /* the event stream says when the hub is away */ }
}, reachPollMs);

/** The slide first, as soon as its image is here (it usually is: the next one is fetched ahead);
 * the thumbnails and the next slide after it, never holding it back. */
async function renderSlides(page) {
  const show = session.show;
  const last = page >= show.pages;
  $("next-caption").textContent = last ? "The end" : `Next: ${page + 1}`;
  $("next-frame-caption").textContent = last ? "The end" : `Next: ${page + 1} / ${show.pages}`;
  const stillWanted = () => session.show && session.show.deck === show.deck && currentPage() === page;
  try {
    const full = await pageImage(page, "full");
    if (!stillWanted()) return;   // moved on meanwhile
    if ($("slide").dataset.page !== String(page) || $("slide").dataset.deck !== show.deck) {
      $("slide").src = full;
      $("slide").dataset.page = page;
      $("slide").dataset.deck = show.deck;
    }
    const [now, next, nextFull] = await Promise.all([
      pageImage(page, "thumb"),
      last ? null : pageImage(page + 1, "thumb"),
      last ? null : pageImage(page + 1, "full"),   // the console's next slide, and ready for the key press
    ]);
    if (!stillWanted()) return;
    $("current-thumb").src = now;
    $("next-thumb").src = next || "";
    $("next-slide").src = nextFull || "";
    $("next-slide").dataset.page = last ? "" : page + 1;
  } catch (error) {
    stageState(`Slide ${page} could not be loaded: ${error.message}`, true);
  }
}

export function stageState(text, problem = false) {
  $("stage-state").textContent = text;
  $("stage-state").dataset.state = problem ? "problem" : "ok";
}

/** Moves the show to `page`: drawn at once, sent to the hub one request at a time (the latest
 * wins when keys come faster than the hub answers). */
export async function go(page) {
  if (!session.show) return;
  page = Math.min(Math.max(1, page), session.show.pages);
  if (page === currentPage()) return;
  pendingPage = page;
  setOtherWindowPage(null);
  tellOtherWindowPage(page, session.show.deck);   // before the hub: the projected window turns now
  render();
  if (putting) return;
  putting = true;
  try {
    while (pendingPage !== null && pendingPage !== session.show.page) {
      const target = pendingPage;
      try {
        const answer = await json("PUT", `/v1/shows/${session.beaconId}`, { deck: session.show.deck, page: target });
        session.show = { ...session.show, ...answer };
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
    if (session.show) tellOtherWindowPage(session.show.page, session.show.deck);   // the page the hub took
    render();
  }
}
