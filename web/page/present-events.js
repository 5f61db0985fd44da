// The show's events on the presenter's page (GET /v1/shows/BEACON/events with the secret key in a
// header): the page (moved by another screen too), the room, the reactions, the show's end. The
// stream is opened again 2 s after it drops.

import { HubError, readEvents } from "./present-hub.js";
import { reactionsArrived } from "./present-reactions.js";
import { forgetKey, forgetShow, isProjectedWindow, session, sleep } from "./present-session.js";
import { setUp, setupState, showSetup } from "./present-setup.js";
import { applyShow, stageState } from "./present-stage.js";
import { renderTimer, stopTimer } from "./present-timer.js";
import { waitForShow } from "./present-view.js";

const reconnectMs = 2_000;          // after the event stream drops

let stream = null;                  // AbortController of the event stream
let stageStateIsConnection = false; // the state line says the stream is down

export async function follow() {
  if (stream) stream.abort();
  const controller = new AbortController();
  stream = controller;
  while (!controller.signal.aborted) {
    try {
      const response = await fetch(`/v1/shows/${session.beaconId}/events`, {
        headers: { "X-Api-Key": session.secretKey, Accept: "text/event-stream" }, signal: controller.signal, cache: "no-store",
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
        session.show = null;
        if (!isProjectedWindow) return setUp();
        showSetup();   // never the key form on the projector
        return setupState("The hub refused the key: open this window again from the presenter's page.", true);
      }
      await sleep(reconnectMs);
    }
  }
}

function onEvent(type, data) {
  if (type === "show") {
    const next = JSON.parse(data);
    const restarted = session.show && next.startedMs !== session.show.startedMs;
    applyShow(next);
    if (restarted) renderTimer();
  } else if (type === "reactions") {
    reactionsArrived(JSON.parse(data));
  } else if (type === "ended") {
    stream.abort();
    stream = null;
    session.show = null;
    stopTimer();
    if (isProjectedWindow) {
      waitForShow();   // the projector waits for the presenter's next show
      return;
    }
    forgetShow();
    setUp().then(() => setupState("The show ended. Pick a deck to present again."));
  }
}
