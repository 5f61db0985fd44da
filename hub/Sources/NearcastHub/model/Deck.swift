import NearcastCore

/// A deck: a presenter's PDF rendered to pages, as listed. A deck never changes: a new upload
/// is a new deck, under a new random id.
package struct Deck: Sendable {
    package var deckID: String
    package var title: String
    package var pages: Int
    package var bytes: Int
    package var width: Int
    package var height: Int
    package var createdMs: Int64

    /// A new deck of `rendered`'s pages, under a new random id.
    package init(title: String, sourceBytes: Int, rendered: DeckRenderer.Rendered, createdMs: Int64) {
        var generator = SystemRandomNumberGenerator()
        self.init(deckID: Hex.format(UInt64.random(in: 0...UInt64.max, using: &generator), byteCount: 8), title: title,
                  pages: rendered.pages.count, bytes: sourceBytes, width: rendered.width, height: rendered.height,
                  createdMs: createdMs)
    }

    package init(deckID: String, title: String, pages: Int, bytes: Int, width: Int, height: Int, createdMs: Int64) {
        self.deckID = deckID
        self.title = title
        self.pages = pages
        self.bytes = bytes
        self.width = width
        self.height = height
        self.createdMs = createdMs
    }

    package var json: DeckJSON {
        DeckJSON(deck: deckID, title: title, pages: pages, bytes: bytes, width: width, height: height,
                 createdTime: HubClock.timestamp(ms: createdMs))
    }
}

extension Deck {
    /// Which of a page's two images.
    package enum ImageSize: String, Sendable {
        case full
        case thumb
    }
}
