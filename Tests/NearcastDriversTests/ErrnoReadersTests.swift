import Foundation
import XCTest

/// Keeps "every errno read in one place" true: a source scan, like tools/check/check-core-purity's
/// for imports, that fails naming any file outside the allowed one that reads `errno` itself.
/// (A read elsewhere would skip the EINTR retry and the readable message SystemError gives.)
final class ErrnoReadersTests: XCTestCase {
    /// Each module's one file allowed to read errno; modules not listed may read it nowhere.
    static let allowed: [String: String] = [
        "NearcastDrivers": "system/SystemError.swift",
        "NearcastSystemd": "SystemdNotifierError.swift",
    ]
    static let scanned = ["NearcastCore", "NearcastDrivers", "NearcastNearby", "NearcastSystemd", "NearcastApp", "nearcast"]

    func testOnlyTheOneFilePerModuleReadsErrno() throws {
        let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Sources")
        var readers: [String] = []
        var scannedFiles = 0
        for module in Self.scanned {
            let root = sources.appendingPathComponent(module)
            let files = try XCTUnwrap(FileManager.default.subpaths(atPath: root.path)).filter { $0.hasSuffix(".swift") }
            for file in files where file != Self.allowed[module] {
                scannedFiles += 1
                let text = try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8)
                for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
                where Self.readsErrno(line) {
                    readers.append("Sources/\(module)/\(file):\(number + 1): \(line.trimmingCharacters(in: .whitespaces))")
                }
            }
        }
        XCTAssertGreaterThan(scannedFiles, 50, "the scan found the sources")
        XCTAssertEqual(readers, [], "read errno through SystemError (lastError, retryingInterrupts, closeDescriptor)")
    }

    /// The scan's own rule, checked on lines it must and must not flag.
    func testTheRuleFlagsCodeAndSkipsComments() {
        XCTAssertTrue(Self.readsErrno("        let code = errno"))
        XCTAssertTrue(Self.readsErrno("if x != 0 && errno != EEXIST {"))
        XCTAssertTrue(Self.readsErrno("throw SystemError(code: Glibc.errno, operation: \"x\")"))
        XCTAssertFalse(Self.readsErrno("    // posix_spawn returns its error rather than setting errno."))
        XCTAssertFalse(Self.readsErrno("/// the errno a real controller's socket gives"))
        XCTAssertFalse(Self.readsErrno("let errnoText = 1"))
    }

    /// True when the code part of `line` (before any `//`) names `errno` as a word.
    static func readsErrno(_ line: Substring) -> Bool {
        let code = line.range(of: "//").map { line[..<$0.lowerBound] } ?? line
        return code.range(of: #"(?<![A-Za-z0-9_])errno(?![A-Za-z0-9_])"#, options: .regularExpression) != nil
    }

    static func readsErrno(_ line: String) -> Bool { readsErrno(Substring(line)) }
}
