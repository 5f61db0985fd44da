// The audience's way in on the presenter's page, in the panel (QR code, code, address) and in the
// projected corner (the same, big): `HOST/j/CODE` opens the show; the code alone is what a phone
// that cannot hear the box types. J turns joining by the code on or off, K makes a new code.

import { call, json } from "./present-hub.js";
import { $, session } from "./present-session.js";
import { stageState } from "./present-stage.js";

let qrCode = null;   // the code the QR codes on the page show

export function renderJoin() {
  const show = session.show;
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
  call("GET", `/v1/shows/${session.beaconId}/qr.svg?base=${encodeURIComponent(location.origin)}`)
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
export async function setCode(change) {
  if (!session.show) return;
  try {
    const fresh = await json("PUT", `/v1/shows/${session.beaconId}/code`, change);
    session.show = { ...session.show, ...codeFields(fresh) };
    if (!("code" in fresh)) delete session.show.code;
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
  const show = session.show;
  if (!show || $("stage").hidden || show.codeJoining === false) return;
  try {
    const fresh = await json("GET", `/v1/shows/${session.beaconId}`);
    if (!session.show || fresh.startedMs !== session.show.startedMs || fresh.code === session.show.code) return;
    session.show = { ...session.show, ...codeFields(fresh) };
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
