/// The page a speaker opens at their talk's upload address: the talk, a file chooser and a send
/// button, and what happened. Its script is a file of its own (`scriptPath`): the hub's
/// Content-Security-Policy allows no inline script.
enum TalkUploadPage {
    static let scriptPath = "/talk-upload.js"

    static func html(title: String, persons: [String], start: String, hasDeck: Bool) -> String {
        """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>Your deck for \(escaped(title))</title>
        <link rel="stylesheet" href="\(NoticePage.stylePath)">
        <script src="\(scriptPath)" defer></script>
        </head>
        <body>
        <h1>\(escaped(title))</h1>
        <p>\(escaped(persons.joined(separator: ", "))) · <time id="start" datetime="\(start)">\(start)</time></p>
        <p id="state">\(hasDeck ? "A deck is uploaded for this talk. Send another PDF to replace it before the talk starts." : "No deck yet: send your slides as a PDF.")</p>
        <form id="upload"><input id="file" type="file" accept="application/pdf"> <button type="submit">Send</button></form>
        </body>
        </html>
        """
    }

    static let script = """
        "use strict";
        const start = document.getElementById("start");
        start.textContent = new Date(start.dateTime).toLocaleString([], { dateStyle: "full", timeStyle: "short" });
        document.getElementById("upload").addEventListener("submit", async (event) => {
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
        """

    private static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
