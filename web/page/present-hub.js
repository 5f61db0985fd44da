// The presenter's page's client of the hub (docs/present-api.md): every request sends the secret
// key in the X-Api-Key header, never in an address, so images and the event stream are fetched
// (with the header), not linked.

import { session } from "./present-session.js";

export class HubError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

/** A request with the key; an answer that is not 2xx throws a HubError with the hub's message. */
export async function call(method, path, body, contentType = "application/json") {
  const headers = { "X-Api-Key": session.secretKey };
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

export async function json(method, path, body) {
  return (await call(method, path, body)).json();
}

/** Images need the key too: fetched once each and shown from blob URLs. A deck never changes, so
 * the pages of a deck switched away from stay valid for switching back. */
const blobs = new Map();
export function imageURL(path) {
  if (!blobs.has(path)) {
    const promise = call("GET", path).then((r) => r.blob()).then((b) => URL.createObjectURL(b));
    promise.catch(() => blobs.delete(path));   // a failed fetch is tried again next time
    blobs.set(path, promise);
  }
  return blobs.get(path);
}

/** A page of the show's deck: `size` "thumb" or "full". */
export function pageImage(page, size) {
  return imageURL(`/v1/decks/${session.show.deck}/pages/${page}${size === "thumb" ? "?size=thumb" : ""}`);
}

/** The show running on `beacon`, or null. */
export async function runningShow(beacon) {
  try {
    return await json("GET", `/v1/shows/${beacon}`);
  } catch (error) {
    if (error.status === 404) return null;
    throw error;
  }
}

/** Server-Sent Events from a fetch body (EventSource cannot send a header): `handle(event, data)`
 * for each event, until the body ends. */
export async function readEvents(body, handle) {
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
