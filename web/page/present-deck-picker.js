// Switching deck on the stage (D): the same show goes on (its followers, counts and timer), and the
// room follows to the chosen deck's first slide.

import { json } from "./present-hub.js";
import { $, isProjectedWindow, session } from "./present-session.js";
import { applyShow, clearPendingPage, stageState } from "./present-stage.js";

export async function openDeckPicker() {
  if (!session.show || session.uploading || isProjectedWindow) return;
  const dialog = $("deck-picker");
  $("deck-picker-state").textContent = "Reading the project's decks…";
  $("deck-list").replaceChildren();
  if (!dialog.open) dialog.showModal();
  try {
    const { decks } = await json("GET", "/v1/decks");
    $("deck-list").replaceChildren(...decks.map(deckChoice));
    $("deck-picker-state").textContent = decks.length > 1 ? "" : "The project has no other deck: upload one on the start page.";
    const current = $("deck-list").querySelector("[aria-current=true]");
    ($("deck-list").querySelector("button:not([aria-current=true])") || current)?.focus();
  } catch (error) {
    $("deck-picker-state").textContent = `Could not read the decks: ${error.message}`;
  }
}

function deckChoice(deck) {
  const item = document.createElement("li");
  const button = document.createElement("button");
  button.type = "button";
  button.dataset.deck = deck.deck;
  const current = deck.deck === session.show.deck;
  button.setAttribute("aria-current", String(current));
  button.className = current ? "quiet" : "";
  button.textContent = `${deck.title} (${deck.pages} pages)${current ? ": showing" : ""}`;
  button.addEventListener("click", () => switchDeck(deck.deck));
  item.append(button);
  return item;
}

/** PUT {deck, page: 1}: the hub keeps the show (followers, counts, start) and sends every phone the
 * new deck at its first page. */
async function switchDeck(deck) {
  if (session.uploading) return;
  if (deck === session.show.deck) {
    $("deck-picker").close();
    return;
  }
  $("deck-picker-state").textContent = "Switching…";
  for (const button of $("deck-list").querySelectorAll("button")) button.disabled = true;
  try {
    clearPendingPage();
    applyShow(await json("PUT", `/v1/shows/${session.beaconId}`, { deck, page: 1 }));
    $("deck-picker").close();
    stageState("");
  } catch (error) {
    $("deck-picker-state").textContent = `The hub did not switch: ${error.message}`;
    for (const button of $("deck-list").querySelectorAll("button")) button.disabled = false;
  }
}
