import Foundation

/// A talk's figures as CSV (RFC 4180, UTF-8, CRLF), for the speaker's spreadsheet: a row per
/// slide, minute and reaction that came, its count; minute 0 is the minute the talk started in.
enum TalkFiguresCSV {
    static let header = ["talk", "room", "deck", "slide", "minute", "time", "reaction", "count"]

    static func text(_ figures: TalkFigures) -> String {
        var lines = [header.joined(separator: ",")]
        for tally in figures.tallies {
            lines.append([figures.talk.title, figures.talk.room, figures.deckName(tally.slide.deckID), String(tally.slide.page),
                          String(figures.rule.minute(tally.minuteMs)), HubClock.timestamp(ms: tally.minuteMs),
                          tally.value, String(tally.count)].map(field).joined(separator: ","))
        }
        return lines.joined(separator: "\r\n") + "\r\n"
    }

    /// A field quoted when it must be; text a spreadsheet would run as a formula (a title
    /// starting with `=`, `+`, `-`, `@`) is led by an apostrophe, as OWASP advises.
    static func field(_ text: String) -> String {
        var text = text
        if let first = text.first, "=+-@\t\r".contains(first), Int(text) == nil { text = "'" + text }
        guard text.contains(where: { ",\"\r\n".contains($0) }) else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// The download's file name: the talk's title in plain letters and digits.
    static func fileName(_ talk: ScheduledTalk) -> String {
        let words = talk.title.lowercased().unicodeScalars.map { $0.isASCII && CharacterSet.alphanumerics.contains($0) ? Character($0) : " " }
        let slug = String(words).split(separator: " ").joined(separator: "-").prefix(60)
        return "reactions-\(slug.isEmpty ? "talk" : String(slug)).csv"
    }
}
