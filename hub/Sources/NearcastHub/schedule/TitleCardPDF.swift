import Foundation

/// A talk's title card as a one-page PDF (16:9), for the room's screen and phones between talks
/// and for a talk without a deck: the title, the speakers, the time and the room, white on dark.
///
/// Written by hand (a PDF's objects and cross-reference table) with the PDF standard fonts
/// Helvetica and Helvetica-Bold, so no font file is needed: their WinAnsi encoding covers Latin-1
/// and common typography (’ “ ” – — € …); any other character is drawn as `?`. The deck renderer
/// (poppler) then makes it a page image like any uploaded deck.
enum TitleCardPDF {
    /// The page, in points: 16:9.
    static let width = 960, height = 540

    struct Card: Sendable, Hashable {
        var title: String
        var persons: [String]
        /// "Sat 28 Nov · 14:00-14:45"
        var when: String
        var room: String
        /// "Now" or "Next", above the title.
        var label: String
    }

    static func make(_ card: Card) -> [UInt8] {
        var content = "0.07 0.09 0.13 rg 0 0 \(width) \(height) re f\n"
        var y = 430.0
        func line(_ text: String, font: String, size: Double, gray: Double) {
            content += "BT /\(font) \(size) Tf \(gray) \(gray) \(gray) rg 64 \(Int(y)) Td (\(escaped(text))) Tj ET\n"
        }
        line(card.label.uppercased(), font: "F1", size: 22, gray: 0.65)
        y -= 62
        for part in wrapped(card.title, size: 44, bold: true).prefix(3) {
            line(part, font: "F2", size: 44, gray: 1)
            y -= 52
        }
        y -= 8
        if !card.persons.isEmpty {
            for part in wrapped(card.persons.joined(separator: ", "), size: 26, bold: false).prefix(2) {
                line(part, font: "F1", size: 26, gray: 0.9)
                y -= 34
            }
        }
        y = 64
        line("\(card.when) \u{B7} \(card.room)", font: "F1", size: 24, gray: 0.75)
        return document(content: Array(content.utf8).map { $0 })
    }

    /// Lines of at most the page's text width, by words, with Helvetica's average widths.
    static func wrapped(_ text: String, size: Double, bold: Bool) -> [String] {
        let maximum = Int(Double(width - 128) / (size * (bold ? 0.58 : 0.52)))
        var lines: [String] = [], current = ""
        for word in text.split(separator: " ", omittingEmptySubsequences: true) {
            let candidate = current.isEmpty ? String(word) : current + " " + word
            if candidate.count <= maximum || current.isEmpty {
                current = candidate
            } else {
                lines.append(current)
                current = String(word)
            }
        }
        if !current.isEmpty { lines.append(current) }
        return lines.map { $0.count > maximum ? String($0.prefix(maximum - 1)) + "\u{2026}" : $0 }
    }

    /// `text` as a PDF literal string's bytes in WinAnsiEncoding (as octal escapes above ASCII).
    static func escaped(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            let byte = winAnsi(scalar)
            switch byte {
            case UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: "\\"): out += "\\" + String(UnicodeScalar(byte))
            case 0x20...0x7E: out += String(UnicodeScalar(byte))
            default: out += "\\" + String(byte, radix: 8)
            }
        }
        return out
    }

    private static let typography: [UInt32: UInt8] = [
        0x20AC: 0x80, 0x2026: 0x85, 0x2018: 0x91, 0x2019: 0x92, 0x201C: 0x93, 0x201D: 0x94, 0x2022: 0x95,
        0x2013: 0x96, 0x2014: 0x97, 0x2122: 0x99, 0x0152: 0x8C, 0x0153: 0x9C, 0x0160: 0x8A, 0x0161: 0x9A,
        0x017D: 0x8E, 0x017E: 0x9E, 0x0178: 0x9F,
    ]

    private static func winAnsi(_ scalar: Unicode.Scalar) -> UInt8 {
        let value = scalar.value
        if (0x20...0x7E).contains(value) || (0xA0...0xFF).contains(value) { return UInt8(value) }
        return typography[value] ?? UInt8(ascii: "?")
    }

    private static func document(content: [UInt8]) -> [UInt8] {
        let objects: [[UInt8]] = [
            Array("<< /Type /Catalog /Pages 2 0 R >>".utf8),
            Array("<< /Type /Pages /Kids [3 0 R] /Count 1 >>".utf8),
            Array("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 \(width) \(height)] /Contents 4 0 R /Resources << /Font << /F1 5 0 R /F2 6 0 R >> >> >>".utf8),
            Array("<< /Length \(content.count) >>\nstream\n".utf8) + content + Array("\nendstream".utf8),
            Array("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>".utf8),
            Array("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Bold /Encoding /WinAnsiEncoding >>".utf8),
        ]
        var pdf = Array("%PDF-1.4\n%\u{E2}\u{E3}\u{CF}\u{D3}\n".utf8)
        var offsets: [Int] = []
        for (index, object) in objects.enumerated() {
            offsets.append(pdf.count)
            pdf += Array("\(index + 1) 0 obj\n".utf8) + object + Array("\nendobj\n".utf8)
        }
        let xref = pdf.count
        pdf += Array("xref\n0 \(objects.count + 1)\n0000000000 65535 f \n".utf8)
        for offset in offsets { pdf += Array((String(repeating: "0", count: 10 - String(offset).count) + "\(offset) 00000 n \n").utf8) }
        pdf += Array("trailer\n<< /Size \(objects.count + 1) /Root 1 0 R >>\nstartxref\n\(xref)\n%%EOF\n".utf8)
        return pdf
    }
}
