/// The page a speaker opens at their talk's upload address: the talk, a file chooser and a send
/// button, and what happened; from the talk's start, its reactions (`TalkFiguresSection`), which
/// the page reads again every 30 s while the talk is on. Its script is a file of its own
/// (`scriptPath`): the hub's Content-Security-Policy allows no inline script.
enum TalkUploadPage {
    static let scriptPath = "/talk-upload.js"

    /// What the page says of the deck, and whether it offers to send one: as the upload's rules
    /// (`TalkUploadController`) take one then.
    struct Upload {
        let note: String
        let open: Bool

        init(state: TalkFigures.State, hasDeck: Bool) {
            switch (state, hasDeck) {
            case (.before, true): (note, open) = ("A deck is uploaded for this talk. Send another PDF to replace it before the talk starts.", true)
            case (.before, false): (note, open) = ("No deck yet: send your slides as a PDF.", true)
            case (.on, true): (note, open) = ("Your deck is on stage: it can no longer be replaced.", false)
            case (.on, false): (note, open) = ("No deck yet: send your slides as a PDF, and the room shows them.", true)
            case (.over, _): (note, open) = ("The talk is over: its deck can no longer be changed.", false)
            }
        }
    }

    static func html(title: String, persons: [String], start: String, upload: Upload, figures: String) -> String {
        """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>Your deck for \(HTMLText.escaped(title))</title>
        <link rel="stylesheet" href="\(NoticePage.stylePath)">
        <script src="\(scriptPath)" defer></script>
        </head>
        <body>
        <h1>\(HTMLText.escaped(title))</h1>
        <p>\(HTMLText.escaped(persons.joined(separator: ", "))) · <time id="start" datetime="\(start)">\(start)</time></p>
        <p id="state">\(upload.note)</p>
        \(upload.open ? "<form id=\"upload\"><input id=\"file\" type=\"file\" accept=\"application/pdf\"> <button type=\"submit\">Send</button></form>" : "")
        \(figures)</body>
        </html>
        """
    }

    static let script = """
        "use strict";
        const start = document.getElementById("start");
        start.textContent = new Date(start.dateTime).toLocaleString([], { dateStyle: "full", timeStyle: "short" });
        document.getElementById("upload")?.addEventListener("submit", async (event) => {
          event.preventDefault();
          const file = document.getElementById("file").files[0];
          const state = document.getElementById("state");
          if (!file) { state.textContent = "Choose the PDF first."; return; }
          state.textContent = "Sending and rendering your slides…";
          const response = await fetch(location.pathname, { method: "POST", headers: { "Content-Type": "application/pdf" }, body: file });
          const answer = await response.json().catch(() => ({}));
          state.textContent = response.ok ? `Done: ${answer.pages} slides are ready for your talk.`
            : (answer.error && answer.error.message) || `The hub refused it (${response.status}).`;
        });
        // The figures, drawn by the hub: the page's own section read again while the talk is on
        // (and before it, to show them from its start).
        setInterval(async () => {
          const figures = document.getElementById("figures");
          if (!figures || figures.dataset.state === "over") return;
          const response = await fetch(location.pathname, { cache: "no-store" }).catch(() => null);
          if (!response || !response.ok) return;
          const fresh = new DOMParser().parseFromString(await response.text(), "text/html").getElementById("figures");
          if (fresh) figures.replaceWith(fresh);
        }, 30000);
        """
}
