/// The hub's one rule for "visible": what a client may put in text the hub stores and shows (a
/// beacon's description, a box's name, a deck's title, a field check's labels: through
/// `RequestSupport.checkFreeText`) and in an attachment's type (`NamespacedType`, where every
/// character must be visible). Two values that look the same must not be two values, and a value
/// must not look empty: a title made of U+2800 (the braille blank) shows as nothing on the
/// presenter's screen and the phones', and a zero-width space makes `demo/slide` and `demo/sl‌ide`
/// two types.
enum VisibleText {
    /// Characters that render as nothing or as blank space but that none of the properties
    /// `isBlank` reads catch: U+2800 BRAILLE PATTERN BLANK and U+1D159 MUSICAL SYMBOL NULL NOTEHEAD
    /// (both So). The Hangul fillers (U+115F, U+1160, U+3164, U+FFA0) are Default_Ignorable_Code_Point
    /// already; they are named here too because they are the blanks most used to fake an empty name,
    /// and this list must not depend on a Unicode version's property data.
    static let blankLooking: Set<UInt32> = [0x2800, 0x1D159, 0x115F, 0x1160, 0x3164, 0xFFA0]

    /// Whether `scalar` shows as nothing or as blank space: a control, a space or other White_Space,
    /// Unicode's Default_Ignorable_Code_Point (zero-width characters U+200B-U+200F, word joiner and
    /// invisible operators U+2060-U+2064, U+FEFF, U+180E, U+034F, U+17B4, U+17B5, U+00AD, U+061C,
    /// the variation selectors, the tags U+E0000-U+E0FFF, the Hangul fillers), a format character
    /// (bidi controls and the like), a separator, an unassigned, private-use or surrogate code point,
    /// or one of ``blankLooking``.
    static func isBlank(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.value <= 0x20 || scalar.value == 0x7F || blankLooking.contains(scalar.value) { return true }
        let properties = scalar.properties
        if properties.isDefaultIgnorableCodePoint || properties.isWhitespace { return true }
        switch properties.generalCategory {
        case .control, .format, .spaceSeparator, .lineSeparator, .paragraphSeparator, .unassigned, .privateUse, .surrogate:
            return true
        default:
            return false
        }
    }

    /// Not ``isBlank(_:)``: what an attachment's type is made of, every character of it.
    static func isVisible(_ scalar: Unicode.Scalar) -> Bool { !isBlank(scalar) }

    /// The first character of free text that is blank-looking where it stands, nil when there is
    /// none. Free text may hold white space (spaces, tabs, line breaks: it is text) and the
    /// invisible parts of an emoji, in the places an emoji puts them: a zero-width joiner between
    /// two emoji (👨‍👩‍👧, ❤️‍🔥), the emoji or text presentation selector right after a character
    /// with the Emoji property (❤️, #️⃣), and tags after a black flag, ended by the cancel tag
    /// (🏴󠁧󠁢󠁳󠁣󠁴󠁿); and the other variation selectors right after a CJK ideograph (the variant of a
    /// name's kanji). Anything else blank-looking (U+2800, a zero-width space or joiner elsewhere, a
    /// Hangul filler, a variation selector after a letter or alone, a bidi mark, a soft hyphen) is
    /// refused: after a letter a selector changes nothing a reader sees, so it only makes two texts
    /// that look the same.
    static func firstHidden(in text: String) -> Unicode.Scalar? {
        let scalars = Array(text.unicodeScalars)
        for (index, scalar) in scalars.enumerated() where isBlank(scalar) {
            let before = index > 0 ? scalars[index - 1] : nil
            let after = index + 1 < scalars.count ? scalars[index + 1] : nil
            if !allowed(scalar, before: before, after: after) { return scalar }
        }
        return nil
    }

    /// Whether free text is blank: not empty, yet with no visible character (only spaces, or only
    /// U+2800, ...).
    static func looksEmpty(_ text: String) -> Bool {
        !text.isEmpty && !text.unicodeScalars.contains(where: isVisible)
    }

    /// A blank-looking `scalar` free text may hold between `before` and `after` (see ``firstHidden(in:)``).
    private static func allowed(_ scalar: Unicode.Scalar, before: Unicode.Scalar?, after: Unicode.Scalar?) -> Bool {
        let value = scalar.value
        if scalar.properties.isWhitespace && !blankLooking.contains(value) && scalar.properties.generalCategory != .control {
            return true   // a space, a no-break space, a line or paragraph separator (tab and line breaks are checked as controls)
        }
        if value == 0x09 || value == 0x0A || value == 0x0D { return true }
        switch value {
        case 0x200D:   // ZERO WIDTH JOINER: inside an emoji ZWJ sequence only
            guard let before, let after else { return false }
            // (Digits, # and * have the Emoji property too: only emoji beyond ASCII are joined.)
            let joinsEmoji = (before.properties.isEmoji && before.value > 0x7F) || before.value == 0xFE0F
            return joinsEmoji && after.properties.isEmoji && after.value > 0x7F
        case 0xFE0E, 0xFE0F:   // text or emoji presentation: right after a character that has both
            guard let before else { return false }
            return before.properties.isEmoji
        case 0xFE00...0xFE0D, 0xE0100...0xE01EF:   // an ideograph's variant (a Japanese name's kanji): right after it
            guard let before else { return false }
            return before.properties.isIdeographic
        case 0xE0020...0xE007E:   // a tag: in a flag's tag sequence (after 🏴 or a tag), ended by the cancel tag
            guard let before, before.value == 0x1F3F4 || (0xE0020...0xE007E).contains(before.value), let after else { return false }
            return (0xE0020...0xE007F).contains(after.value)
        case 0xE007F:   // CANCEL TAG: ends a tag sequence
            guard let before else { return false }
            return (0xE0020...0xE007E).contains(before.value)
        default:
            return false
        }
    }
}
