import NearcastCore
import NearcastDrivers
import NearcastNearby

/// What `status`, `status --json` and `publications` show: views of the daemon's state.
enum StatusReport {
    static func describe(_ entry: DaemonState.Entry, _ c: DaemonState) -> String {
        let status = c.manager.schedule.status(of: entry.publication.slot)
        let mediums = status?.strategy.mediums ?? []
        return "\(entry.id): \(entry.request.message) over \(mediums)" + (status?.token.map { ", now \($0.hex)" } ?? "")
    }

    static func lines(_ c: DaemonState) -> [String] {
        var lines = ["strategy: \(c.strategy)",
                     "consent: \(c.consentGranted ? "granted" : "not granted")",
                     "publications: \(c.publications.count)"]
        lines += c.publications.map { "  " + describe($0, c) }
        lines += c.pendingMessages.map { "  \($0.id): \($0.request.message), waiting for the box's hub identity" }
        if let hub = c.hub { lines.append("hub: " + hubLine(hub, c)) }
        lines.append("beacon time \(c.beaconTime), uptime \(Formatting.fixed(c.uptime, decimals: 1)) s, \(c.bursts) bursts")
        let problems = c.manager.currentProblems
        lines.append("drivers: audio \(c.board.audioOutput.driver) \(c.audioProblem ?? "ok"), bluetooth \(c.board.bluetooth.driver) "
                     + (c.bluetoothProblem ?? "ok")
                     + (problems.isEmpty ? "" : "; problems: " + problems.identifiers.joined(separator: ", ")))
        if let problem = c.stateProblem { lines.append("state: not saved (\(problem)); broadcasting goes on, saves retried every minute") }
        if let faults = c.faults, !faults.active.isEmpty {
            lines.append("simulated faults on: " + faults.active.map { $0.rawValue }.sorted().joined(separator: ", "))
        }
        lines.append("leds: " + c.ledPatterns.map { "\($0.0)=\($0.1)" }.joined(separator: " "))
        if !c.present.isEmpty { lines.append("heard: " + c.present.map(\.description).joined(separator: ", ")) }
        return lines
    }

    /// One line on the hub link: where, how far, and whether changes are waiting.
    static func hubLine(_ hub: HubLink, _ c: DaemonState) -> String {
        var text = "\(hub.settings.url): "
        switch hub.phase {
        case .contacting: text += "contacting the hub for its key"
        case .deriving: text += "deriving the box's identity"
        case .registering: text += "registering the box"
        case .ready:
            text += "registered as \(hub.record?.beaconName ?? "")"
            let count = c.manager.contents.count
            text += hub.isInSync(c.manager) ? "; in sync (\(count) message\(count == 1 ? "" : "s") attached)"
                                            : "; message changes waiting to be sent"
            if let beat = hub.lastHeartbeat { text += "; heartbeat \(Int(c.uptime - beat)) s ago" }
        }
        if let error = hub.lastError {
            let retry = hub.retryAt.map { max(0, Int(($0 - c.uptime).rounded(.up))) }
            text += "; \(error)" + (retry.map { " (retry in \($0) s)" } ?? "")
        }
        return text
    }

    static func hubJSON(_ hub: HubLink, _ c: DaemonState) -> String {
        func string(_ text: String) -> String { Formatting.jsonString(text) }
        return "{\"url\":\(string(hub.settings.url)),\"state\":\(string(hub.phase.rawValue)),"
            + "\"beacon_name\":" + (hub.record?.beaconName.map(string) ?? "null")
            + ",\"in_sync\":\(hub.isInSync(c.manager)),\"messages\":\(c.manager.contents.count),\"waiting_for_identity\":\(c.pendingMessages.count),"
            + "\"last_error\":" + (hub.lastError.map(string) ?? "null") + "}"
    }

    static func json(_ c: DaemonState) -> String {
        func string(_ text: String) -> String { Formatting.jsonString(text) }
        let publications = c.publications.map { entry -> String in
            let status = c.manager.schedule.status(of: entry.publication.slot)
            var fields = ["\"id\":\(entry.id)"]
            switch entry.request.message {
            case .direct: fields.append("\"kind\":\"direct\"")
            case .eid(_, let k): fields.append("\"kind\":\"eid\""); fields.append("\"exponent\":\(k)")
            case .content(let type, let bytes):
                fields.append("\"kind\":\"message\""); fields.append("\"namespaced_type\":\(string(type))")
                fields.append("\"text\":\(string(String(decoding: bytes, as: UTF8.self)))")
            }
            fields.append("\"mediums\":\(string("\(status?.strategy.mediums ?? [])"))")
            fields.append("\"token\":" + (status?.token.map { string($0.hex) } ?? "null"))
            if let next = status?.nextSwitchAt {
                fields.append("\"next_rotation_s\":\(Formatting.fixed(Double(next - Int64(c.position)) / Double(c.sampleRate), decimals: 3))")
            }
            return "{" + fields.joined(separator: ",") + "}"
        }
        let leds = c.ledPatterns.map { "\(string($0.0)):\(string($0.1))" }.joined(separator: ",")
        let problems = c.manager.currentProblems.identifiers.map(string).joined(separator: ",")
        let details = "\"audio_detail\":" + (c.audioProblem.map(string) ?? "null")
            + ",\"bluetooth_detail\":" + (c.bluetoothProblem.map(string) ?? "null")
            + ",\"state_detail\":" + (c.stateProblem.map(string) ?? "null")
        let faults = c.faults.map { ",\"simulated_faults\":[" + $0.active.map { string($0.rawValue) }.sorted().joined(separator: ",") + "]" } ?? ""
        return "{\"mediums\":\(string("\(c.strategy.mediums)")),\"mode\":\(string("\(c.strategy.mode)")),"
            + "\"consent\":\(c.consentGranted),\"publications\":[\(publications.joined(separator: ","))],"
            + "\"beacon_time\":\(c.beaconTime),\"uptime_s\":\(Formatting.fixed(c.uptime, decimals: 3)),\"bursts\":\(c.bursts),"
            + "\"drivers\":{\"audio\":\(string(c.board.audioOutput.driver.rawValue)),\"bluetooth\":\(string(c.board.bluetooth.driver.rawValue)),\"problems\":[\(problems)],\(details)\(faults)},"
            + "\"leds\":{\(leds)},\"hub\":" + (c.hub.map { hubJSON($0, c) } ?? "null") + ",\"version\":\(string(BuildInfo.version)),\"build_id\":\(string(BuildInfo.buildID))}"
    }
}
