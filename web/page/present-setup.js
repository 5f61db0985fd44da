// Setting up a show on the presenter's page: the project's secret key, a deck (chosen, or a PDF
// uploaded with the title the audience's phones show), the room's box; then Present.

import { call, json } from "./present-hub.js";
import { $, beaconIdOf, forgetKey, forgetShow, rememberKey, savedShow, session } from "./present-session.js";
import { present } from "./present-stage.js";

export function setupState(text, problem = false) {
  $("setup-state").textContent = text;
  $("setup-state").dataset.state = problem ? "problem" : "ready";
}

export function showSetup() {
  $("setup").hidden = false;
  $("stage").hidden = true;
}

/** The setup screen: the key asked for, or the project's decks and boxes to choose from; a show
 * this tab was presenting (a reload, a direct link) is opened again at once. */
export async function setUp() {
  showSetup();
  if (!session.secretKey) {
    setupState("Type the project's secret key to present.");
    $("key-form").hidden = false;
    $("show-form").hidden = true;
    $("key").focus();
    return;
  }
  setupState("Reading the project's decks and boxes…");
  let decks;
  let beacons;
  try {
    [decks, beacons] = await Promise.all([json("GET", "/v1/decks"), json("GET", "/v1beta1/beacons")]);
  } catch (error) {
    if (error.status === 401 || error.status === 403) {
      forgetKey();
      setupState(`The hub refused the key: ${error.message}. Type the project's secret key.`, true);
      $("key-form").hidden = false;
      $("show-form").hidden = true;
    } else {
      setupState(`Could not read the project: ${error.message}`, true);
    }
    return;
  }
  $("key-form").hidden = true;
  $("show-form").hidden = false;
  fillDeckSelect(decks.decks);
  // A box is listed by its name: the beacon's description is the name the venue gave it (the room).
  fillSelect($("beacon-select"), (beacons.beacons || []).map((b) => [beaconIdOf(b.beaconName), b.description || beaconIdOf(b.beaconName)]));
  const saved = savedShow();
  if (saved) {
    $("deck-select").value = saved.deck;
    $("beacon-select").value = saved.beacon;
  }
  if (!decks.decks.length) setupState("No decks yet: upload a PDF.");
  else if (!(beacons.beacons || []).length) setupState("The project has no box: register one (the box does it when it syncs with the hub).", true);
  else setupState("Pick a deck and the room's box.");
  // A direct link, or this tab's show before a reload: straight back to it.
  if (saved && decks.decks.some((d) => d.deck === saved.deck)) await present(saved.deck, saved.beacon);
}

function fillSelect(select, options) {
  select.replaceChildren(...options.map(([value, text]) => new Option(text, value)));
}

function fillDeckSelect(decks) {
  fillSelect($("deck-select"), decks.map((d) => [d.deck, `${d.title} (${d.pages} pages)`]));
}

$("key-form").addEventListener("submit", (event) => {
  event.preventDefault();
  rememberKey($("key").value.trim());
  $("key").value = "";
  setUp();
});

$("forget-key").addEventListener("click", () => {
  forgetKey();
  forgetShow();
  setUp();
});

$("show-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  if (session.uploading) return;
  if ($("remote-choice").checked) document.body.classList.add("remote");
  const beacon = $("beacon-select").value;
  if (!beacon) {
    setupState("Pick a deck and a box first.", true);
    return;
  }
  // A PDF chosen and not yet uploaded is the deck the presenter means: it goes up first, and the
  // show starts on it (never on whatever the list held), or not at all if the hub refuses it.
  const deck = $("upload").files[0] ? await uploadChosenPDF(", then presenting it") : $("deck-select").value;
  if (!deck) {
    if (!$("upload").files[0]) setupState("Pick a deck and a box first.", true);
    return;
  }
  present(deck, beacon);
});

// --- Uploading a deck, with the title the audience's phones show ----------------------------------

/** "Quarterly review.final.pdf" -> "Quarterly review.final": the file's name is only a default. */
const titleFromFileName = (name) => name.replace(/\.[^.]*$/, "") || name;

$("upload").addEventListener("change", () => {
  const file = $("upload").files[0];
  const title = $("upload-title");
  // The default follows the file chosen until the presenter types a title of their own.
  if (file && (!title.value || title.dataset.fromFile === title.value)) {
    title.value = titleFromFileName(file.name);
    title.dataset.fromFile = title.value;
  }
  $("upload-start").disabled = !file || session.uploading;
  if (file) setupState(`${file.name} is chosen: Present uploads it and starts on it (Upload only uploads it).`);
});

$("upload-start").addEventListener("click", () => uploadChosenPDF(""));

/** Uploads the PDF chosen, with its title, and selects it in the deck list; returns its deck, or
 * null when there is none or the hub refused it (the state line says why). `then` ends the state
 * line while it uploads (what follows the upload). */
async function uploadChosenPDF(then) {
  const file = $("upload").files[0];
  if (!file || session.uploading) return null;
  const title = $("upload-title").value.trim() || titleFromFileName(file.name);
  setUploading(true);
  setupState(`Uploading ${file.name} (${(file.size / 1e6).toFixed(1)} MB); the hub renders every page${then}…`);
  try {
    const created = await (await call("POST", `/v1/decks?title=${encodeURIComponent(title)}`, file, "application/pdf")).json();
    fillDeckSelect((await json("GET", "/v1/decks")).decks);
    $("deck-select").value = created.deck;
    setupState(`“${title}”: ${created.pages} pages, ready.`);
    $("upload").value = "";
    $("upload-title").value = "";
    return created.deck;
  } catch (error) {
    setupState(`${file.name} was refused: ${error.message}`, true);
    return null;
  } finally {
    setUploading(false);
  }
}

/** While a deck uploads, nothing can start or switch to a deck (the list is about to change, and a
 * Present pressed now would start the old selection). */
function setUploading(on) {
  session.uploading = on;
  for (const id of ["start-show", "deck-select", "switch-deck", "upload-start"]) $(id).disabled = on;
  if (!on) $("upload-start").disabled = !$("upload").files[0];
}
