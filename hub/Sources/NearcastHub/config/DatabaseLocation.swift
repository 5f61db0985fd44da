/// Where the hub keeps everything: `sqlite:PATH` (the default, one file made on first start) or
/// a `postgres://` URL (for several hub instances behind one load balancer).
public enum DatabaseLocation: Sendable, Equatable, CustomStringConvertible {
    case sqlite(path: String)
    case postgres(url: String)

    /// The default: `nearcast-hub.sqlite` in the working directory.
    public static let defaultLocation = DatabaseLocation.sqlite(path: "nearcast-hub.sqlite")

    /// Parses `--db`: `sqlite:PATH`, or `postgres://` / `postgresql://` URLs.
    public init(parsing text: String) throws(HubConfigurationError) {
        if text.hasPrefix("sqlite:") {
            let path = String(text.dropFirst("sqlite:".count))
            guard !path.isEmpty else { throw HubConfigurationError("--db \(text): give a file after sqlite:, as in sqlite:hub.sqlite") }
            self = .sqlite(path: path)
        } else if text.hasPrefix("postgres://") || text.hasPrefix("postgresql://") {
            self = .postgres(url: text)
        } else {
            throw HubConfigurationError("--db \(text): use sqlite:PATH or a postgres://USER@HOST/DATABASE URL")
        }
    }

    /// Printable, with any password in a PostgreSQL URL masked.
    public var description: String {
        switch self {
        case .sqlite(let path): return "sqlite:\(path)"
        case .postgres(let url):
            guard let at = url.lastIndex(of: "@"), let scheme = url.range(of: "://"),
                  let colon = url[scheme.upperBound..<at].firstIndex(of: ":") else { return url }
            return String(url[..<url.index(after: colon)]) + "***" + String(url[at...])
        }
    }
}

/// A configuration the hub cannot start with: a bad flag, an unreachable or too new database.
public struct HubConfigurationError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
