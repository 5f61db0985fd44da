import NearcastDrivers

/// The box's ``HubTransport``: each request is one run of Debian's `curl` in a child process,
/// its config (URL, method, the project's key, the body) written to curl's stdin and the answer
/// read from its stdout, polled once a period. Nothing touches the disk per call, the key never
/// shows in `ps`, and curl does the certificate checking for HTTPS.
///
/// Why a child and not libcurl in the daemon: libcurl with its 31 libraries, loaded and
/// initialised, costs 8.3 MB resident and more after HTTPS requests, and the release daemon grows
/// from 11.2 to 15.3 MB with it merely preloaded, against a budget of 12 MB
/// (`research/libcurl-rss/bench-libcurl-rss`; docs/venue-operator.md). A curl process per call costs nothing
/// between calls.
final class CurlTransport: HubTransport {
    let settings: HubSettings
    private let curl: String
    private var running: (child: ChildProcess, started: Double)?
    /// The largest answer read; curl stops a larger one (`max-filesize`), and the call fails.
    /// At most 8 publications of 100 KiB each come back as about 1.1 MB of base64.
    static let maximumResponseBytes = 4 << 20
    /// curl's own limit; the daemon kills it a little after, should it hang regardless.
    static let timeoutSeconds = 20.0
    /// What curl writes after the body: a newline and the HTTP status (`%{http_code}`).
    private static let statusTrailerBytes = 16

    /// Nil when curl is not installed (``missingCurl`` says so).
    init?(settings: HubSettings) {
        guard let curl = ChildProcess.find("curl") else { return nil }
        self.settings = settings
        self.curl = curl
    }

    static let missingCurl = "curl is not installed (the hub client runs it): apt install curl"

    func start(_ request: HubRequest, now: Double) throws(HubFailure) {
        let config = Self.config(for: request, settings: settings)
        do {
            let child = try ChildProcess(arguments: [curl, "--config", "-"], input: Array(config.utf8),
                                         outputLimit: Self.maximumResponseBytes + Self.statusTrailerBytes)
            running = (child, now)
        } catch {
            throw HubFailure(message: "cannot start curl: \(error)")
        }
    }

    func poll(now: Double) -> HubReply? {
        guard let (child, started) = running else { return nil }
        let status: ChildProcess.Status
        do {
            guard let ended = try child.poll() else {
                guard now - started > Self.timeoutSeconds + 5 else { return nil }
                child.kill()
                running = nil
                return .failed("curl did not finish in \(Int(Self.timeoutSeconds + 5)) s; killed")
            }
            status = ended
        } catch {
            child.kill()
            running = nil
            return .failed("talking to curl: \(error)")
        }
        running = nil
        return Self.reply(status: status, output: child.output, errors: child.errors, overflowed: child.outputOverflowed)
    }

    func cancel() {
        running?.child.kill()
        running = nil
    }

    /// curl's config for `request`: every value quoted so none can start a line of its own.
    static func config(for request: HubRequest, settings: HubSettings) -> String {
        var lines = [
            "url = \(quoted(settings.url + request.path))",
            "request = \(quoted(request.method))",
            "header = \(quoted("X-Api-Key: " + settings.key))",
            "header = \"Accept: application/json\"",
            "write-out = \"\\n%{http_code}\"",
            "max-time = \(Int(timeoutSeconds))",
            "connect-timeout = 5",
            "silent", "show-error",
            "proto = \"=http,https\"",
            "max-filesize = \(maximumResponseBytes)",
            "globoff",
        ]
        if let ca = settings.certificateAuthority { lines.append("cacert = \(quoted(ca))") }
        if let body = request.body {
            lines.append("header = \"Content-Type: application/json\"")
            lines.append("data-binary = \(quoted(body))")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// What a finished curl run means: its stdout is the body, a newline and the HTTP status.
    static func reply(status: ChildProcess.Status, output: [UInt8], errors: [UInt8], overflowed: Bool) -> HubReply {
        if overflowed { return .failed("the answer is larger than \(maximumResponseBytes >> 20) MiB") }
        guard status == .exited(0) else {
            // curl's one-line error ("curl: (60) SSL certificate problem: ..."); some errors add
            // paragraphs of advice after it.
            let lines = String(decoding: errors, as: UTF8.self).split(separator: "\n").map(String.init)
            if let error = lines.first(where: { $0.hasPrefix("curl: ") }) { return .failed(String(error.dropFirst(6))) }
            return .failed(lines.last ?? "curl \(status)")
        }
        guard let newline = output.lastIndex(of: UInt8(ascii: "\n")),
              let code = Int(String(decoding: output[(newline + 1)...], as: UTF8.self)), code != 0
        else { return .failed("no HTTP answer") }
        return .answered(status: code, body: String(decoding: output[..<newline], as: UTF8.self))
    }

    /// A value in a curl config file: double quotes, with `\` and `"` escaped and control
    /// characters written as escapes, so no value can start a line of its own.
    static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\", "\"": out += "\\" + String(scalar)
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F { continue }   // dropped: curl has no escape for them
                out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
