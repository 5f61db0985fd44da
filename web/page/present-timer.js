// The presenter's timer: the time since the show started, or since Restart (kept in this tab, per
// show: the show survives deck switches, so the timer keys on the box and the show's start).

import { $, session } from "./present-session.js";

const timerStorage = "nearcast.present.timer"; // {show: "beacon@startedMs", originMs}
let timerInterval = null;

const timerShowId = () => `${session.beaconId}@${session.show.startedMs}`;

function timerOriginMs() {
  const saved = JSON.parse(sessionStorage.getItem(timerStorage) || "null");
  return saved && saved.show === timerShowId() ? saved.originMs : session.show.startedMs || session.openedAtMs;
}

export function startTimer() {
  clearInterval(timerInterval);
  renderTimer();
  timerInterval = setInterval(renderTimer, 1_000);
}

export function stopTimer() {
  clearInterval(timerInterval);
}

export function renderTimer() {
  if (!session.show) return;
  const seconds = Math.max(0, Math.floor((Date.now() - timerOriginMs()) / 1_000));
  const [h, m, s] = [Math.floor(seconds / 3600), Math.floor(seconds / 60) % 60, seconds % 60];
  const pad = (n) => String(n).padStart(2, "0");
  $("elapsed").textContent = h ? `${h}:${pad(m)}:${pad(s)}` : `${m}:${pad(s)}`;
}

$("timer-restart").addEventListener("click", () => {
  if (!session.show) return;
  sessionStorage.setItem(timerStorage, JSON.stringify({ show: timerShowId(), originMs: Date.now() }));
  renderTimer();
});
