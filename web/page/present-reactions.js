// The audience's reactions on the presenter's page: the counts in the panel, and each reaction
// falling over the slide the way the seed's app drew them: from a random point of the top edge,
// 60 pt heavy, falling over 5-15 s, spinning up to ±8π, shrinking to half, fading.

import { imageURL } from "./present-hub.js";
import { $, session } from "./present-session.js";

const maxFalling = 150;             // reactions on screen at once; beyond it the oldest go first
const fallMinMs = 5_000;
const fallMaxMs = 15_000;

/** A reaction as the page draws it: its image (fetched with the key) when its choice has one,
 * else its emoji in a span. */
function choiceElement(choice, value) {
  if (choice && choice.kind === "image") {
    const image = document.createElement("img");
    image.alt = value;
    imageURL(choice.url).then((url) => { image.src = url; }).catch(() => {});
    return image;
  }
  const item = document.createElement("span");
  item.textContent = value;
  return item;
}

export function renderCounts() {
  const counts = session.show.counts || {};
  $("counts").replaceChildren(...session.choices.map((choice) => {
    const item = document.createElement("span");
    item.dataset.reaction = choice.value;
    item.append(choice.kind === "image" ? choiceElement(choice, choice.value) : choice.value);
    const count = document.createElement("span");
    count.className = "count";
    count.textContent = ` ${counts[choice.value] || 0}`;
    item.append(count);
    return item;
  }));
}

/** A batch of the show's `reactions` event: the counts, and the new ones falling. */
export function reactionsArrived(batch) {
  if (session.show) session.show.counts = batch.counts;
  renderCounts();
  const since = Math.max(session.openedAtMs, session.show ? session.show.startedMs : 0) - 2_000;
  for (const reaction of batch.reactions) {
    if (reaction.time >= since) drop(reaction.value);
  }
}

function drop(value) {
  const overlay = $("reactions");
  if (document.body.classList.contains("remote")) return;
  while (overlay.childElementCount >= maxFalling) overlay.firstElementChild.remove();
  const item = choiceElement(session.choices.find((c) => c.value === value), value);
  item.dataset.reaction = value;
  overlay.append(item);
  const width = overlay.clientWidth;
  const height = overlay.clientHeight;
  const x = Math.random() * Math.max(0, width - 80);
  const spin = (Math.random() * 2 - 1) * 8 * Math.PI;
  const duration = fallMinMs + Math.random() * (fallMaxMs - fallMinMs);
  const animation = item.animate([
    { transform: `translate(${x}px, -80px) rotate(0rad) scale(1)`, opacity: 1 },
    { transform: `translate(${x}px, ${height}px) rotate(${spin}rad) scale(0.5)`, opacity: 0 },
  ], { duration, easing: "linear", fill: "forwards" });
  animation.onfinish = () => item.remove();
}
