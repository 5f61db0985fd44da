import Crypto
import Foundation
import NearcastCore
@testable import NearcastHub
import XCTest

/// Present's pure parts: Google's timestamps, sight codes and passes, the rate limits, the
/// reaction choices, JPEG sizes, and the renderer's refusals through the real poppler.
final class PresentUnitTests: XCTestCase {
    func testGoogleTimestampsAndMillisecondsParse() {
        XCTAssertEqual(HubClock.parseMs("2014-10-02T15:01:23.045123456Z"), 1_412_262_083_045)
        XCTAssertEqual(HubClock.parseMs("2014-10-02T15:01:23Z"), 1_412_262_083_000)
        XCTAssertEqual(HubClock.parseMs("2014-10-02T17:01:23.5+02:00"), 1_412_262_083_500)
        XCTAssertEqual(HubClock.parseMs("1970-01-01T00:00:00Z"), 0)
        XCTAssertEqual(HubClock.parseMs("2000-02-29T00:00:00Z"), 951_782_400_000)
        XCTAssertEqual(HubClock.parseMs("1412262083045"), 1_412_262_083_045)
        for bad in ["", "yesterday", "2014-10-02", "2014-13-02T15:01:23Z", "2014-10-02T15:01:23", "2014-10-02T15:01:23.Z",
                    "2014-10-02T15:01:23Zjunk", "2014-10-02T25:01:23Z"] {
            XCTAssertNil(HubClock.parseMs(bad), bad)
        }
    }

    /// The answers' timestamps, written by arithmetic: the same text Foundation's ISO 8601
    /// formatter writes, across leap days, century years and the epoch, and parsed back exactly.
    func testTimestampsAreWrittenAsFoundationWritesThemAndReadBack() {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        var samples: [Int64] = [0, 1, 999, 86_399_999, 86_400_000, 951_782_400_000, 951_868_799_999, 1_412_262_083_045,
                                4_102_444_800_000, 253_402_300_799_999]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2000 { samples.append(Int64.random(in: 0...253_402_300_799_999, using: &generator)) }
        for ms in samples {
            let written = HubClock.timestamp(ms: ms)
            XCTAssertEqual(written, formatter.string(from: Date(timeIntervalSince1970: Double(ms) / 1000)), "\(ms)")
            XCTAssertEqual(HubClock.parseMs(written), ms, written)
        }
    }

    private func presence() -> Presence {
        Presence(serviceKey: ServiceKey(privateKey: Curve25519.KeyAgreement.PrivateKey()))
    }

    private func beacon(salt: String = "5a17", joining: Bool = true) -> Show.LiveBeacon {
        Show.LiveBeacon(project: "demo", beaconName: "beacons/4!0011223344556677", exponent: 7, codeSalt: salt, codeJoining: joining, codeShare: 50)
    }

    /// The code changes every minute and the one before stays valid for a minute; a new salt (the
    /// presenter's "new code") changes it at once; with joining off there is none.
    func testSightCodesChangeEveryMinuteAndWithTheSalt() throws {
        let presence = presence(), box = beacon()
        let now = presence.codes(for: box, nowMs: 5_000_000)   // 20 s into minute 83
        XCTAssertEqual(now.map(\.minutesBehind), [0, 1])
        XCTAssertEqual(now[0].expiresMs, 5_040_000)
        XCTAssertTrue(now.allSatisfy { $0.code.count == 6 && $0.code.allSatisfy { Presence.alphabet.contains($0) } })
        XCTAssertEqual(presence.codes(for: box, nowMs: 5_039_999)[0].code, now[0].code)
        let next = presence.codes(for: box, nowMs: 5_040_000)
        XCTAssertNotEqual(next[0].code, now[0].code)
        XCTAssertEqual(next[1].code, now[0].code, "the code of the minute before is still taken")
        XCTAssertNotEqual(presence.codes(for: beacon(salt: "0ther"), nowMs: 5_000_000)[0].code, now[0].code, "a new salt, a new code")
        XCTAssertEqual(presence.codes(for: beacon(joining: false), nowMs: 5_000_000), [], "joining by code off: no code")
        XCTAssertNotEqual(self.presence().codes(for: box, nowMs: 5_000_000)[0].code, now[0].code, "another hub's key gives another code")
        XCTAssertEqual(Presence.normalise(" nng-1a9 "), "NNG1A9")
        XCTAssertEqual(Presence.normalise("oil"), "011")
    }

    func testTheCodesCapCountsPassesOverTenMinutes() {
        let ledger = CodePassLedger(), key = BeaconRef(project: "demo", beaconName: "beacons/4!00")
        XCTAssertEqual(CodePassLedger.limit(followers: 0, share: 50), 5, "the first few may always join")
        XCTAssertEqual(CodePassLedger.limit(followers: 100, share: 50), 55)
        XCTAssertEqual(CodePassLedger.limit(followers: 100, share: 0), 5)
        for second in 0..<5 { XCTAssertTrue(ledger.admit(key, limit: 5, nowMs: Int64(second) * 1000)) }
        XCTAssertFalse(ledger.admit(key, limit: 5, nowMs: 5_000))
        XCTAssertEqual(ledger.count(key, nowMs: 5_000), 5)
        XCTAssertTrue(ledger.admit(key, limit: 5, nowMs: 600_000), "the first pass is 10 minutes old: its place is free")
    }

    func testPassesAreSignedAndExpire() {
        let presence = presence()
        let pass = Presence.Pass(project: "demo", beaconName: "beacons/4!00", expiresMs: 10_000,
                                 show: .init(startedMs: 1_000, saltTag: Presence.saltTag("salt"), proof: .seen))
        let text = presence.pass(pass)
        let unbound = Presence.Pass(project: "demo", beaconName: "beacons/4!00", expiresMs: 10_000)
        XCTAssertNil(presence.verify(pass: presence.pass(unbound), nowMs: 0), "a pass names its show")
        XCTAssertNil(presence.verify(pass: presence.pass(pass, purpose: .watch), nowMs: 0, purpose: .watch), "a watch token names none")
        XCTAssertTrue(text.hasPrefix("ncpass_"))
        XCTAssertEqual(presence.verify(pass: text, nowMs: 9_999), pass)
        XCTAssertNil(presence.verify(pass: text, nowMs: 10_000), "expired")
        XCTAssertNil(self.presence().verify(pass: text, nowMs: 0), "another hub's key")
        let forged = Presence.passPrefix + Presence.base64URL(Data("other\nbeacons/4!00\n10000".utf8)) + "."
            + text.split(separator: ".")[1]
        XCTAssertNil(presence.verify(pass: forged, nowMs: 0), "a changed payload")
        XCTAssertNil(presence.verify(pass: "ncpass_x", nowMs: 0))
    }

    /// A pass holds for the show it names while its salt is the show's and (from the code)
    /// joining is on.
    func testAPassHoldsOnlyForItsShowItsSaltAndJoining() {
        var show = Show(project: "demo", beaconName: "beacons/4!00", deckID: "d", page: 1, nowMs: 1_000)
        let seen = Presence.ShowBinding(show, proof: .seen), heard = Presence.ShowBinding(show, proof: .heard)
        XCTAssertTrue(seen.holds(for: show))
        XCTAssertFalse(seen.holds(for: nil), "no show")
        show.sightCode.joining = false
        XCTAssertFalse(seen.holds(for: show), "joining off: not a pass from the code")
        XCTAssertTrue(heard.holds(for: show), "joining off: a pass from hearing")
        show.sightCode.joining = true
        show.sightCode.salt = Show.newSalt()
        XCTAssertFalse(seen.holds(for: show), "a new code")
        XCTAssertFalse(heard.holds(for: show), "a new code")
        let later = Show(project: "demo", beaconName: "beacons/4!00", deckID: "d", page: 1, nowMs: 2_000)
        XCTAssertFalse(Presence.ShowBinding(startedMs: 1_000, saltTag: Presence.saltTag(later.sightCode.salt), proof: .heard).holds(for: later),
                       "another show, even under the same salt")
        // What a show stands by, worked out once for a page turn's thousands of passes, says the same.
        var now = Show(project: "demo", beaconName: "beacons/4!00", deckID: "d", page: 1, nowMs: 1_000)
        now.sightCode = show.sightCode
        let bindings = [seen, heard, Presence.ShowBinding(now, proof: .seen), Presence.ShowBinding(now, proof: .heard)]
        for joining in [true, false] {
            now.sightCode.joining = joining
            for binding in bindings {
                XCTAssertEqual(binding.holds(against: Presence.ShowStanding(now)), binding.holds(for: now), "\(binding), joining \(joining)")
            }
            XCTAssertEqual(bindings.map { $0.holds(against: Presence.ShowStanding(now)) }, [false, false, joining, true], "joining \(joining)")
        }
        XCTAssertFalse(heard.holds(against: nil), "no show")
        XCTAssertTrue(Show.SightCode.needsNewSalt(joining: false, rotate: false), "J off revokes")
        XCTAssertFalse(Show.SightCode.needsNewSalt(joining: true, rotate: false))
        XCTAssertFalse(Show.SightCode.needsNewSalt(joining: nil, rotate: false))
    }

    func testWithThreeInstancesEachDeskAllowsAThirdOfThePhonesAndTheBeaconsLimits() async {
        let venue = VenueShare()
        venue.set(instances: 3)
        let desk = ReactionDesk(limits: .init(perPhonePerSecond: 3, perPhoneBurst: 12, perBeaconPerSecond: 300, perBeaconBurst: 30), venue: venue)
        let show = BeaconRef(project: "demo", beaconName: "beacons/4!00"), slide = ReactionTally.Slide(deckID: "d", page: 1)
        var admitted = 0
        for _ in 0..<15 where await desk.admit("👏", to: show, on: slide, phone: "a", nowMs: 0) == nil { admitted += 1 }
        XCTAssertEqual(admitted, 4, "a third of the phone's burst of 12")
        let later = await desk.admit("👏", to: show, on: slide, phone: "a", nowMs: 1_000)
        XCTAssertNil(later, "a third of 3 a second: one back after a second")
        var beaconAdmitted = 0
        for phone in 0..<30 where await desk.admit("👏", to: show, on: slide, phone: "p\(phone)", nowMs: 1_000) == nil { beaconAdmitted += 1 }
        XCTAssertEqual(beaconAdmitted, 10 - 1, "a third of the beacon's 30 (refilled in the second), less the phone's one just now")
        venue.set(instances: 1)
        var alone = 0
        for phone in 0..<40 where await desk.admit("👏", to: show, on: slide, phone: "q\(phone)", nowMs: 1_100) == nil { alone += 1 }
        XCTAssertEqual(alone, 30, "alone again: a tenth of a second at the whole 300 a second fills the whole burst of 30")
    }

    func testAReactionIsAcknowledgedOnlyOnceItsBatchIsCounted() async throws {
        let desk = ReactionDesk()
        await desk.writerStarted()
        let show = BeaconRef(project: "demo", beaconName: "beacons/4!00"), slide = ReactionTally.Slide(deckID: "d", page: 1)
        let (wait, batch) = await desk.take("👏", to: show, on: slide, phone: "a", nowMs: 0)
        XCTAssertNil(wait)
        let answer = Task { await desk.counted(batch) }
        try await Task.sleep(for: .milliseconds(50))
        let (waiting, number) = await desk.takeBatch()
        XCTAssertEqual(waiting[show]?.count, 1)
        XCTAssertEqual(number, batch.batch, "the batch the reaction waited in")
        let next = await desk.take("👏", to: show, on: slide, phone: "b", nowMs: 0).batch
        XCTAssertEqual(next.batch, batch.batch + 1, "later reactions wait for the next batch")
        await desk.finished(batch, written: true)
        let counted = await answer.value
        XCTAssertTrue(counted, "answered once written")
        let asksLate = await desk.counted(batch)
        XCTAssertTrue(asksLate, "a request that asks after the write reads the outcome")
        let failed = Task { await desk.counted(next) }
        _ = await desk.takeBatch()
        await desk.finished(next, written: false)
        let refused = await failed.value
        XCTAssertFalse(refused, "a batch the database did not take is not acknowledged")
        // An outcome asked for long after its batch (a stalled request) is not waited for.
        let other = BeaconRef(project: "demo", beaconName: "beacons/4!01")
        for number in 2...(3 * ReactionDesk.outcomesKeptBatches) { await desk.finished(.init(batch: number, show: other), written: true) }
        let forgotten = await desk.counted(batch)
        XCTAssertFalse(forgotten, "its outcome was forgotten: not acknowledged, and not waited for")
        let stalled = Task { await desk.counted(.init(batch: 3 * ReactionDesk.outcomesKeptBatches + 1, show: show)) }
        try await Task.sleep(for: .milliseconds(20))
        await desk.writerStopped()
        let atShutdown = await stalled.value
        XCTAssertFalse(atShutdown, "a request still waiting when the writer stops is answered, not acknowledged")
    }

    func testFiveHundredIdsAtTheirOwnRateLeaveEveryOtherPhoneItsShareOfTheBeacon() async {
        let desk = ReactionDesk()   // the shipped limits: 4 a second a phone (12 at once), 2,000 a beacon
        let show = BeaconRef(project: "demo", beaconName: "beacons/4!00"), slide = ReactionTally.Slide(deckID: "d", page: 1)
        var flood = 0, floodAccepted = 0, tapped = 0, tappedAccepted = 0
        // Ten seconds: 500 ids each sending 4 a second (12 at once at the start, then every
        // 250 ms) and, from a second in (the flood's first bursts spend the beacon's own at
        // once), a phone in the room tapping once a second.
        for step in 0..<40 {
            let now = Int64(step) * 250
            for id in 0..<500 {
                for _ in 0..<(step == 0 ? 12 : 1) {
                    flood += 1
                    if await desk.admit("👏", to: show, on: slide, phone: "flood\(id)", nowMs: now) == nil { floodAccepted += 1 }
                }
            }
            if step % 4 == 0 && step > 0 {
                tapped += 1
                if await desk.admit("❤️", to: show, on: slide, phone: "in the room", nowMs: now) == nil { tappedAccepted += 1 }
            }
            _ = await desk.takeWaiting()
        }
        print("500 ids at 4 a second for 10 s: \(floodAccepted) of \(flood) accepted; the phone in the room: \(tappedAccepted) of \(tapped)")
        XCTAssertEqual(tappedAccepted, tapped, "the phone in the room keeps its share (\(floodAccepted) of \(flood) from the flood)")
        XCTAssertLessThanOrEqual(floodAccepted, 2_000 + 2_000 * 10, "the beacon's burst and rate bound the flood")
    }

    func testRateLimitsArePerPhoneAndPerBeacon() async {
        let desk = ReactionDesk(limits: .init(perPhonePerSecond: 4, perPhoneBurst: 12, perBeaconPerSecond: 100, perBeaconBurst: 20))
        let show = BeaconRef(project: "demo", beaconName: "beacons/4!00"), slide = ReactionTally.Slide(deckID: "d", page: 1)
        var admitted = 0
        for _ in 0..<15 where await desk.admit("👏", to: show, on: slide, phone: "a", nowMs: 0) == nil { admitted += 1 }
        XCTAssertEqual(admitted, 12, "a phone's burst")
        let wait = await desk.admit("👏", to: show, on: slide, phone: "a", nowMs: 0)
        XCTAssertEqual(wait, 1)
        let other = await desk.admit("👏", to: show, on: slide, phone: "b", nowMs: 0)
        XCTAssertNil(other, "another phone behind the same address is not held back")
        // The beacon's burst (20) is spent by many phones at once: 13 went above, 7 are left.
        var beaconAdmitted = 0
        for phone in 0..<30 where await desk.admit("👏", to: show, on: slide, phone: "p\(phone)", nowMs: 0) == nil { beaconAdmitted += 1 }
        XCTAssertEqual(beaconAdmitted, 7)
        let early = await desk.admit("👏", to: show, on: slide, phone: "a", nowMs: 250)
        XCTAssertNotNil(early, "32 phones reacting: the phone's fair share is 0.9 × 100 / 32 a second, under a token in a quarter of a second")
        let refilled = await desk.admit("👏", to: show, on: slide, phone: "a", nowMs: 400)
        XCTAssertNil(refilled, "one token back for the phone after 0.4 s at its fair share, and 40 for the beacon")
        let waiting = await desk.takeWaiting()
        XCTAssertEqual(waiting[show]?.count, 12 + 1 + 7 + 1)
        let empty = await desk.takeWaiting()
        XCTAssertTrue(empty.isEmpty)
        await desk.prune(nowMs: 60_000)
        let tracked = await desk.trackedPhones
        XCTAssertEqual(tracked, 0, "idle phones are forgotten")
    }

    func testReactionChoicesAreChecked() throws {
        let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0]
        let good = try ReactionChoices.validated(.init(enabled: true, emoji: ["👏", "🇫🇷", "👍🏽"],
                                                       images: [.init(name: "logo", png: Data(png).base64EncodedString())]))
        XCTAssertTrue(good.offers("🇫🇷") && good.offers("logo") && !good.offers("x"))
        XCTAssertEqual(good.json.choices.last?.url, "/v1/reactions/images/logo")
        func field(_ update: ReactionChoicesUpdate) -> String? {
            do { _ = try ReactionChoices.validated(update); return nil } catch { return error.field }
        }
        XCTAssertEqual(field(.init(emoji: ["a"])), "emoji[0]")
        XCTAssertEqual(field(.init(emoji: ["👏👏"])), "emoji[0]")
        XCTAssertEqual(field(.init(emoji: ["👏", "👏"])), "emoji")
        XCTAssertEqual(field(.init(emoji: Array(repeating: "👏", count: 13))), "emoji")
        XCTAssertEqual(field(.init(images: [.init(name: "Logo", png: "")])), "images[0].name")
        XCTAssertEqual(field(.init(images: [.init(name: "logo", png: "aGVsbG8=")])), "images[0].png")
        XCTAssertEqual(ReactionChoices.defaults.emoji.count, 6)
    }

    func testJPEGSizeReadsTheFrameHeader() {
        // SOI, an APP0 segment, then SOF0 with height 450 and width 800.
        let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x04, 0x00, 0x00,
                             0xFF, 0xC0, 0x00, 0x11, 0x08, 0x01, 0xC2, 0x03, 0x20, 0x03]
        XCTAssertEqual(JPEGSize.read(jpeg)?.width, 800)
        XCTAssertEqual(JPEGSize.read(jpeg)?.height, 450)
        XCTAssertNil(JPEGSize.read([0x89, 0x50]))
    }

    /// The renderer through the real poppler: a good PDF renders every page at both sizes; bad
    /// ones are 4xx errors that say what is wrong.
    func testTheRendererRendersAndRefuses() async throws {
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: "/usr/bin/pdftoppm"), "poppler-utils is not installed")
        let renderer = DeckRenderer()
        let pdf = TestPDF.make(pages: 2)
        let rendered = try await renderer.render(pdf)
        XCTAssertEqual(rendered.pages.count, 2)
        XCTAssertEqual(rendered.width, 1600)
        XCTAssertEqual(rendered.height, 900)
        XCTAssertEqual(JPEGSize.read(rendered.pages[1].thumbnail)?.width, 320)

        func refusal(_ bytes: [UInt8], limits: DeckRenderer.Limits = .init()) async -> APIError? {
            do {
                _ = try await DeckRenderer(limits: limits).render(bytes)
                return nil
            } catch {
                return error as? APIError
            }
        }
        let notPDF = await refusal(Array("hello".utf8))
        XCTAssertEqual(notPDF?.status, .badRequest)
        XCTAssertTrue(notPDF?.message.contains("not a PDF") == true, "\(String(describing: notPDF))")
        let broken = await refusal(Array(pdf.prefix(200)))
        XCTAssertEqual(broken?.status, .badRequest)
        XCTAssertTrue(broken?.message.contains("cannot be read") == true, "\(String(describing: broken))")
        let empty = await refusal(TestPDF.make(pages: 0))
        XCTAssertTrue(empty?.message.contains("no pages") == true || empty?.message.contains("cannot be read") == true,
                      "\(String(describing: empty))")
        var few = DeckRenderer.Limits()
        few.maximumPages = 1
        let tooMany = await refusal(pdf, limits: few)
        XCTAssertEqual(tooMany?.status, .contentTooLarge)
        XCTAssertTrue(tooMany?.message.contains("at most 1") == true)
        var small = DeckRenderer.Limits()
        small.maximumBytes = 100
        let tooBig = await refusal(pdf, limits: small)
        XCTAssertEqual(tooBig?.status, .contentTooLarge)
    }
}

/// A small real PDF: `pages` pages of 800 x 450 points, each with its number in large type.
enum TestPDF {
    static func make(pages: Int) -> [UInt8] {
        var objects = ["<< /Type /Catalog /Pages 2 0 R >>",
                       "<< /Type /Pages /Kids [\((0..<pages).map { "\(3 + $0 * 2) 0 R" }.joined(separator: " "))] /Count \(pages) >>"]
        let font = 3 + pages * 2
        for page in 0..<pages {
            let content = "BT /F1 120 Tf 250 180 Td (\(page + 1)) Tj ET"
            objects.append("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 800 450] /Contents \(4 + page * 2) 0 R /Resources << /Font << /F1 \(font) 0 R >> >> >>")
            objects.append("<< /Length \(content.utf8.count) >>\nstream\n\(content)\nendstream")
        }
        objects.append("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
        var out = Array("%PDF-1.4\n".utf8)
        var offsets: [Int] = []
        for (index, object) in objects.enumerated() {
            offsets.append(out.count)
            out += Array("\(index + 1) 0 obj\n\(object)\nendobj\n".utf8)
        }
        let xref = out.count
        out += Array("xref\n0 \(objects.count + 1)\n0000000000 65535 f \n".utf8)
        for offset in offsets { out += Array((String(repeating: "0", count: 10 - String(offset).count) + "\(offset) 00000 n \n").utf8) }
        out += Array("trailer\n<< /Size \(objects.count + 1) /Root 1 0 R >>\nstartxref\n\(xref)\n%%EOF\n".utf8)
        return out
    }
}
