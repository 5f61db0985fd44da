// The listener page's messages: what the boxes this phone heard publish (their beacons'
// attachments on the hub), followed live. The person holding the phone reads each message as what
// it is, under the status line: text as text, a web address as a link (built as DOM nodes, never
// parsed as HTML). Details lists them as an engineer reads them, `NAMESPACE/TYPE TEXT`.
//
// Each beacon a heard token resolved to is watched once (`attachments:watch`, Server-Sent Events:
// the list at once and after every change; the browser reconnects by itself), with the watch token
// the newest resolve gave: resolves ask for no attachments, so a beacon's messages cross the network
// once per change, not once per resolve. This module keeps the one copy of each beacon's watch
// token, which the show part (listener-show.js) reads too.

const $ = (id) => document.getElementById(id);

/** beaconName ("beacons/4!hex") -> {watchToken, attachments: [{namespacedType, bytes, text}], source: EventSource|null} */
const beacons = new Map();
const watchRetryMs = 10_000;      // a watch the hub ended with an error is not complained of after this
const utf8 = new TextDecoder("utf-8", { fatal: true });
let firstMessageMs = null;
let hub = "";
let hooks = { key: () => "", forgotten: () => {}, trouble: () => {} };

/** `hubAddress` the hub's origin; `key()` the key a watch is opened with; `forgotten(beaconName,
 * why)` when a beacon's messages are dropped (deleted on the hub, or its watch refused: its tokens
 * are to be resolved again); `trouble(text, ifStill)` when the hub is away or refuses (text) or is
 * fine again (null), `ifStill` naming the trouble that a null clears (else any). */
export function startMessages(hubAddress, { key, forgotten, trouble }) {
  hub = hubAddress;
  hooks = { key, forgotten, trouble };
}

/** The watch token the newest resolve gave for `beaconName`, or "". */
export function watchTokenFor(beaconName) {
  return beacons.get(beaconName)?.watchToken || "";
}

/** A resolve answered `beaconName` with `watchToken`: kept, and the beacon's messages followed
 * from now on if they were not. */
export function followMessages(beaconName, watchToken) {
  let beacon = beacons.get(beaconName);
  if (!beacon) {
    beacon = { watchToken: "", attachments: [], source: null };
    beacons.set(beaconName, beacon);
  }
  if (watchToken) beacon.watchToken = watchToken;
  if (!beacon.source) beacon.source = watch(beaconName, beacon);
}

/** When the first message showed (performance.now()), or null. */
export function firstMessageAt() {
  return firstMessageMs;
}

function watch(beaconName, beacon) {
  const url = `${hub}/v1beta1/${beaconName}/attachments:watch?key=${encodeURIComponent(hooks.key())}`
    + `&token=${encodeURIComponent(beacon.watchToken)}`;
  const source = new EventSource(url);
  source.addEventListener("attachments", (event) => {
    beacon.attachments = (JSON.parse(event.data).attachments || []).map(readAttachment);
    render();
    hooks.trouble(null);
  });
  source.addEventListener("deleted", () => forget(beaconName, "removed from the hub"));
  // The watch token it was opened with expired (the hub ends the watch then): a resolve since
  // gave a newer one, so the watch goes on with it; else the box has not been heard for as long as
  // a token lasts, and its messages go until it is heard again.
  const openedWith = beacon.watchToken;
  source.addEventListener("revoked", () => {
    source.close();
    beacon.source = null;
    if (beacon.watchToken && beacon.watchToken !== openedWith) beacon.source = watch(beaconName, beacon);
    else forget(beaconName, "not heard for as long as its watch token lasts");
  });
  source.onerror = () => {
    if (source.readyState === EventSource.CLOSED) {
      // The hub refused the watch (an error status; a reconnection after its token expired): the
      // messages may be stale, so they go, and the beacon's tokens are resolved again when next
      // heard, which brings a fresh token and a new watch.
      forget(beaconName, "the hub ended its watch");
      const refused = "the hub refused to keep this page up to date";
      hooks.trouble(refused);
      setTimeout(() => hooks.trouble(null, refused), watchRetryMs);
    } else {
      hooks.trouble("reconnecting to the hub…");   // EventSource reconnects by itself
    }
  };
  return source;
}

function forget(beaconName, why) {
  const beacon = beacons.get(beaconName);
  if (beacon && beacon.source) beacon.source.close();
  beacons.delete(beaconName);
  render();
  hooks.forgotten(beaconName, why);
}

/** An attachment as the hub sends it (`data` in base64): its bytes, and its text when they are UTF-8. */
function readAttachment(attachment) {
  const bytes = Uint8Array.from(atob(attachment.data), (c) => c.charCodeAt(0));
  let text = null;
  try {
    text = utf8.decode(bytes);
  } catch { /* not text: listed in Details by its size, not shown to the audience */ }
  return { namespacedType: attachment.namespacedType, bytes, text };
}

function render() {
  const audience = [];
  const engineer = [];
  for (const beacon of beacons.values()) {
    for (const attachment of beacon.attachments) {
      if (attachment.text !== null && attachment.text.trim() !== "") audience.push(messageItem(attachment.text));
      engineer.push(detailLine(attachment));
    }
  }
  $("message-list").replaceChildren(...audience);
  $("messages").hidden = audience.length === 0;
  $("heard").replaceChildren(...engineer);
  $("no-messages").hidden = engineer.length > 0;
  if (engineer.length > 0 && firstMessageMs === null) {
    firstMessageMs = performance.now();
    $("heard").dataset.firstMessageMs = firstMessageMs.toFixed(0);
  }
}

/** Web addresses (http and https only) in a message's text. */
const addressPattern = /\bhttps?:\/\/[^\s<>"]+/g;
const trailingPunctuation = /[.,;:!?)\]'»”]+$/;

/** One message for the audience: its text, with each web address in it a link. */
function messageItem(text) {
  const item = document.createElement("li");
  item.className = "message";
  let at = 0;
  for (const match of text.matchAll(addressPattern)) {
    const address = match[0].replace(trailingPunctuation, "");
    const link = linkTo(address);
    if (!link) continue;
    item.append(text.slice(at, match.index), link);
    at = match.index + address.length;
  }
  item.append(text.slice(at));
  return item;
}

function linkTo(address) {
  let url;
  try {
    url = new URL(address);
  } catch {
    return null;
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return null;
  const link = document.createElement("a");
  link.href = url.href;
  link.textContent = address;
  link.rel = "noopener noreferrer";
  link.target = "_blank";
  return link;
}

function detailLine(attachment) {
  const line = document.createElement("div");
  line.className = "message";
  const type = document.createElement("span");
  type.className = "type";
  type.textContent = attachment.namespacedType;
  const text = document.createElement("span");
  text.className = "text";
  text.textContent = attachment.text ?? `(${attachment.bytes.length} bytes, not text)`;
  line.append(type, " ", text);
  return line;
}
