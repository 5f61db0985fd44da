import NearcastDrivers

/// One HTTP request to the hub, made by Debian's `curl` in a child process: the daemon never
/// links an HTTP or TLS library (its memory budget), never blocks on the network (it polls the
/// child once a period), and gets curl's certificate checking for HTTPS.
///
/// The request goes in a curl config file (mode 0600) rather than on the command line, so the
/// project's secret key never shows in `ps`. The files live in the state directory:
/// `hub-call.curl` (the config), `hub-call.body` (the request), `hub-call.response`,
/// `hub-call.code` (curl's `%{http_code}`) and `hub-call.err`.
final class HubCall {
    /// What came back: the HTTP status and body, or why there was no answer.
    enum Outcome: Equatable {
        case answered(status: Int, body: String)
        case failed(String)
    }

    let method: String
    let path: String
    private let child: ChildProcess
    private let files: Files
    private let started: Double
    /// The largest answer read; curl stops a larger one (`max-filesize`), and the call fails.
    static let maximumResponseBytes = 4 << 20
    /// curl's own limit; the daemon kills it a little after, should it hang regardless.
    static let timeoutSeconds = 20.0

    struct Files {
        let config, body, response, code, errors: String

        init(stateDirectory: StateDirectory) {
            config = stateDirectory.file("hub-call.curl")
            body = stateDirectory.file("hub-call.body")
            response = stateDirectory.file("hub-call.response")
            code = stateDirectory.file("hub-call.code")
            errors = stateDirectory.file("hub-call.err")
        }
    }

    /// Starts the request; throws when curl cannot be started at all.
    init(method: String, path: String, body: String?, hub: HubSettings, curl: String, state: StateDirectory,
         now: Double) throws(SystemError) {
        self.method = method
        self.path = path
        files = Files(stateDirectory: state)
        started = now
        var lines = [
            "url = \(Self.quoted(hub.url + path))",
            "request = \(Self.quoted(method))",
            "header = \(Self.quoted("X-Api-Key: " + hub.key))",
            "header = \"Accept: application/json\"",
            "output = \(Self.quoted(files.response))",
            "write-out = \"%{http_code}\"",
            "max-time = \(Int(Self.timeoutSeconds))",
            "connect-timeout = 5",
            "silent", "show-error",
            "proto = \"=http,https\"",
            "max-filesize = \(Self.maximumResponseBytes)",
            "globoff",
        ]
        if let ca = hub.certificateAuthority { lines.append("cacert = \(Self.quoted(ca))") }
        if let body {
            try FileSystem.writeAtomically(files.body, Array(body.utf8), mode: 0o600)
            lines.append("header = \"Content-Type: application/json\"")
            lines.append("data-binary = \(Self.quoted("@" + files.body))")
        }
        try FileSystem.writeAtomically(files.config, Array((lines.joined(separator: "\n") + "\n").utf8), mode: 0o600)
        _ = try? FileSystem.remove(files.response)
        child = try ChildProcess(arguments: [curl, "--config", files.config], stdout: files.code, stderr: files.errors)
    }

    /// The outcome once curl has ended, nil while it runs.
    func poll(now: Double) -> Outcome? {
        let status: ChildProcess.Status
        do {
            guard let ended = try child.poll() else {
                guard now - started > Self.timeoutSeconds + 5 else { return nil }
                child.kill()
                return .failed("curl did not finish in \(Int(Self.timeoutSeconds + 5)) s; killed")
            }
            status = ended
        } catch {
            return .failed("waiting for curl: \(error)")
        }
        guard status == .exited(0) else {
            let text = (try? FileSystem.readText(files.errors, limit: 4096)) ?? ""
            // curl's one-line error ("curl: (60) SSL certificate problem: ..."); some errors add
            // paragraphs of advice after it.
            let lines = text.split(separator: "\n").map(String.init)
            if let error = lines.first(where: { $0.hasPrefix("curl: ") }) { return .failed(String(error.dropFirst(6))) }
            return .failed(lines.last ?? "curl \(status)")
        }
        let code = Int(((try? FileSystem.readText(files.code, limit: 64)) ?? "").trimmingWhitespace) ?? 0
        // At most 8 publications of 100 KiB each come back as about 1.1 MB of base64.
        let body = (try? FileSystem.readText(files.response, limit: Self.maximumResponseBytes)) ?? ""
        return code == 0 ? .failed("no HTTP answer") : .answered(status: code, body: body)
    }

    /// Ends the request now (at shutdown).
    func cancel() { child.kill() }

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

extension String {
    var trimmingWhitespace: String {
        var scalars = Substring(self)
        while let first = scalars.first, first.isWhitespace { scalars.removeFirst() }
        while let last = scalars.last, last.isWhitespace { scalars.removeLast() }
        return String(scalars)
    }
}
