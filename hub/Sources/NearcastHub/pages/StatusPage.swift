/// The operators' page: when the project has a schedule, the day at a glance (each room's talks
/// laid out by time, the talk on now marked, each room's box online, heard and followed, the
/// problems, the last import and what it changed); the project's boxes, their last heartbeat and
/// problems, and their attachments; below them, what the listener pages reported of each visit (`StatusReachSection`)
/// and the field check results the audience's phones sent, one row per box and kind of phone (platform and browser),
/// summarised in the browser. The secret key is typed
/// in and kept in the tab's sessionStorage (never in a URL, where it would land in logs); the
/// page reads the same JSON API as any client, refreshing every 5 s.
enum StatusPage {
    static let html = #"""
    <!doctype html>
    <html lang="en">
    <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>Nearcast hub</title>
    <link rel="stylesheet" href="\#(stylePath)">
    <script src="\#(StatusReachSection.scriptPath)" defer></script>
    <script src="\#(scriptPath)" defer></script>
    </head>
    <body>
    <h1>Nearcast hub</h1>
    <div id="summary">Enter the project's secret key to see its boxes.</div>
    <form id="login"><input id="key" type="password" placeholder="secret key (ncsec_...)" autocomplete="off">
      <button type="submit">Show</button> <button type="button" id="forget">Forget key</button></form>
    <div id="error" role="alert"></div>
    <section id="today-section" hidden>
    <h2><span id="today-title">Today</span> <span id="today-date" class="note"></span>
      <select id="today-day" aria-label="Day shown" hidden></select></h2>
    <p id="today-import" class="note"></p>
    <ul id="today-problems"></ul>
    <div id="today" class="day"></div>
    </section>
    <table id="boxes" hidden>
      <thead><tr><th>Box</th><th>Last heartbeat</th><th>Status</th><th>Problems</th><th>Attachments</th></tr></thead>
      <tbody></tbody>
    </table>
    \#(StatusReachSection.html)
    <section id="fieldchecks-section" hidden>
    <h2>Field checks</h2>
    <p class="note">What the audience's phones measured of each box's test sounds (the check page's results, sent by
      choice and anonymously), by kind of phone: the median margin of each band's sweep tones over the noise (18 dB
      or more: its bursts decode), how many phones decoded its test burst, and the band the check page recommended
      most often.</p>
    <p id="fieldchecks-none" hidden>No field check results were sent yet.</p>
    <p id="fieldchecks-summary" class="note"></p>
    <table id="fieldchecks" hidden>
      <thead><tr><th>Box</th><th>Phone</th><th>Checks</th><th>High band SNR</th><th>High decoded</th><th>Low band SNR</th>
        <th>Low decoded</th><th>Verdict</th></tr></thead>
      <tbody></tbody>
    </table>
    </section>
    </body>
    </html>
    """#

    /// Where the page's stylesheet and script are served: files, not inline, so the page runs under
    /// the hub's Content-Security-Policy (`SecurityHeaders`), which allows no inline style or script.
    static let stylePath = "/hub-status.css", scriptPath = "/hub-status.js"

    static let css = #"""
    body { font: 15px/1.45 system-ui, sans-serif; margin: 2rem auto; max-width: 80rem; padding: 0 1rem; color: #1d1d1f; }
    h1 { font-size: 1.4rem; margin-bottom: .2rem; }
    table { border-collapse: collapse; width: 100%; margin-top: 1rem; }
    /* On a phone a wide table scrolls on its own; the page (the summary, the key) stays put. */
    @media (max-width: 40rem) { table { display: block; overflow-x: auto; } }
    th, td { text-align: left; padding: .4rem .5rem; border-bottom: 1px solid #ddd; vertical-align: top; }
    th { font-weight: 600; background: #f5f5f7; }
    code { font-size: .85rem; }
    .ok { color: #137333; } .problem { color: #b3261e; font-weight: 600; } .stale { color: #8a6d00; }
    #error { color: #b3261e; } form { margin: 1rem 0; }
    input { font: inherit; padding: .3rem; width: 24rem; max-width: 100%; }
    h2 { font-size: 1.15rem; margin: 2rem 0 .2rem; } .note { color: #555; margin: .2rem 0; }
    h2 .note { font-size: .95rem; font-weight: 400; } select { font: inherit; margin-left: .5rem; }
    #today-problems { margin: .4rem 0; padding-left: 1.2rem; } #today-problems li { color: #b3261e; }
    .day { display: grid; grid-template-columns: 15rem 1fr; margin-top: .6rem; border-top: 1px solid #ddd; }
    .day > div { border-bottom: 1px solid #ddd; padding: .35rem 0; min-width: 0; }
    .room { padding-right: .6rem !important; } .room strong { display: block; } .room div { font-size: .85rem; }
    .track { position: relative; min-height: 3.1rem; } .axis { min-height: 1.2rem; padding: 0 !important; }
    .tick { position: absolute; top: 0; font-size: .75rem; color: #555; border-left: 1px solid #ccc; padding-left: .2rem; height: 100%; }
    .talk { position: absolute; top: .3rem; height: 2.5rem; z-index: 1; box-sizing: border-box; background: #e8eef9; border: 1px solid #b6c6e3;
            border-radius: 4px; padding: .1rem .3rem; overflow: hidden; white-space: nowrap; font-size: .8rem; line-height: 1.25; }
    .talk b, .talk span { display: block; overflow: hidden; text-overflow: ellipsis; } .talk span { color: #444; }
    .talk.past { background: #f1f1f3; border-color: #d5d5d8; color: #666; }
    .talk.now { background: #fff4cc; border: 2px solid #c98a00; font-weight: 600; }
    .nowline { position: absolute; top: 0; bottom: 0; border-left: 2px solid #b3261e; pointer-events: none; }
    """#

    static let script = #"""
    "use strict";
    const keyName = "nearcast-hub-secret-key";
    const text = (tag, value, cls) => { const e = document.createElement(tag); e.textContent = value; if (cls) e.className = cls; return e; };
    function decode(b64) { try { return new TextDecoder().decode(Uint8Array.from(atob(b64), c => c.charCodeAt(0))); } catch (_) { return "(binary)"; } }
    async function api(path) {
      const response = await fetch(path, { headers: { "X-Api-Key": sessionStorage.getItem(keyName) } });
      const body = await response.json();
      if (!response.ok) throw new Error(body.error ? body.error.message : response.statusText);
      return body;
    }
    function age(time) {
      if (!time) return ["never", "problem"];
      const seconds = Math.round((Date.now() - Date.parse(time)) / 1000);
      return [seconds < 120 ? `${seconds} s ago` : `${Math.round(seconds / 60)} min ago`, seconds < 300 ? "ok" : "stale"];
    }
    const median = values => {
      if (!values.length) return null;
      const sorted = [...values].sort((a, b) => a - b), middle = sorted.length >> 1;
      return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
    };
    // One row per box (none: the phone resolved no box) and kind of phone.
    function fieldCheckRows(checks, descriptions) {
      const groups = new Map();
      for (const check of checks) {
        const beacon = check.beaconName || "", phone = `${check.platform} · ${check.browser}`;
        const key = JSON.stringify([beacon, phone]);
        if (!groups.has(key)) groups.set(key, { beacon, phone, checks: [] });
        groups.get(key).checks.push(check);
      }
      const order = [...groups.values()].sort((a, b) =>
        (a.beacon === "") - (b.beacon === "") || a.beacon.localeCompare(b.beacon) || a.phone.localeCompare(b.phone));
      return order.map(group => {
        const row = document.createElement("tr");
        row.dataset.beacon = group.beacon;
        row.dataset.phone = group.phone;
        const box = document.createElement("td");
        if (group.beacon) {
          box.append(text("div", descriptions.has(group.beacon) ? descriptions.get(group.beacon) || "(no description)" : "(not registered now)"),
                     text("code", group.beacon));
        } else {
          box.textContent = "(no box resolved)";
        }
        row.append(box, text("td", group.phone), text("td", String(group.checks.length)));
        for (const name of ["high", "low"]) {
          const heard = group.checks.flatMap(c => c.bands.filter(b => b.band === name));
          const snr = median(heard.map(b => b.snrDb));
          row.append(text("td", snr === null ? "-" : `${snr.toFixed(1)} dB`),
                     text("td", heard.length ? `${heard.filter(b => b.decoded).length} of ${heard.length}` : "-"));
        }
        const counts = new Map();
        for (const c of group.checks) counts.set(c.verdict, (counts.get(c.verdict) || 0) + 1);
        // Ties go to the verdict that recommends more (both, then high, low, neither).
        const verdict = ["both", "high", "low", "neither"].filter(v => counts.has(v))
          .reduce((best, v) => counts.get(v) > counts.get(best) ? v : best);
        row.append(text("td", `${verdict} (${counts.get(verdict)} of ${group.checks.length})`));
        return row;
      });
    }
    // The day at a glance: a row per room, its talks placed by time on one axis for every room.
    let dayShown = "";
    function clockFormat(timeZone) {
      const options = { hour: "2-digit", minute: "2-digit", hourCycle: "h23" };
      try { return new Intl.DateTimeFormat(undefined, { ...options, timeZone }); } catch (_) { return new Intl.DateTimeFormat(undefined, options); }
    }
    function boxLine(room) {
      const cell = document.createElement("div");
      cell.className = "room";
      cell.append(text("strong", room.name));
      const box = room.box;
      if (!box) { cell.append(text("div", "no box", "problem")); return cell; }
      const offline = box.lastSeenTime ? `offline, last heartbeat ${age(box.lastSeenTime)[0]}` : "offline, no heartbeat yet";
      cell.append(text("div", `box ${box.name}: ${box.online ? "online" : offline}`, box.online ? "ok" : "problem"));
      const heard = box.lastHeardTime ? age(box.lastHeardTime)[0] : "never";
      cell.append(text("div", box.heardLately ? `heard by phones ${heard}` : `not heard lately (last ${heard})`, box.heardLately ? "ok" : "stale"));
      cell.append(text("div", `${box.followers} following now`));
      return cell;
    }
    function renderDay(day, schedule) {
      const format = clockFormat(day.timeZone || undefined), time = ms => format.format(new Date(ms));
      const talks = day.rooms.flatMap(r => r.talks);
      const hour = 3600000;
      const from = Math.floor(Math.min(...talks.map(t => Date.parse(t.start))) / hour) * hour;
      const to = Math.ceil(Math.max(...talks.map(t => Date.parse(t.end))) / hour) * hour;
      const at = ms => `${((ms - from) / (to - from) * 100).toFixed(3)}%`;
      const now = Date.now(), step = (to - from) / hour > 14 ? 2 * hour : hour;
      const cells = [text("div", ""), document.createElement("div")];
      cells[1].className = "track axis";
      for (let tick = from; tick < to; tick += step) {
        const label = text("div", time(tick), "tick");
        label.style.left = at(tick);
        cells[1].append(label);
      }
      for (const room of day.rooms) {
        const track = document.createElement("div");
        track.className = "track";
        track.dataset.room = room.name;
        for (const talk of room.talks) {
          const start = Date.parse(talk.start), end = Date.parse(talk.end);
          const block = document.createElement("div");
          const isNow = room.now && room.now.guid === talk.guid;
          block.className = "talk" + (isNow ? " now" : end <= now ? " past" : "");
          block.dataset.guid = talk.guid;
          block.style.left = at(start);
          block.style.width = `calc(${at(end)} - ${at(start)} - 2px)`;
          const when = `${time(start)}-${time(end)}`;
          block.title = `${talk.title}\n${when}${talk.persons.length ? " · " + talk.persons.join(", ") : ""}${isNow ? "\n(on now)" : ""}`;
          block.append(text("b", talk.title), text("span", talk.persons.length ? `${when} · ${talk.persons.join(", ")}` : when));
          track.append(block);
        }
        if (from <= now && now < to) {
          const line = document.createElement("div");
          line.className = "nowline";
          line.style.left = at(now);
          track.append(line);
        }
        const row = boxLine(room);
        row.dataset.room = room.name;
        cells.push(row, track);
      }
      document.getElementById("today").replaceChildren(...(talks.length ? cells : [text("div", "No talks on this day.")]));
      document.getElementById("today-title").textContent = dayShown ? "Day" : "Today";
      document.getElementById("today-date").textContent = day.day ? `day ${day.day.index}, ${day.day.date}${day.timeZone ? " (" + day.timeZone + ")" : ""}` : "";
      const choose = document.getElementById("today-day");
      choose.replaceChildren(text("option", "on now"), ...day.days.map(d => text("option", `day ${d.index}, ${d.date}`)));
      choose.options[0].value = "";
      day.days.forEach((d, i) => { choose.options[i + 1].value = String(d.index); });
      choose.value = dayShown;
      choose.hidden = day.days.length < 2;
      document.getElementById("today-problems").replaceChildren(...day.problems.map(p => text("li", p)));
      const change = schedule.lastChange || {};
      const changed = ["added", "moved", "retitled", "respoken", "removed", "unchanged"]
        .filter(k => change[k]).map(k => `${change[k]} ${k}`).join(", ");
      document.getElementById("today-import").textContent = schedule.importedAt
        ? `Schedule imported ${new Date(schedule.importedAt).toLocaleString()} from ${schedule.source || "(unknown)"}: ` +
          `${schedule.talks} talks in ${schedule.rooms} rooms; the import changed ${changed || "nothing"}.`
        : "";
    }
    async function refreshDay() {
      const schedule = await api("/v1/schedule");
      document.getElementById("today-section").hidden = !schedule.talks;
      if (!schedule.talks) return;
      renderDay(await api("/v1/day" + (dayShown ? `?day=${dayShown}` : "")), schedule);
    }
    async function refresh() {
      if (!sessionStorage.getItem(keyName)) return;
      try {
        await refreshDay();
        const list = await api("/v1beta1/beacons");
        const rows = [];
        for (const beacon of list.beacons) {
          const id = beacon.beaconName.replace(/^beacons\//, "");
          const attachments = (await api(`/v1beta1/beacons/${id}/attachments`)).attachments;
          const row = document.createElement("tr");
          row.dataset.beacon = beacon.beaconName;
          const name = document.createElement("td");
          name.append(text("div", beacon.description || "(no description)"), text("code", beacon.beaconName));
          const [when, cls] = age(beacon.lastHeartbeatTime);
          const heartbeat = beacon.heartbeat || {};
          const problems = heartbeat.problems || [];
          row.append(name, text("td", when, cls), text("td", heartbeat.status || "-"),
                     text("td", problems.length ? problems.join(", ") : "none", problems.length ? "problem" : "ok"));
          const cell = document.createElement("td");
          for (const a of attachments) cell.append(text("div", `${a.namespacedType} ${decode(a.data)}`));
          if (!attachments.length) cell.textContent = "none";
          row.append(cell);
          rows.push(row);
        }
        document.querySelector("#boxes tbody").replaceChildren(...rows);
        document.getElementById("boxes").hidden = false;
        const descriptions = new Map(list.beacons.map(b => [b.beaconName, b.description]));
        await refreshReach(descriptions);
        const checks = (await api("/v1beta1/fieldchecks")).fieldChecks;
        document.querySelector("#fieldchecks tbody").replaceChildren(...fieldCheckRows(checks, descriptions));
        document.getElementById("fieldchecks").hidden = !checks.length;
        document.getElementById("fieldchecks-none").hidden = checks.length > 0;
        document.getElementById("fieldchecks-summary").textContent = checks.length
          ? `${checks.length === 1000 ? "The newest 1000" : checks.length} result${checks.length === 1 ? "" : "s"}, the newest ${new Date(checks[0].createTime).toLocaleString()}.`
          : "";
        document.getElementById("fieldchecks-section").hidden = false;
        const withProblems = list.beacons.filter(b => ((b.heartbeat || {}).problems || []).length).length;
        // Several instances share the venue's limits, each its share (docs: the room's rules across instances).
        const instances = Number((await (await fetch("/healthz")).json()).instances || 1);
        document.getElementById("summary").textContent =
          `${list.beacons.length} box${list.beacons.length === 1 ? "" : "es"}, ${withProblems} with problems. `
          + `${instances} hub instance${instances === 1 ? "" : "s"} serving. Updated ${new Date().toLocaleTimeString()}.`;
        document.getElementById("error").textContent = "";
      } catch (error) {
        document.getElementById("error").textContent = `Cannot read the project: ${error.message}`;
      }
    }
    document.getElementById("login").addEventListener("submit", event => {
      event.preventDefault();
      sessionStorage.setItem(keyName, document.getElementById("key").value.trim());
      document.getElementById("key").value = "";
      refresh();
    });
    document.getElementById("forget").addEventListener("click", () => {
      sessionStorage.removeItem(keyName);
      document.getElementById("boxes").hidden = true;
      document.getElementById("today-section").hidden = true;
      document.getElementById("fieldchecks-section").hidden = true;
      document.getElementById("reach-section").hidden = true;
      document.getElementById("summary").textContent = "Enter the project's secret key to see its boxes.";
    });
    document.getElementById("today-day").addEventListener("change", event => { dayShown = event.target.value; refresh(); });
    refresh();
    setInterval(refresh, 5000);
    """#
}
