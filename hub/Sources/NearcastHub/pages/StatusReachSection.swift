/// The operators' page's "Phones in the rooms" (`StatusPage`), beside the field checks: what the
/// listener pages told the hub of each visit (`GET /v1/reach`), a row per box and under it a row
/// per kind of phone, over today or the last days kept. Its script, served beside the page's own
/// (`scriptPath`), defines `refreshReach(descriptions)`, which the page's refresh calls.
enum StatusReachSection {
    static let html = #"""
    <section id="reach-section" hidden>
    <h2>Phones in the rooms <select id="reach-days" aria-label="Days counted"></select></h2>
    <p class="note">What the audience's listener pages told the hub, anonymously (no id, no address kept): per box, the
      phones that opened the page, how many heard the box, how many joined by the code on the screen (typed or by the
      QR code), the median time from the microphone's start to the first token, each band's mean level, and how many
      browsers kept their own processing on (echo cancellation or noise suppression: such a phone hears neither band);
      then the same per kind of phone. Days are UTC days.</p>
    <p id="reach-none" hidden>No listener page has reported yet.</p>
    <table id="reach" hidden>
      <thead><tr><th>Box</th><th>Phone</th><th>Phones</th><th>Heard</th><th>By code</th><th>First token</th>
        <th>Band levels</th><th>Processing on</th></tr></thead>
      <tbody></tbody>
    </table>
    </section>
    """#

    static let scriptPath = "/hub-reach.js"

    static let script = #"""
    "use strict";
    // Fills "Phones in the rooms" from GET /v1/reach; `descriptions` names each box.
    let reachDays = "1";
    function reachCell(value, cls) { const cell = document.createElement("td"); cell.textContent = value; if (cls) cell.className = cls; return cell; }
    function reachSeconds(ms) { return ms === undefined ? "-" : `${(ms / 1000).toFixed(1)} s`; }
    function reachRow(beacon, phone, figures, descriptions, extra) {
      const row = document.createElement("tr");
      row.dataset.beacon = beacon;
      row.dataset.phone = phone;
      const box = document.createElement("td");
      if (!phone) {
        if (beacon) {
          const name = document.createElement("div");
          name.textContent = descriptions.has(beacon) ? descriptions.get(beacon) || "(no description)" : "(not registered now)";
          const code = document.createElement("code");
          code.textContent = beacon;
          box.append(name, code);
        } else {
          box.textContent = "(no box found)";
        }
      }
      row.append(box, reachCell(phone || "all phones"), reachCell(String(figures.phones)),
                 reachCell(String(figures.heard), figures.phones && !figures.heard ? "problem" : ""),
                 reachCell(String(figures.byCode)), reachCell(reachSeconds(figures.medianFirstTokenMs)), ...extra);
      return row;
    }
    async function refreshReach(descriptions) {
      const answer = await api(`/v1/reach?days=${reachDays}`);
      const choose = document.getElementById("reach-days");
      const choices = [...new Set([1, 7, answer.daysKept])].filter(d => d <= answer.daysKept);
      if (choose.options.length !== choices.length) {
        choose.replaceChildren(...choices.map(d => { const o = document.createElement("option"); o.value = String(d);
          o.textContent = d === 1 ? "today" : `the last ${d} days`; return o; }));
      }
      choose.value = reachDays;
      const rows = [];
      for (const box of answer.boxes) {
        const beacon = box.beaconName || "";
        const levels = box.bands.map(b => `${b.band} ${b.meanLevelDb.toFixed(0)} dB`).join(", ") || "-";
        const capture = box.capture;
        const on = capture.echoCancellationOn + capture.noiseSuppressionOn;
        rows.push(reachRow(beacon, "", box, descriptions,
                           [reachCell(levels), reachCell(on ? `${capture.echoCancellationOn} echo, ${capture.noiseSuppressionOn} noise` : "none",
                                                         on ? "problem" : "ok")]));
        for (const kind of box.byBrowser) {
          rows.push(reachRow(beacon, `${kind.platform} · ${kind.browser}`, kind, descriptions, [reachCell(""), reachCell("")]));
        }
      }
      document.querySelector("#reach tbody").replaceChildren(...rows);
      document.getElementById("reach").hidden = !rows.length;
      document.getElementById("reach-none").hidden = rows.length > 0;
      document.getElementById("reach-section").hidden = false;
    }
    document.getElementById("reach-days").addEventListener("change", event => { reachDays = event.target.value; refresh(); });
    """#
}
