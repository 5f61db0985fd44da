import Foundation
import ServiceLifecycle

/// Turns an uploaded PDF into page images, once, at upload: poppler's `pdfinfo` reads it and
/// `pdftoppm` renders every page to a full-size JPEG (for the projector and a phone) and a
/// thumbnail, so a hostile PDF costs bounded memory and time and never the hub's own process:
///
/// - each poppler process is a child in its own process group (`ChildProcess`), under `prlimit`
///   (address space, CPU time, file size), at `nice` 10 so the hub's requests come first, and
///   with `setpriv --pdeathsig KILL` so it dies with the hub, even a hub killed with SIGKILL;
/// - it is awaited on a thread of its own, never one of Swift's cooperative pool, which on two
///   cores is every thread the hub answers requests with (one upload would stop the hub);
/// - a wall-clock deadline, the uploader leaving (the task is cancelled) and the hub's graceful
///   shutdown each kill the render's process groups at once;
/// - at most `rendersAtOnce` decks render at a time (`RenderSlots`); the rest wait their turn.
///
/// Every refusal is a 4xx naming what is wrong with the file, or a 503 when the hub is busy,
/// out of descriptors or shutting down.
package struct DeckRenderer: Sendable {
    /// The limits a deck must keep (docs/presenter.md lists them, "Decks").
    package struct Limits: Sendable {
        package var maximumBytes = 50 * 1024 * 1024
        var maximumPages = 300
        /// Wall time for all of a deck's rendering, from when its turn comes; also each poppler
        /// process's CPU time.
        var renderSeconds = 120
        /// Decks rendered at once.
        var rendersAtOnce = DeckLimits().rendersAtOnce
        /// Address space of each poppler process.
        var processMemoryBytes = 1024 * 1024 * 1024
        /// The largest file a poppler process may write (a page image, its error output).
        var processFileBytes = 64 * 1024 * 1024
        /// The long side of a full page image and of a thumbnail, in pixels.
        var fullPixels = 1600
        var thumbnailPixels = 320

        init() {}

        /// The defaults with the configured deadline and concurrency.
        package init(_ decks: DeckLimits) {
            renderSeconds = decks.renderSeconds
            rendersAtOnce = decks.rendersAtOnce
        }
    }

    /// One rendered page.
    package struct Page: Sendable {
        package var full: [UInt8]
        package var thumbnail: [UInt8]
    }

    /// What the renderer made of a PDF.
    package struct Rendered: Sendable {
        package var pages: [Page]
        package var width: Int
        package var height: Int
    }

    package let limits: Limits
    let tools: PopplerTools
    /// Shared by every copy of this renderer (it is a struct in `HubServices`).
    let slots: RenderSlots
    let deathSignal = DeathSignalProbe()

    package init(limits: Limits = Limits(), tools: PopplerTools = PopplerTools()) {
        self.limits = limits
        self.tools = tools
        slots = RenderSlots(limits.rendersAtOnce)
    }

    /// Where poppler's programs are (Debian's poppler-utils), and prlimit, setpriv (util-linux)
    /// and nice (coreutils), each of which sets its limit and execs the next.
    package struct PopplerTools: Sendable {
        var pdfinfo = "/usr/bin/pdfinfo"
        var pdftoppm = "/usr/bin/pdftoppm"
        var prlimit = "/usr/bin/prlimit"
        var setpriv = "/usr/bin/setpriv"
        var nice = "/usr/bin/nice"
    }

    package func render(_ pdf: [UInt8]) async throws -> Rendered {
        guard !pdf.isEmpty else { throw APIError(.badRequest, "the body is empty: send the PDF file as the body", field: "(body)") }
        guard pdf.count <= limits.maximumBytes else {
            throw APIError(.contentTooLarge, "the PDF is \(pdf.count) bytes; a deck may be at most \(limits.maximumBytes / 1024 / 1024) MB", field: "(body)")
        }
        // A PDF starts with %PDF- within its first kilobyte.
        guard Self.startsLikePDF(pdf) else {
            throw APIError(.badRequest, "this is not a PDF (it does not start with %PDF-)", field: "(body)")
        }
        for tool in [tools.pdfinfo, tools.pdftoppm, tools.prlimit, tools.setpriv, tools.nice]
        where !FileManager.default.isExecutableFile(atPath: tool) {
            throw APIError(.serviceUnavailable, "this hub cannot render decks: \(tool) is missing (install poppler-utils and util-linux)")
        }
        do {
            // A graceful shutdown (SIGTERM) cancels the render instead of waiting for it.
            return try await cancelWhenGracefulShutdown { try await self.renderInTurn(pdf) }
        } catch is CancellationError where Task.isShuttingDownGracefully {
            var error = APIError(.serviceUnavailable, "the hub is shutting down: upload the deck again in a moment")
            error.retryAfterSeconds = 5
            throw error
        }
    }

    /// Waits for a slot, then renders. The wait is at most twice `renderSeconds`: long enough
    /// for the render ahead to end, even at its deadline, and bounded so a queue of uploads does
    /// not hold connections for ever.
    private func renderInTurn(_ pdf: [UInt8]) async throws -> Rendered {
        guard try await slots.acquire(within: .seconds(2 * limits.renderSeconds)) else {
            var error = APIError(.serviceUnavailable,
                                 "the hub is rendering \(limits.rendersAtOnce) deck\(limits.rendersAtOnce == 1 ? "" : "s") already "
                                     + "(decks.rendersAtOnce) and this one waited \(2 * limits.renderSeconds) s for its turn: try again shortly")
            error.retryAfterSeconds = 30
            throw error
        }
        defer { slots.release() }
        let deadline = ContinuousClock.now + .seconds(limits.renderSeconds)
        let directory = try await Self.blocking {
            // mkdtemp, not a UUID: out of descriptors, Foundation's UUID() is all zeros (it
            // cannot open the random source), and two renders would share a directory.
            var template = Array(FileManager.default.temporaryDirectory.appendingPathComponent("nearcast-deck-XXXXXXXX").path.utf8CString)
            guard mkdtemp(&template) != nil else { throw NSError(domain: NSPOSIXErrorDomain, code: Int(errno)) }
            let directory = URL(fileURLWithPath: String(cString: template), isDirectory: true)
            try Data(pdf).write(to: directory.appendingPathComponent("deck.pdf"))
            return directory
        }
        let file = directory.appendingPathComponent("deck.pdf")
        do {
            let rendered = try await renderFile(file, deadline: deadline)
            await Self.remove(directory)
            return rendered
        } catch {
            // Every child has ended by now (each run awaits its own), so nothing writes here.
            await Self.remove(directory)
            throw error
        }
    }

    private func renderFile(_ file: URL, deadline: ContinuousClock.Instant) async throws -> Rendered {
        let info = try await run(tools.pdfinfo, [file.path], in: file.deletingLastPathComponent(), name: "info",
                                 deadline: deadline, what: "reading the PDF")
        guard info.status == 0 else {
            let detail = Self.firstLine(info.standardError)
            if detail.localizedCaseInsensitiveContains("password") || detail.localizedCaseInsensitiveContains("encrypt") {
                throw APIError(.badRequest, "the PDF is encrypted (it needs a password): export it again without one", field: "(body)")
            }
            throw APIError(.badRequest, "the PDF cannot be read (it is damaged or not a PDF): \(detail)", field: "(body)")
        }
        let fields = Self.infoFields(info.standardOutput)
        if let encrypted = fields["Encrypted"], encrypted.hasPrefix("yes") {
            throw APIError(.badRequest, "the PDF is encrypted: export it again without a password or restrictions", field: "(body)")
        }
        guard let pageText = fields["Pages"], let pages = Int(pageText) else {
            throw APIError(.badRequest, "the PDF cannot be read: poppler found no page count in it", field: "(body)")
        }
        guard pages > 0 else { throw APIError(.badRequest, "the PDF has no pages", field: "(body)") }
        guard pages <= limits.maximumPages else {
            throw APIError(.contentTooLarge, "the PDF has \(pages) pages; a deck may have at most \(limits.maximumPages)", field: "(body)")
        }

        // The two sizes render side by side (two cores); each is one pdftoppm over every page.
        // When one fails, leaving this scope cancels the other, which kills its process group.
        async let full = renderAll(file, pixels: limits.fullPixels, prefix: "full", pages: pages, deadline: deadline)
        async let thumbnails = renderAll(file, pixels: limits.thumbnailPixels, prefix: "thumb", pages: pages, deadline: deadline)
        let (fullImages, thumbnailImages) = try await (full, thumbnails)
        guard let size = JPEGSize.read(fullImages[0]) else {
            throw APIError(.unprocessableContent, "the PDF's first page did not render to a readable image", field: "(body)")
        }
        return Rendered(pages: zip(fullImages, thumbnailImages).map { Page(full: $0, thumbnail: $1) },
                        width: size.width, height: size.height)
    }

    private func renderAll(_ file: URL, pixels: Int, prefix: String, pages: Int, deadline: ContinuousClock.Instant) async throws -> [[UInt8]] {
        let directory = file.deletingLastPathComponent()
        let out = directory.appendingPathComponent(prefix)
        let result = try await run(tools.pdftoppm, ["-jpeg", "-jpegopt", "quality=85,optimize=y", "-scale-to", String(pixels),
                                                    file.path, out.path], in: directory, name: prefix,
                                   deadline: deadline, what: "rendering the pages")
        guard result.status == 0 else {
            throw APIError(.unprocessableContent, "the PDF's pages could not be rendered: \(Self.firstLine(result.standardError))", field: "(body)")
        }
        return try await Self.blocking {
            // pdftoppm names pages PREFIX-N.jpg with N zero-padded to the page count's width.
            let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
                .filter { $0.hasPrefix(prefix + "-") && $0.hasSuffix(".jpg") }
                .sorted { Self.pageNumber($0) < Self.pageNumber($1) }
            guard names.count == pages else {
                throw APIError(.unprocessableContent, "the PDF has \(pages) pages but \(names.count) rendered", field: "(body)")
            }
            return try names.map { [UInt8](try Data(contentsOf: directory.appendingPathComponent($0))) }
        }
    }

    /// A finished child process.
    struct Finished: Sendable {
        var status: Int32
        var standardOutput: String
        var standardError: String
    }

    /// The command that runs `tool`: each program in it sets one thing and execs the next, so
    /// the last one (poppler) is the child itself, with its death signal, priority and limits.
    /// `deathSignal` false: without setpriv (where it cannot work: `DeathSignalProbe`).
    func command(_ tool: String, _ arguments: [String], deathSignal: Bool = true) -> [String] {
        (deathSignal ? [tools.setpriv, "--pdeathsig", "KILL", "--"] : [])
        + [tools.nice, "-n", "10",
         tools.prlimit, "--as=\(limits.processMemoryBytes)", "--cpu=\(limits.renderSeconds)", "--fsize=\(limits.processFileBytes)",
         "--", tool] + arguments
    }

    /// Runs `tool` (its output in `directory`/`name`.out and .err), killed with its process group
    /// at `deadline` (then the upload is a 422 naming the limit) or when the task is cancelled.
    private func run(_ tool: String, _ arguments: [String], in directory: URL, name: String,
                     deadline: ContinuousClock.Instant, what: String) async throws -> Finished {
        let command = command(tool, arguments, deathSignal: await deathSignal.works(setpriv: tools.setpriv))
        let outputPath = directory.appendingPathComponent(name + ".out").path
        let errorPath = directory.appendingPathComponent(name + ".err").path
        let outcome: ChildProcess.Outcome
        do {
            outcome = try await ChildProcess.run(command[0], Array(command.dropFirst()), standardOutput: outputPath,
                                                 standardError: errorPath, deadline: deadline)
        } catch let failure as ChildProcess.SpawnFailure where failure.isExhaustion {
            throw Self.exhausted(failure.description)
        } catch let failure as OwnThread.Unavailable {
            throw Self.exhausted(failure.description)
        }
        switch (outcome.stoppedBy, outcome.end) {
        case (.cancelled?, _):
            throw CancellationError()
        case (.deadline?, _), (nil, .signalled(SIGXCPU)):
            throw APIError(.unprocessableContent,
                           "\(what) took longer than \(limits.renderSeconds) s, the limit for a deck (decks.renderSeconds): "
                               + "split it or simplify its pages",
                           field: "(body)")
        case (nil, .signalled(let signal)):
            throw APIError(.unprocessableContent,
                           "\(what) failed: poppler stopped on signal \(signal) (out of its \(limits.processMemoryBytes / 1024 / 1024) MB "
                               + "memory limit?)",
                           field: "(body)")
        case (nil, .exited(let status)):
            // Poppler's output is small; its error output is read only as far as its first line.
            let (output, errors) = try await Self.blocking {
                (Self.read(outputPath, upTo: 1024 * 1024), Self.read(errorPath, upTo: 4096))
            }
            return Finished(status: status, standardOutput: output, standardError: errors)
        }
    }

    /// Up to `limit` bytes of a file, as text ("" when it cannot be read).
    private static func read(_ path: String, upTo limit: Int) -> String {
        guard let handle = FileHandle(forReadingAtPath: path) else { return "" }
        defer { try? handle.close() }
        return String(decoding: (try? handle.read(upToCount: limit)) ?? Data(), as: UTF8.self)
    }

    /// File work on a thread of its own; out of descriptors or threads is a 503, not a 500.
    private static func blocking<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        do {
            return try await OwnThread.run(body)
        } catch let failure as OwnThread.Unavailable {
            throw exhausted(failure.description)
        } catch {
            guard let code = exhaustion(error as NSError) else { throw error }
            throw exhausted(String(cString: strerror(code)).lowercased())
        }
    }

    /// Removes the scratch directories of renders whose hub was killed mid-render (SIGKILL, a
    /// crash), once they are older than any render lasts (`renderSeconds` is at most an hour),
    /// so another hub's live render on the same machine is left alone. Run at start.
    static func removeAbandonedScratch(in folder: URL = FileManager.default.temporaryDirectory, now: Date = Date()) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { return }
        for name in names where name.hasPrefix("nearcast-deck-") {
            let path = folder.appendingPathComponent(name).path
            guard let modified = (try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date,
                  now.timeIntervalSince(modified) > 2 * 3600 else { continue }
            try? FileManager.default.removeItem(atPath: path)
        }
    }

    private static func remove(_ directory: URL) async {
        _ = try? await OwnThread.run { try? FileManager.default.removeItem(at: directory) }
    }

    /// The errno of a POSIX error (or of Foundation's wrapping of one) that means the hub ran out
    /// of descriptors, processes or memory; nil for any other error.
    static func exhaustion(_ error: NSError) -> Int32? {
        if error.domain == NSPOSIXErrorDomain, [EMFILE, ENFILE, EAGAIN, ENOMEM].contains(Int32(truncatingIfNeeded: error.code)) {
            return Int32(truncatingIfNeeded: error.code)
        }
        // Foundation's file errors (CocoaError 512 and the like) carry the POSIX one beneath.
        if let underlying = error.userInfo[NSUnderlyingErrorKey] as? any Error { return exhaustion(underlying as NSError) }
        return nil
    }

    /// The refusal when the hub is out of descriptors or processes: a 503 the uploader can retry.
    static func exhausted(_ detail: String) -> APIError {
        var error = APIError(.serviceUnavailable, "the hub is out of resources to render a deck (\(detail)): try again shortly")
        error.retryAfterSeconds = 10
        return error
    }

    static func startsLikePDF(_ bytes: [UInt8]) -> Bool {
        let magic = Array("%PDF-".utf8)
        let window = bytes.prefix(1024)
        guard window.count >= magic.count else { return false }
        for start in 0...(window.count - magic.count) where window[start..<(start + magic.count)].elementsEqual(magic) {
            return true
        }
        return false
    }

    /// `Name: value` lines of pdfinfo's output.
    static func infoFields(_ text: String) -> [String: String] {
        var fields: [String: String] = [:]
        for line in text.split(separator: "\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            fields[String(line[..<colon])] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return fields
    }

    static func firstLine(_ text: String) -> String {
        let line = text.split(separator: "\n").first.map(String.init) ?? "no message"
        return line.count > 200 ? String(line.prefix(200)) + "…" : line
    }

    static func pageNumber(_ name: String) -> Int {
        Int(name.split(separator: "-").last?.split(separator: ".").first ?? "") ?? 0
    }
}

/// A JPEG's pixel size, from its first start-of-frame marker.
enum JPEGSize {
    static func read(_ bytes: [UInt8]) -> (width: Int, height: Int)? {
        guard bytes.count > 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else { return nil }
        var index = 2
        while index + 9 < bytes.count {
            guard bytes[index] == 0xFF else { return nil }
            let marker = bytes[index + 1]
            if marker == 0xD8 || marker == 0x01 || (0xD0...0xD7).contains(marker) { index += 2; continue }
            let length = Int(bytes[index + 2]) << 8 | Int(bytes[index + 3])
            // SOF0-SOF15, except DHT (C4), JPG (C8) and DAC (CC).
            if (0xC0...0xCF).contains(marker), marker != 0xC4, marker != 0xC8, marker != 0xCC {
                let height = Int(bytes[index + 5]) << 8 | Int(bytes[index + 6])
                let width = Int(bytes[index + 7]) << 8 | Int(bytes[index + 8])
                return (width, height)
            }
            index += 2 + length
        }
        return nil
    }
}
