/// Where the box publishes its messages: a hub's base URL, the project's secret key, and
/// optionally a CA bundle for a hub behind a TLS proxy with a private certificate. From
/// `--hub URL --hub-key SECRET [--hub-ca FILE]` or the config file's `hub` object.
struct HubSettings: Equatable {
    /// The base URL without a trailing slash: `https://hub.example.org` or `http://127.0.0.1:8080`.
    let url: String
    let key: String
    let certificateAuthority: String?

    /// A setting that cannot be used: which one (`url`, `key` or `ca`, as the config file's
    /// `hub` object names them) and why.
    struct Invalid: Error {
        let field: String
        let message: String
    }

    init(url: String, key: String, certificateAuthority: String?) throws(Invalid) {
        var base = url
        while base.hasSuffix("/") { base.removeLast() }
        let host = base.hasPrefix("https://") ? base.dropFirst(8) : base.hasPrefix("http://") ? base.dropFirst(7) : ""
        guard !host.isEmpty, !host.hasPrefix("/"),
              !base.contains(where: { $0 == " " || $0 == "\"" || $0 == "\\" || $0.asciiValue.map { $0 < 0x20 } == true })
        else {
            throw Invalid(field: "url", message: "hub URL '\(url)': use http(s)://HOST[:PORT][/PATH], as in https://hub.example.org")
        }
        guard !key.isEmpty, key.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") }) else {
            throw Invalid(field: "key", message: "hub key: the project's secret key from `nearcast-hub project create` (letters, digits, _ and -)")
        }
        if let ca = certificateAuthority, !ca.hasPrefix("/") {
            throw Invalid(field: "ca", message: "hub CA '\(ca)': give an absolute path to a PEM file")
        }
        self.url = base
        self.key = key
        self.certificateAuthority = certificateAuthority
    }
}
