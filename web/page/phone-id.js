// The phone's id on the hub (docs/present-api.md, "Phone ids"): reactions count under an id the hub
// gave this phone for a proof that it is in the room and some work (phone-id-worker.js), never one
// the page invents. One id per show, kept for the tab's life in sessionStorage; asked for as soon
// as the page follows a show and has a proof, so it is ready before the first tap.

const storageKey = (beacon, startedMs) => `nearcast.phone.${beacon}.${startedMs}`;
const pending = new Map();   // storage key -> the promise of an id
// The id of the show this page follows, sent with every request to the hub (phoneHeaders,
// phoneQuery): the hub's limits give a phone with an id a budget of its own, which another phone
// flooding from the same Wi-Fi address cannot spend (docs/venue-operator.md, "Limits").
let activeId = null;

/** `{ "X-Nearcast-Phone": id }` once this page has an id, else `{}`: spread into a fetch's headers. */
export function phoneHeaders() {
  return activeId ? { "X-Nearcast-Phone": activeId } : {};
}

/** `&phone=ID` once this page has an id, else "": for an address with a query already (an event
 * stream or an image cannot send headers). */
export function phoneQuery() {
  return activeId ? `&phone=${encodeURIComponent(activeId)}` : "";
}

/** The id for `show` on `beacon`, earned with `observed` (a heard EID or a pass) through `key`;
 * resolves to null when the hub refuses (the caller says why from `lastRefusal`). */
export function phoneIdFor(hub, key, beacon, show, observed) {
  const name = storageKey(beacon, show.startedMs);
  const kept = sessionStorage.getItem(name);
  if (kept) {
    activeId = kept;
    return Promise.resolve(kept);
  }
  if (!pending.has(name)) {
    const promise = earn(hub, key, observed).then((id) => {
      if (id) {
        sessionStorage.setItem(name, id);
        activeId = id;
      }
      return id;
    }).finally(() => pending.delete(name));
    pending.set(name, promise);
  }
  return pending.get(name);
}

/** Forgets an id the hub refused (expired, or another show's): the next tap earns a new one. */
export function forgetPhoneId(beacon, show) {
  const name = storageKey(beacon, show.startedMs);
  if (activeId === sessionStorage.getItem(name)) activeId = null;
  sessionStorage.removeItem(name);
}

export let lastRefusal = "";

async function earn(hub, key, observed) {
  try {
    const asked = await fetch(`${hub}/v1/phones/challenge`, { headers: { "X-Api-Key": key }, cache: "no-store" });
    if (!asked.ok) throw new Error(`the hub gave no challenge (HTTP ${asked.status})`);
    const { challenge, bits } = await asked.json();
    const { nonce } = await work(challenge, bits);
    const answer = await fetch(`${hub}/v1/phones`, {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-Api-Key": key },
      body: JSON.stringify({ challenge, nonce, observed }),
    });
    const body = await answer.json().catch(() => ({}));
    if (!answer.ok) throw new Error(body.error ? body.error.message : `HTTP ${answer.status}`);
    lastRefusal = "";
    return body.phone;
  } catch (error) {
    lastRefusal = error.message;
    return null;
  }
}

function work(challenge, bits) {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL("phone-id-worker.js", import.meta.url));
    worker.onmessage = (event) => {
      worker.terminate();
      if (event.data.error) reject(new Error(event.data.error));
      else resolve(event.data);
    };
    worker.onerror = (event) => {
      worker.terminate();
      reject(new Error(event.message || "the work failed"));
    };
    worker.postMessage({ challenge, bits });
  });
}
