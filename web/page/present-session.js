// What the presenter's page holds while it runs, shared by its modules: the project's secret key,
// the show as the hub last told it, the box it runs on, the reaction choices; and the tab's
// sessionStorage, where the key and this tab's show survive a reload.

export const $ = (id) => document.getElementById(id);

const keyStorage = "nearcast.present.key";
const showStorage = "nearcast.present.show";   // {deck, beacon} of this tab's show

/** This window is the projected one of a presenter view (opened by the console). */
export const isProjectedWindow = new URLSearchParams(location.search).get("view") === "audience";

export const session = {
  secretKey: sessionStorage.getItem(keyStorage) || "",
  show: null,             // the hub's show object, as last heard
  beaconId: "",           // "4!hex"
  choices: [],            // the project's reaction choices
  uploading: false,       // a PDF is on its way to the hub
  openedAtMs: Date.now(), // reactions from before this page opened are not drawn
};

/** Keeps the key for this tab (a reload finds it). */
export function rememberKey(key) {
  session.secretKey = key;
  sessionStorage.setItem(keyStorage, key);
}

export function forgetKey() {
  sessionStorage.removeItem(keyStorage);
  session.secretKey = "";
}

/** "beacons/4!0a1b…" or "4!0a1b…" -> "4!0a1b…" */
export function beaconIdOf(name) {
  return String(name).replace(/^beacons\//, "");
}

export function saveShow(deck, beacon) {
  sessionStorage.setItem(showStorage, JSON.stringify({ deck, beacon }));
}

export function savedShow() {
  return JSON.parse(sessionStorage.getItem(showStorage) || "null");
}

export function forgetShow() {
  sessionStorage.removeItem(showStorage);
}

export function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
