// The presenter's page (`/present`, served by the hub): pick a deck and the room's box, then
// present: full-screen slides moved by the keyboard (or a clicker, which sends the same keys), the
// audience's way in (a QR code, the join code and a short address), the phones following, and the
// audience's reactions falling over the slide. A remote layout for the presenter's phone; presenter
// view, a console and a projected window (present-view.js).
//
// The page's modules, one purpose each: present-session.js (what the page holds, and the tab's
// sessionStorage), present-hub.js (the API client), present-setup.js (the key, the deck, the box,
// uploads), present-stage.js (the slide, thumbnails, pager and room; moving the show),
// present-events.js (the show's event stream), present-join.js (the code and QR code),
// present-reactions.js (counts, and reactions falling), present-timer.js, present-keys.js (keys
// and buttons), present-deck-picker.js (switching deck), present-view.js (presenter view).
//
// The project's secret key is typed once and kept in this tab's sessionStorage; every request
// sends it in the X-Api-Key header, never in an address.
// `/present#key=SECRET&deck=ID&beacon=NAME[&remote=1]` opens a show directly; the fragment never
// leaves the browser and is removed from the address bar at once.
//
// The API is docs/present-api.md.

import "./present-keys.js";
import { beaconIdOf, isProjectedWindow, rememberKey, saveShow } from "./present-session.js";
import { setUp, setupState } from "./present-setup.js";
import { startProjectedWindow } from "./present-view.js";

// The fragment: a direct link to a show.
{
  const fragment = new URLSearchParams(location.hash.slice(1));
  if (fragment.get("key")) rememberKey(fragment.get("key"));
  if (fragment.get("deck") && fragment.get("beacon")) {
    saveShow(fragment.get("deck"), beaconIdOf(fragment.get("beacon")));
  }
  if (fragment.get("remote") === "1") document.body.classList.add("remote");
  if (location.hash) history.replaceState(null, "", location.pathname + location.search);
}

const start = isProjectedWindow ? startProjectedWindow() : setUp();
start.catch((error) => setupState(`The page could not start: ${error.message}`, true));
