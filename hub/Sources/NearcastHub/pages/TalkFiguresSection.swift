/// The speaker's figures on their talk's page (`TalkUploadPage`): the reactions per slide (a
/// table, a bar each) and per minute (a stacked bar chart), drawn on the hub as HTML and inline
/// SVG. No script draws them and no style attribute sizes them (the hub's Content-Security-Policy
/// allows neither): SVG's own attributes do, so the page works as served.
enum TalkFiguresSection {
    /// The chart's colours, a reaction each in the order of their counts (then again).
    static let colours = ["#d9480f", "#1971c2", "#2f9e44", "#ae3ec9", "#f08c00", "#0c8599", "#c2255c", "#5c940d"]

    static func html(_ figures: TalkFigures, token: String) -> String {
        var html = "<section id=\"figures\" data-state=\"\(figures.state.rawValue)\">\n<h2>Your talk's reactions</h2>\n"
        guard figures.state != .before else {
            return html + "<p>Once your talk starts, the reactions of the audience's phones appear here, slide by slide and "
                + "minute by minute: only from phones that proved they are in the room.</p>\n</section>\n"
        }
        let colour = Dictionary(uniqueKeysWithValues: figures.values.enumerated().map { ($1, colours[$0 % colours.count]) })
        let sofar = figures.state == .on ? " so far" : ""
        let each = figures.values.map { "\(HTMLText.escaped($0)) \(figures.counts[$0]!)" }.joined(separator: " \u{B7} ")
        html += "<p><strong>\(figures.total)</strong> reactions\(sofar), from phones that proved they were in the room"
            + (each.isEmpty ? "" : ": \(each)") + ".</p>\n"
        let base = TalkUploads.pathPrefix + token
        html += "<p><a href=\"\(base)/reactions.csv\" download>Download as CSV</a> \u{B7} <a href=\"\(base)/reactions.json\">JSON</a></p>\n"
        guard !figures.slides.isEmpty else { return html + "</section>\n" }
        html += slideTable(figures)
        html += "<h3>Minute by minute</h3>\n" + timeline(figures, colour: colour) + legend(figures.values, colour: colour)
        return html + "</section>\n"
    }

    /// A row per slide: its count of each reaction, its total, and a bar as long as its share of
    /// the busiest slide's.
    static func slideTable(_ figures: TalkFigures) -> String {
        let most = max(1, figures.slides.map(\.total).max() ?? 1)
        var html = "<h3>Slide by slide</h3>\n<table>\n<thead><tr><th scope=\"col\">Slide</th>"
        html += figures.values.map { "<th scope=\"col\">\(HTMLText.escaped($0))</th>" }.joined() + "<th scope=\"col\">All</th><th></th></tr></thead>\n<tbody>\n"
        for slide in figures.slides {
            let name = slide.ownDeck ? String(slide.slide.page)
                : "\(HTMLText.escaped(figures.deckName(slide.slide.deckID))), \(slide.slide.page)"
            html += "<tr><th scope=\"row\">\(name)</th>"
            html += figures.values.map { "<td>\(slide.counts[$0] ?? 0)</td>" }.joined()
            let width = slide.total * 100 / most
            html += "<td>\(slide.total)</td><td><svg width=\"100\" height=\"10\" viewBox=\"0 0 100 10\" aria-hidden=\"true\">"
                + "<rect width=\"\(width)\" height=\"10\" fill=\"\(colours[1])\"/></svg></td></tr>\n"
        }
        return html + "</tbody>\n</table>\n"
    }

    /// A bar per minute, its reactions stacked (a tooltip names them), minutes marked every 5 or 10.
    static func timeline(_ figures: TalkFigures, colour: [String: String]) -> String {
        // About 480 units wide whatever the talk's length, so the minutes' labels keep their size.
        let (height, axis) = (120, 16)
        let barWidth = max(2, 480 / max(1, figures.timeline.count))
        let width = max(1, figures.timeline.count) * barWidth
        let most = max(1, figures.timeline.map(\.total).max() ?? 1)
        var svg = "<svg viewBox=\"0 0 \(width) \(height + axis)\" width=\"100%\" role=\"img\" "
            + "aria-label=\"Reactions per minute, \(figures.timeline.count) minutes from the talk's start\">\n"
        let every = figures.timeline.count > 60 ? 10 : 5
        for minute in figures.timeline {
            let x = minute.minute * barWidth
            if minute.minute % every == 0 {
                svg += "<text x=\"\(x)\" y=\"\(height + axis - 3)\" font-size=\"12\" fill=\"#555\">\(minute.minute)</text>"
            }
            guard minute.total > 0 else { continue }
            let named = figures.values.compactMap { value in minute.counts[value].map { "\(HTMLText.escaped(value)) \($0)" } }
            svg += "<g><title>minute \(minute.minute): \(named.joined(separator: ", "))</title>"
            var top = height
            for value in figures.values {
                guard let count = minute.counts[value] else { continue }
                let bar = max(1, count * height / most)
                top -= bar
                svg += "<rect x=\"\(x)\" y=\"\(top)\" width=\"\(barWidth - 1)\" height=\"\(bar)\" fill=\"\(colour[value]!)\"/>"
            }
            svg += "</g>\n"
        }
        return svg + "<line x1=\"0\" y1=\"\(height)\" x2=\"\(width)\" y2=\"\(height)\" stroke=\"#999\" stroke-width=\"1\"/>\n</svg>\n"
    }

    static func legend(_ values: [String], colour: [String: String]) -> String {
        "<p>" + values.map { value in
            "<svg width=\"10\" height=\"10\" viewBox=\"0 0 10 10\" aria-hidden=\"true\"><rect width=\"10\" height=\"10\" "
                + "fill=\"\(colour[value]!)\"/></svg> \(HTMLText.escaped(value))"
        }.joined(separator: " \u{A0} ") + " \u{B7} minutes from the talk's start</p>\n"
    }
}
