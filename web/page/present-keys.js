// The presenter's keys (a clicker sends the same ones) and the stage's buttons. The console and
// one screen take them all; the projected window only those that move the show, full screen and
// the way in (its viewers see no controls).

import { openDeckPicker } from "./present-deck-picker.js";
import { json } from "./present-hub.js";
import { setCode } from "./present-join.js";
import { $, isProjectedWindow, session } from "./present-session.js";
import { currentPage, go, stageState, toggleThumbnails } from "./present-stage.js";
import { setWayInHidden, togglePresenterView } from "./present-view.js";

const pageMoves = {
  ArrowRight: 1, ArrowDown: 1, PageDown: 1, " ": 1, Enter: 1, n: 1,
  ArrowLeft: -1, ArrowUp: -1, PageUp: -1, Backspace: -1, p: -1,
};

const controlKeys = {
  f: () => toggleFullscreen(),
  c: () => setWayInHidden(!document.body.classList.contains("way-in-hidden"), true),
  t: () => toggleThumbnails(),
  v: () => togglePresenterView(),
  d: () => openDeckPicker(),
  j: () => setCode({ joining: session.show.codeJoining === false }),
  k: () => setCode({ rotate: true }),
  "?": () => { $("keys-help").open = !$("keys-help").open; },
};
const projectedWindowKeys = new Set(["f", "c"]);

document.addEventListener("keydown", (event) => {
  const show = session.show;
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
$("layout").addEventListener("click", () => {
  document.body.classList.toggle("remote");
  labelLayoutButton();
});
$("end-show").addEventListener("click", async () => {
  if (!confirm("End the show? The audience's pages stop following.")) return;
  try {
    await json("DELETE", `/v1/shows/${session.beaconId}`);
  } catch (error) {
    stageState(`Could not end the show: ${error.message}`, true);
  }
});

export function labelLayoutButton() {
  $("layout").textContent = document.body.classList.contains("remote") ? "Screen layout" : "Remote layout";
}

function toggleFullscreen() {
  if (document.fullscreenElement) document.exitFullscreen();
  else document.documentElement.requestFullscreen().catch(() => {});
}
