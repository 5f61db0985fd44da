import Foundation

/// The listener page's files (`tools/setup/build-web`'s output: listen.html, its scripts, the
/// WebAssembly decoder), read once at start so a request never touches the file system and
/// only these names are ever served.
public struct ListenerFiles: Sendable {
    /// One file: its bytes and the type it is served as.
    public struct File: Sendable {
        public let bytes: [UInt8]
        public let contentType: String
    }

    /// Where the files were read from.
    public let directory: String
    /// By file name (no directories).
    public let files: [String: File]

    /// The file types the page is made of; anything else in the directory is left alone.
    static let contentTypes = [
        "html": "text/html; charset=utf-8", "js": "text/javascript; charset=utf-8",
        "css": "text/css; charset=utf-8", "wasm": "application/wasm",
        // The API's OpenAPI document (hub/openapi.yaml, copied beside the pages by tools/setup/build-web).
        "yaml": "application/yaml; charset=utf-8",
    ]
    /// What the page cannot work without.
    static let required = ["listen.html", "listener.js", "nearcast-modem.wasm"]

    /// Reads `directory`; throws naming the directory and what is missing.
    public init(directory: String) throws {
        let manager = FileManager.default
        var isDirectory: ObjCBool = false
        guard manager.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw ListenerFilesError("\(directory) is not a directory")
        }
        var files: [String: File] = [:]
        for name in try manager.contentsOfDirectory(atPath: directory).sorted() where Self.isPlainName(name) {
            guard let dot = name.lastIndex(of: "."), let type = Self.contentTypes[String(name[name.index(after: dot)...])],
                  let data = manager.contents(atPath: directory + "/" + name) else { continue }
            files[name] = File(bytes: [UInt8](data), contentType: type)
        }
        let missing = Self.required.filter { files[$0] == nil }
        guard missing.isEmpty else {
            throw ListenerFilesError("\(directory) lacks \(missing.joined(separator: ", ")) (build the page with tools/setup/build-web)")
        }
        self.directory = directory
        self.files = files
    }

    /// A name served as it is: letters, digits, dots, dashes and underscores (a route is made of
    /// it, so nothing a router reads as a pattern), and not hidden.
    static func isPlainName(_ name: String) -> Bool {
        !name.hasPrefix(".") && name.unicodeScalars.allSatisfy {
            ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || ".-_".unicodeScalars.contains($0)
        }
    }

    /// The page installed beside the executable (`../share/nearcast-hub/listener`), or built in
    /// the Nearcast source checkout the executable runs from (`.build/web` at the repository's
    /// top, which `tools/setup/build-web` writes; a checkout is a directory with `hub/Package.swift`
    /// and `Sources/NearcastCore`), if either holds the page.
    public static func find(fromExecutable executable: String) -> ListenerFiles? {
        var directory = URL(fileURLWithPath: executable).resolvingSymlinksInPath().deletingLastPathComponent()
        var candidates = [directory.appendingPathComponent("../share/nearcast-hub/listener").standardized.path]
        let manager = FileManager.default
        while directory.path != "/" {
            if manager.fileExists(atPath: directory.appendingPathComponent("hub/Package.swift").path),
               manager.fileExists(atPath: directory.appendingPathComponent("Sources/NearcastCore").path) {
                candidates.append(directory.appendingPathComponent(".build/web").path)
                break
            }
            directory.deleteLastPathComponent()
        }
        for candidate in candidates where FileManager.default.fileExists(atPath: candidate + "/listen.html") {
            if let found = try? ListenerFiles(directory: candidate) { return found }
        }
        return nil
    }
}

/// The listener page's directory cannot be served.
public struct ListenerFilesError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
