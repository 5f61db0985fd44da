import Foundation

/// A project's reactions: whether they are on, the emoji the audience page offers, and the
/// project's own small images. A project that set none has the defaults.
package struct ReactionChoices: Sendable, Equatable {
    package var enabled: Bool
    package var emoji: [String]
    /// Image name -> PNG bytes.
    package var images: [String: [UInt8]]

    package init(enabled: Bool, emoji: [String], images: [String: [UInt8]]) {
        self.enabled = enabled
        self.emoji = emoji
        self.images = images
    }

    package static let defaults = ReactionChoices(enabled: true, emoji: ["👏", "❤️", "😂", "😮", "🎉", "👍"], images: [:])
    package static let maximumEmoji = 12
    package static let maximumImages = 6
    package static let maximumImageBytes = 32 * 1024

    /// Whether `value` is one of the choices (an emoji, or an image's name).
    package func offers(_ value: String) -> Bool { emoji.contains(value) || images[value] != nil }

    package var json: ReactionChoicesJSON {
        ReactionChoicesJSON(enabled: enabled, choices: emoji.map { .init(value: $0, kind: "emoji", url: nil) }
            + images.keys.sorted().map { .init(value: $0, kind: "image", url: "/v1/reactions/images/\($0)") })
    }

    /// Checks a presenter's new choices; a 400 names the bad one.
    package static func validated(_ body: ReactionChoicesUpdate) throws(APIError) -> ReactionChoices {
        let emoji = body.emoji ?? defaults.emoji
        guard (1...maximumEmoji).contains(emoji.count) || (emoji.isEmpty && !(body.images ?? []).isEmpty) else {
            throw APIError.invalid("emoji", "lists \(emoji.count); give 1-\(maximumEmoji)")
        }
        for (index, value) in emoji.enumerated() {
            // An emoji is one grapheme (a flag or a family is several scalars, still one character).
            guard value.count == 1, value.unicodeScalars.contains(where: { $0.properties.isEmoji && $0.value > 0x7F }) else {
                throw APIError.invalid("emoji[\(index)]", "'\(value)' is not one emoji")
            }
            // Nothing hidden in it (tags or selectors where no emoji puts them: the one visible rule).
            if let hidden = VisibleText.firstHidden(in: value) {
                throw APIError.invalid("emoji[\(index)]", "holds U+\(String(hidden.value, radix: 16, uppercase: true)), which shows as nothing")
            }
        }
        guard Set(emoji).count == emoji.count else { throw APIError.invalid("emoji", "lists an emoji twice") }
        var images: [String: [UInt8]] = [:]
        let list = body.images ?? []
        guard list.count <= maximumImages else { throw APIError.invalid("images", "lists \(list.count); at most \(maximumImages)") }
        for (index, image) in list.enumerated() {
            let field = "images[\(index)]"
            guard (1...32).contains(image.name.count),
                  image.name.unicodeScalars.allSatisfy({ ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-" })
            else { throw APIError.invalid(field + ".name", "'\(image.name)' must be 1-32 lowercase letters, digits or dashes") }
            guard images[image.name] == nil else { throw APIError.invalid(field + ".name", "'\(image.name)' is used twice") }
            let png = try Base64Field.decode(image.png, field: field + ".png")
            guard png.count <= maximumImageBytes else {
                throw APIError.invalid(field + ".png", "is \(png.count) bytes; an image may be at most \(maximumImageBytes / 1024) KiB")
            }
            guard png.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) else {
                throw APIError.invalid(field + ".png", "is not a PNG image")
            }
            images[image.name] = png
        }
        return ReactionChoices(enabled: body.enabled ?? true, emoji: emoji, images: images)
    }
}
