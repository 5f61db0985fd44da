// Presenter view, as PowerPoint, Keynote and reveal.js split it: the console opens a second window,
// `/present?view=audience` (the projected window: the slide, the way in, the falling reactions,
// nothing else), and becomes the console (current and next slide, timer, room, controls,
// thumbnails). Both windows move the show and both follow the hub's show events, so either
// window's keys work; over a BroadcastChannel they tell each other what the hub does not carry
// (the projected window is open or closed, the way in is hidden) and the page a key asked for,
// which the other window draws at once rather than after the hub's answer and event (the hub's
// show then confirms it). One screen works without it.
//
// The projected window gets the key by sessionStorage (the browser copies it into a window opened
// by window.open) or, failing that, from its opener by postMessage; never in its address.

import { runningShow } from "./present-hub.js";
import { $, isProjectedWindow, rememberKey, savedShow, saveShow, session, sleep } from "./present-session.js";
import { setupState, showSetup } from "./present-setup.js";
import { openStage, pageFromOtherWindow, stageState, toggleThumbnails } from "./present-stage.js";

const keyHandoverMs = 3_000;        // how long the projected window waits for its opener's key
const waitForShowMs = 2_000;        // how often the projected window asks for the box's show

const channel = "BroadcastChannel" in window ? new BroadcastChannel("nearcast.present") : null;
let projectedWindow = null;        // the window this console opened, while it is open

/** Messages between the two windows of one show; never the key. */
function broadcast(message) {
  if (channel && session.beaconId) channel.postMessage({ ...message, beacon: session.beaconId });
}

channel?.addEventListener("message", ({ data }) => {
  if (!data || data.beacon !== session.beaconId) return;   // another show's windows
  if (isProjectedWindow) {
    if (data.type === "console-hello") broadcast({ type: "projector-open" });
    else if (data.type === "close-projector") window.close();
  } else if (data.type === "projector-open") {
    setConsole(true);
  } else if (data.type === "projector-closed") {
    setConsole(false);
  }
  if (data.type === "way-in") setWayInHidden(data.hidden, false);
  else if (data.type === "page") pageFromOtherWindow(data.page, data.deck);
});

/** A key in this window asked for `page` of `deck` (or the hub settled on it): the other window
 * draws it too. */
export function tellOtherWindowPage(page, deck) {
  broadcast({ type: "page", page, deck });
}

/** A console (re)opened, after a reload say, asks whether its projected window is still there. */
export function announceConsole() {
  if (!isProjectedWindow) broadcast({ type: "console-hello" });
}

/** The way in on the projected screen; hidden in one window, hidden in the other. */
export function setWayInHidden(hidden, tellOtherWindow) {
  document.body.classList.toggle("way-in-hidden", hidden);
  if (tellOtherWindow) broadcast({ type: "way-in", hidden });
}

export function togglePresenterView() {
  if (document.body.classList.contains("console")) closePresenterView();
  else openPresenterView();
}

function openPresenterView() {
  // The address carries only the view; the key goes by sessionStorage (copied into the new
  // window) or by postMessage on request, never in the URL.
  projectedWindow = window.open("/present?view=audience", `nearcast-projected-${session.beaconId}`, "popup,width=1280,height=720");
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
  if (event.data.type === "need-key" && event.source === projectedWindow && session.secretKey && session.beaconId) {
    event.source.postMessage({ type: "key", key: session.secretKey, beacon: session.beaconId, deck: session.show && session.show.deck },
                             location.origin);
  }
});

/** The projected window: the running show of the console's box, nothing to set up. */
export async function startProjectedWindow() {
  document.body.classList.add("projected");
  document.title = "Nearcast Present: the projected window";
  showSetup();
  $("key-form").hidden = true;
  $("show-form").hidden = true;
  const saved = savedShow();
  const handed = session.secretKey && saved ? { key: session.secretKey, beacon: saved.beacon } : await keyFromOpener();
  if (!handed) {
    setupState("Open this window with Presenter view (V) on the presenter's page.", true);
    return;
  }
  rememberKey(handed.key);
  session.beaconId = handed.beacon;
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
export async function waitForShow() {
  showSetup();
  for (;;) {
    try {
      const running = await runningShow(session.beaconId);
      if (running) {
        openStage(running);
        broadcast({ type: "projector-open" });
        return;
      }
      setupState("Waiting for the presenter to start the show…");
    } catch (error) {
      setupState(`Waiting for the hub (${error.message})…`, true);
    }
    await sleep(waitForShowMs);
  }
}
