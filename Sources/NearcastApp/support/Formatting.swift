/// Number formatting without Foundation.
public enum Formatting {
    /// `value` with exactly `decimals` digits after the point (rounded half away from zero).
    public static func fixed(_ value: Double, decimals: Int) -> String {
        guard value.isFinite else { return value.isNaN ? "nan" : (value < 0 ? "-inf" : "inf") }
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        let scaled = (abs(value) * scale).rounded()
        let whole = Int64(scaled / scale)
        var fraction = String(Int64(scaled - Double(whole) * scale))
        while fraction.count < decimals { fraction = "0" + fraction }
        let sign = value < 0 && scaled != 0 ? "-" : ""
        return decimals > 0 ? "\(sign)\(whole).\(fraction)" : "\(sign)\(whole)"
    }

    /// A JSON string literal for `text`.
    public static func jsonString(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    /// Left-pads `text` to `width` characters.
    public static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : String(repeating: " ", count: width - text.count) + text
    }
}

extension Formatting {
    /// Right-pads `text` to `width` characters.
    public static func padRight(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
    }
}
