import Foundation

/// Turns an uploaded PDF into page images, once, at upload: poppler's `pdfinfo` reads it and
/// `pdftoppm` renders every page to a full-size JPEG (for the projector and a phone) and a
/// thumbnail, each in a child process under `prlimit` (address space and CPU time) and a wall-clock
/// deadline, so a hostile PDF costs bounded memory and time and never the hub's own process.
///
/// Every refusal is a 4xx naming what is wrong with the file.
struct DeckRenderer: Sendable {
    /// The limits a deck must keep (docs/presenter.md lists them, "Decks").
    struct Limits: Sendable {
        var maximumBytes = 50 * 1024 * 1024
        var maximumPages = 300
        /// Wall time for all of a deck's rendering.
        var renderSeconds = 120
        /// Address space of each poppler process.
        var processMemoryBytes = 1024 * 1024 * 1024
        /// The long side of a full page image and of a thumbnail, in pixels.
        var fullPixels = 1600
        var thumbnailPixels = 320
    }

    /// One rendered page.
    struct Page: Sendable {
        var full: [UInt8]
        var thumbnail: [UInt8]
    }

    /// What the renderer made of a PDF.
    struct Rendered: Sendable {
        var pages: [Page]
        var width: Int
        var height: Int
    }

    var limits = Limits()
    var tools = PopplerTools()

    /// Where poppler's programs are (Debian's poppler-utils) and prlimit (util-linux).
    struct PopplerTools: Sendable {
        var pdfinfo = "/usr/bin/pdfinfo"
        var pdftoppm = "/usr/bin/pdftoppm"
        var prlimit = "/usr/bin/prlimit"
    }

    func render(_ pdf: [UInt8]) async throws -> Rendered {
        guard !pdf.isEmpty else { throw APIError(.badRequest, "the body is empty: send the PDF file as the body", field: "(body)") }
        guard pdf.count <= limits.maximumBytes else {
            throw APIError(.contentTooLarge, "the PDF is \(pdf.count) bytes; a deck may be at most \(limits.maximumBytes / 1024 / 1024) MB", field: "(body)")
        }
        // A PDF starts with %PDF- within its first kilobyte.
        guard Self.startsLikePDF(pdf) else {
            throw APIError(.badRequest, "this is not a PDF (it does not start with %PDF-)", field: "(body)")
        }
        for tool in [tools.pdfinfo, tools.pdftoppm, tools.prlimit] where !FileManager.default.isExecutableFile(atPath: tool) {
            throw APIError(.serviceUnavailable, "this hub cannot render decks: \(tool) is missing (install poppler-utils)")
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nearcast-deck-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("deck.pdf")
        try Data(pdf).write(to: file)
        let deadline = ContinuousClock.now + .seconds(limits.renderSeconds)

        let info = try await run(tools.pdfinfo, [file.path], deadline: deadline, what: "reading the PDF")
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
        let out = file.deletingLastPathComponent().appendingPathComponent(prefix)
        let result = try await run(tools.pdftoppm, ["-jpeg", "-jpegopt", "quality=85,optimize=y", "-scale-to", String(pixels),
                                                    file.path, out.path], deadline: deadline, what: "rendering the pages")
        guard result.status == 0 else {
            throw APIError(.unprocessableContent, "the PDF's pages could not be rendered: \(Self.firstLine(result.standardError))", field: "(body)")
        }
        // pdftoppm names pages PREFIX-N.jpg with N zero-padded to the page count's width.
        let names = try FileManager.default.contentsOfDirectory(atPath: file.deletingLastPathComponent().path)
            .filter { $0.hasPrefix(prefix + "-") && $0.hasSuffix(".jpg") }
            .sorted { Self.pageNumber($0) < Self.pageNumber($1) }
        guard names.count == pages else {
            throw APIError(.unprocessableContent, "the PDF has \(pages) pages but \(names.count) rendered", field: "(body)")
        }
        return try names.map { [UInt8](try Data(contentsOf: file.deletingLastPathComponent().appendingPathComponent($0))) }
    }

    /// A finished child process.
    struct Finished: Sendable {
        var status: Int32
        var standardOutput: String
        var standardError: String
    }

    /// Runs `tool` under prlimit, killed at `deadline` (then the upload is a 422 naming the limit).
    private func run(_ tool: String, _ arguments: [String], deadline: ContinuousClock.Instant, what: String) async throws -> Finished {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tools.prlimit)
        process.arguments = ["--as=\(limits.processMemoryBytes)", "--cpu=\(limits.renderSeconds)", "--", tool] + arguments
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        let ended = AsyncStream<Int32>.makeStream()
        process.terminationHandler = { ended.continuation.yield($0.terminationStatus); ended.continuation.finish() }
        try process.run()
        // Read both pipes while it runs, so a chatty tool never blocks on a full pipe.
        async let standardOutput = Task.detached { output.fileHandleForReading.readDataToEndOfFile() }.value
        async let standardError = Task.detached { errors.fileHandleForReading.readDataToEndOfFile() }.value
        let watchdog = Task {
            try await Task.sleep(until: deadline, clock: .continuous)
            if process.isRunning { process.terminate() }
            try await Task.sleep(for: .seconds(2))
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        }
        var status: Int32 = -1
        for await code in ended.stream { status = code }
        watchdog.cancel()
        let (out, err) = await (standardOutput, standardError)
        if ContinuousClock.now >= deadline || process.terminationReason == .uncaughtSignal && status == SIGXCPU {
            throw APIError(.unprocessableContent,
                           "\(what) took longer than \(limits.renderSeconds) s, the limit for a deck: split it or simplify its pages",
                           field: "(body)")
        }
        if process.terminationReason == .uncaughtSignal {
            throw APIError(.unprocessableContent,
                           "\(what) failed: poppler stopped on signal \(status) (out of its \(limits.processMemoryBytes / 1024 / 1024) MB memory limit?)",
                           field: "(body)")
        }
        return Finished(status: status, standardOutput: String(decoding: out, as: UTF8.self),
                        standardError: String(decoding: err, as: UTF8.self))
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
