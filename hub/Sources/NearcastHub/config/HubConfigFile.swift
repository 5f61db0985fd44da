import Foundation

/// The hub's config file (`serve --config /etc/nearcast-hub/hub.json5`, as the Debian package's
/// service runs it): JSON5, every key optional, flags on the command line win over it.
///
/// ```
/// { listen: "0.0.0.0:443", redirectHTTP: "0.0.0.0:80",
///   database: "sqlite:/var/lib/nearcast-hub/hub.sqlite",
///   tls: { certificate: "/etc/nearcast-hub/tls/cert.pem", key: "/etc/nearcast-hub/tls/key.pem" },
///   listenerPage: "/usr/share/nearcast-hub/page", logLevel: "info",
///   limits: { enabled: true, requestsPerSecondPerAddress: 200, ... },
///   decks: { renderSeconds: 120, rendersAtOnce: 1, storagePerProjectMB: 200 },
///   trustedProxies: ["10.0.0.2", "fd00:1::/64"] }
/// ```
/// An unknown key is an error naming it (a misspelt limit would otherwise be silently ignored).
public struct HubConfigFile: Decodable, Sendable, Equatable {
    /// The certificate and key files.
    public struct TLS: Decodable, Sendable, Equatable {
        public var certificate: String
        public var key: String
    }

    public var listen: String?
    public var redirectHTTP: String?
    public var database: String?
    public var tls: TLS?
    public var listenerPage: String?
    public var logLevel: String?
    public var limits: HubLimits?
    /// Deck rendering and storage (`DeckLimits`).
    public var decks: DeckLimits?
    /// The load balancers in front, whose `X-Forwarded-For` names the client: a list of
    /// addresses and networks (`TrustedProxies`).
    public var trustedProxies: TrustedProxies?

    public init() {}

    static let keys: Set<String> = ["listen", "redirectHTTP", "database", "tls", "listenerPage", "logLevel", "limits", "decks",
                                    "trustedProxies"]
    static let tlsKeys: Set<String> = ["certificate", "key"]

    /// Reads and checks `path`; the error names the file and the key.
    public static func load(path: String) throws(HubConfigFileError) -> HubConfigFile {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw HubConfigFileError("\(path): cannot be read (missing, or no permission)")
        }
        return try parse(data, path: path)
    }

    public static func parse(_ data: Data, path: String) throws(HubConfigFileError) -> HubConfigFile {
        let decoder = JSONDecoder()
        decoder.allowsJSON5 = true
        let tree: KeyTree
        do {
            tree = try decoder.decode(KeyTree.self, from: data)
        } catch let DecodingError.dataCorrupted(context) where context.codingPath.isEmpty {
            throw HubConfigFileError("\(path): not valid JSON5 (\(Self.describeSyntax(context.underlyingError ?? DecodingError.dataCorrupted(context))))")
        } catch {
            throw HubConfigFileError("\(path): must be an object ({ listen: ..., ... })")
        }
        try checkKeys(tree.keys, allowed: keys, path: path, prefix: "")
        if let tls = tree.children["tls"] { try checkKeys(tls, allowed: tlsKeys, path: path, prefix: "tls.") }
        if let limits = tree.children["limits"] { try checkKeys(limits, allowed: HubLimits.keys, path: path, prefix: "limits.") }
        if let decks = tree.children["decks"] { try checkKeys(decks, allowed: DeckLimits.keys, path: path, prefix: "decks.") }
        let config: HubConfigFile
        do {
            config = try decoder.decode(HubConfigFile.self, from: data)
        } catch let error as DecodingError {
            throw HubConfigFileError("\(path): \(describe(error))")
        } catch {
            throw HubConfigFileError("\(path): \(error)")
        }
        do { try config.limits?.validate() } catch { throw HubConfigFileError("\(path): \(error.description)") }
        return config
    }

    private static func checkKeys(_ found: [String], allowed: Set<String>, path: String, prefix: String) throws(HubConfigFileError) {
        for key in found.sorted() where !allowed.contains(key) {
            throw HubConfigFileError("\(path): unknown key \(prefix)\(key) (known: \(allowed.sorted().joined(separator: ", ")))")
        }
    }

    private static func describe(_ error: DecodingError) -> String {
        func path(_ keys: [any CodingKey]) -> String { keys.map(\.stringValue).joined(separator: ".") }
        switch error {
        case .typeMismatch(let type, let context): return "\(path(context.codingPath)) must be \(type == String.self ? "a string" : type == TrustedProxies.self ? "a list of addresses and networks (as [\"10.0.0.2\", \"fd00::/64\"])" : type == Bool.self ? "true or false" : type == TLS.self || type == DeckLimits.self ? "an object" : "a number")"
        case .keyNotFound(let key, let context): return "\(path(context.codingPath + [key])) is required"
        case .valueNotFound(_, let context): return "\(path(context.codingPath)) may not be null"
        case .dataCorrupted(let context): return "\(path(context.codingPath)): \(context.debugDescription)"
        @unknown default: return "\(error)"
        }
    }

    /// Foundation's JSON5 errors carry the place in their user info.
    private static func describeSyntax(_ error: any Error) -> String {
        let info = (error as NSError).userInfo
        return (info[NSDebugDescriptionErrorKey] as? String) ?? "\(error)"
    }
}

/// The keys of an object and of the objects directly in it (to refuse unknown ones).
private struct KeyTree: Decodable {
    var keys: [String]
    var children: [String: [String]]

    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    private struct Names: Decodable {
        var keys: [String]
        init(from decoder: any Decoder) throws { keys = try decoder.container(keyedBy: Key.self).allKeys.map(\.stringValue) }
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        keys = container.allKeys.map(\.stringValue)
        children = [:]
        for key in container.allKeys {
            if let names = try? container.decode(Names.self, forKey: key) { children[key.stringValue] = names.keys }
        }
    }
}

/// A config file that cannot be used, in words, naming the file.
public struct HubConfigFileError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}

extension HubLimits: Decodable {
    static let keys = Set(settings.map(\.key))

    /// Each setting present replaces its default.
    public init(from decoder: any Decoder) throws {
        self.init()
        let container = try decoder.container(keyedBy: ConfigKey.self)
        for (name, setting) in Self.settings {
            let key = ConfigKey(stringValue: name)
            switch setting {
            case .flag(let field): if let given = try container.decodeIfPresent(Bool.self, forKey: key) { self[keyPath: field] = given }
            case .number(let field): if let given = try container.decodeIfPresent(Double.self, forKey: key) { self[keyPath: field] = given }
            case .bits(let field): if let given = try container.decodeIfPresent(Int.self, forKey: key) { self[keyPath: field] = given }
            case .count(let field): if let given = try container.wholeNumber(name, in: 1...10_000_000) { self[keyPath: field] = given }
            }
        }
    }
}
