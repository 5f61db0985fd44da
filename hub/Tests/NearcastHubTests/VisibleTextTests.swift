@testable import NearcastHub
import XCTest

/// The hub's one visible-character rule (`VisibleText`), through the checks that use it: free
/// text (`RequestSupport.checkFreeText`: descriptions, box names, deck titles, field check
/// labels) and attachments' types (`NamespacedType`).
final class VisibleTextTests: XCTestCase {
    /// Unicode's blank-looking characters, each alone in a scalar: the braille blank, the
    /// Hangul fillers, zero-width characters and bidi marks, invisible operators, the
    /// BOM, the Mongolian vowel separator, the combining grapheme joiner, the Khmer inherent
    /// vowels, a variation selector and a tag on their own, the soft hyphen, the Arabic letter
    /// mark, the musical null notehead.
    static let blanks: [UInt32] = [0x2800, 0x115F, 0x1160, 0x3164, 0xFFA0, 0x200B, 0x200C, 0x200D, 0x200E, 0x200F,
                                   0x2060, 0x2061, 0x2062, 0x2063, 0x2064, 0xFEFF, 0x180E, 0x034F, 0x17B4, 0x17B5,
                                   0xFE0F, 0xFE00, 0xE0100, 0x00AD, 0x061C, 0xE0001, 0xE0020, 0xE0041, 0xE007F, 0x1D159]

    /// Ordinary text and emoji, ZWJ sequences, skin tones, variation selectors and tag flags included.
    static let ordinary = ["Main hall", "Q3 review: \u{1F44D}\u{1F3FD}", "\u{2764}\u{FE0F}", "\u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467}",
                           "\u{1F3F3}\u{FE0F}\u{200D}\u{1F308}", "\u{2764}\u{FE0F}\u{200D}\u{1F525}", "\u{1F469}\u{1F3FD}\u{200D}\u{1F4BB}",
                           "#\u{FE0F}\u{20E3}", "\u{1F3F4}\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074}\u{E007F} Scotland",
                           "Salle\u{00A0}B", "Two\nlines\tand a tab", "日本語の会議", "Ünïcödé", "\u{263A}\u{FE0E}",
                           "\u{845B}\u{E0100}飾区"]

    func testEveryBlankLookingCharacterIsBlank() {
        for value in Self.blanks {
            let scalar = Unicode.Scalar(value)!
            XCTAssertTrue(VisibleText.isBlank(scalar), "U+\(String(value, radix: 16, uppercase: true)) is blank")
        }
        for visible in "a1é日👍❤#ñ".unicodeScalars { XCTAssertTrue(VisibleText.isVisible(visible), "\(visible) is visible") }
    }

    func testFreeTextRefusesBlankLookingCharactersWhereverTheyStand() {
        for value in Self.blanks {
            let blank = String(Unicode.Scalar(value)!)
            for text in [blank, "Main" + blank + "hall", "Main hall" + blank, blank + "Main hall"] {
                XCTAssertThrowsError(try RequestSupport.checkFreeText(text, field: "title", characters: 200), text.debugDescription) {
                    let error = $0 as? APIError
                    XCTAssertEqual(error?.status, .badRequest)
                    XCTAssertEqual(error?.field, "title")
                }
            }
        }
        // The message names the character, so a user knows what to take out.
        XCTAssertThrowsError(try RequestSupport.checkFreeText("Deck\u{2800}", field: "title", characters: 200)) {
            XCTAssertEqual(($0 as? APIError)?.message, "title: holds U+2800 BRAILLE PATTERN BLANK, which shows as nothing or as blank space")
        }
    }

    func testFreeTextAcceptsEmojiSequencesAndOrdinaryTextButNotOnlySpace() throws {
        for text in Self.ordinary {
            XCTAssertNoThrow(try RequestSupport.checkFreeText(text, field: "title", characters: 200), text.debugDescription)
        }
        XCTAssertNoThrow(try RequestSupport.checkFreeText("", field: "description", characters: 200), "no text is not blank text")
        for blank in ["   ", "\u{3000}", "\n\t"] {
            XCTAssertThrowsError(try RequestSupport.checkFreeText(blank, field: "title", characters: 200), blank.debugDescription)
        }
    }

    func testEmojiJoinersAndSelectorsCountOnlyInsideAnEmoji() {
        for text in ["a\u{200D}b", "👍\u{200D}", "\u{200D}👍", "1\u{200D}👍", "\u{FE0F}👍", " \u{FE0F}",
                     "🏴\u{E0067}\u{E0062}", "👍\u{E0067}\u{E007F}", "a\u{E007F}", "\u{E0067}\u{E007F}"] {
            XCTAssertNotNil(VisibleText.firstHidden(in: text), text.unicodeScalars.map { String($0.value, radix: 16) }.joined(separator: " "))
        }
    }

    func testAttachmentTypesRefuseEveryBlankLookingCharacter() {
        for value in Self.blanks {
            let type = "demo/slide" + String(Unicode.Scalar(value)!)
            XCTAssertThrowsError(try NamespacedType.validate(type, project: "demo", field: "namespacedType"), type.debugDescription)
        }
        XCTAssertNoThrow(try NamespacedType.validate("demo/slide·2", project: "demo", field: "namespacedType"))
    }
    /// A reaction's emoji keeps the one rule too: nothing hidden after it.
    func testAReactionEmojiWithHiddenTagsIsRefused() throws {
        XCTAssertThrowsError(try ReactionChoices.validated(ReactionChoicesUpdate(enabled: true, emoji: ["👍\u{E0041}"], images: nil))) {
            XCTAssertEqual(($0 as? APIError)?.field, "emoji[0]")
        }
        XCTAssertNoThrow(try ReactionChoices.validated(ReactionChoicesUpdate(enabled: true, emoji: ["👍🏽", "❤️", "👨‍👩‍👧"], images: nil)))
    }
}
