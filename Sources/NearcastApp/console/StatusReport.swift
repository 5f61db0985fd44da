import NearcastCore
import NearcastDrivers
import NearcastNearby

/// What `status`, `status --json` and `publications` show: views of the box's parts.
enum StatusReport {
    static func describe(_ entry: Publications.Entry, _ status: TokenScheduler.PublicationStatus?) -> String {
        let mediums = status?.strategy.mediums ?? []
        return "\(entry.id): \(entry.request.message) over \(mediums)" + (status?.token.map { ", now \($0.hex)" } ?? "")
    }

    static func lines(_ c: Box) -> [String] {
        let p = c.publications
        var lines = ["strategy: \(p.strategy)",
                     "consent: \(c.consent.isGranted ? "granted" : "not granted")",
                     "publications: \(p.entries.count)"]
        lines += p.entries.map { "  " + describe($0, p.status(of: $0)) }
        lines += p.waiting.map { "  \($0.id): \($0.request.message), waiting for the box's hub identity" }
        if let hub = c.hub { lines.append("hub: " + hubLine(hub, c) + (hub.boxName.map { "; the box's name there: \($0)" } ?? "")) }
        lines.append("beacon time \(c.beaconTime), uptime \(Formatting.fixed(c.progress.uptime, decimals: 1)) s, \(c.progress.bursts) bursts, audio band \(c.encoder.selection.name)"
                     + (c.progress.sweepEverySeconds.map { ", audio sweep every \($0) s (audio sweep off stops it)" } ?? ""))
        let problems = c.manager.currentProblems
        lines.append("drivers: audio \(c.board.audioOutput.driver) \(c.problems.audio ?? "ok"), bluetooth \(c.board.bluetooth.driver) "
                     + (c.problems.bluetooth ?? "ok")
                     + (problems.isEmpty ? "" : "; problems: " + problems.identifiers.joined(separator: ", ")))
        if let problem = c.problems.state { lines.append("state: not saved (\(problem)); broadcasting goes on, saves retried every minute") }
        if let faults = c.faults, !faults.active.isEmpty {
            lines.append("simulated faults on: " + faults.active.map { $0.rawValue }.sorted().joined(separator: ", "))
        }
        lines.append("leds: " + c.lights.patterns.map { "\($0.0)=\($0.1)" }.joined(separator: " "))
        if !c.heard.present.isEmpty { lines.append("heard: " + c.heard.present.map(\.description).joined(separator: ", ")) }
        return lines
    }

    /// One line on the hub link: where, how far, and whether changes are waiting.
    static func hubLine(_ hub: HubLink, _ c: Box) -> String {
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
            if let beat = hub.lastHeartbeat { text += "; heartbeat \(Int(c.progress.uptime - beat)) s ago" }
        }
        if let error = hub.lastError {
            let retry = hub.retryAt.map { max(0, Int(($0 - c.progress.uptime).rounded(.up))) }
            text += "; \(error)" + (retry.map { " (retry in \($0) s)" } ?? "")
        }
        return text
    }

    static func hubJSON(_ hub: HubLink, _ c: Box) -> String {
        func string(_ text: String) -> String { Formatting.jsonString(text) }
        return "{\"url\":\(string(hub.settings.url)),\"state\":\(string(hub.phase.rawValue)),"
            + "\"beacon_name\":" + (hub.record?.beaconName.map(string) ?? "null")
            + ",\"in_sync\":\(hub.isInSync(c.manager)),\"messages\":\(c.manager.contents.count),\"waiting_for_identity\":\(c.publications.waiting.count),"
            + "\"last_error\":" + (hub.lastError.map(string) ?? "null") + "}"
    }

    static func json(_ c: Box) -> String {
        func string(_ text: String) -> String { Formatting.jsonString(text) }
        let strategy = c.publications.strategy
        let publications = c.publications.entries.map { entry -> String in
            let status = c.manager.schedule.status(of: entry.publication.slot)
            var fields = ["\"id\":\(entry.id)"]
            switch entry.request.message {
            case .direct: fields.append("\"kind\":\"direct\"")
            case .eid(_, let k): fields.append("\"kind\":\"eid\""); fields.append("\"exponent\":\(k)")
            case .content(let type, let bytes):
                fields.append("\"kind\":\"message\""); fields.append("\"namespaced_type\":\(string(type))")
                fields.append("\"text\":\(string(String(decoding: bytes, as: UTF8.self)))")
            case .hubBeacon: fields.append("\"kind\":\"hub\"")
            }
            fields.append("\"mediums\":\(string("\(status?.strategy.mediums ?? [])"))")
            fields.append("\"token\":" + (status?.token.map { string($0.hex) } ?? "null"))
            if let next = status?.nextSwitchAt {
                fields.append("\"next_rotation_s\":\(Formatting.fixed(Double(next - Int64(c.progress.position)) / Double(c.progress.sampleRate), decimals: 3))")
            }
            return "{" + fields.joined(separator: ",") + "}"
        }
        let leds = c.lights.patterns.map { "\(string($0.0)):\(string($0.1))" }.joined(separator: ",")
        let problems = c.manager.currentProblems.identifiers.map(string).joined(separator: ",")
        let details = "\"audio_detail\":" + (c.problems.audio.map(string) ?? "null")
            + ",\"bluetooth_detail\":" + (c.problems.bluetooth.map(string) ?? "null")
            + ",\"state_detail\":" + (c.problems.state.map(string) ?? "null")
        let faults = c.faults.map { ",\"simulated_faults\":[" + $0.active.map { string($0.rawValue) }.sorted().joined(separator: ",") + "]" } ?? ""
        return "{\"mediums\":\(string("\(strategy.mediums)")),\"mode\":\(string("\(strategy.mode)")),"
            + "\"consent\":\(c.consent.isGranted),\"publications\":[\(publications.joined(separator: ","))],"
            + "\"beacon_time\":\(c.beaconTime),\"uptime_s\":\(Formatting.fixed(c.progress.uptime, decimals: 3)),\"bursts\":\(c.progress.bursts),\"audio_band\":\(string(c.encoder.selection.name)),"
            + "\"audio_sweep_every_s\":\(c.progress.sweepEverySeconds.map(String.init) ?? "null"),"
            + "\"drivers\":{\"audio\":\(string(c.board.audioOutput.driver.rawValue)),\"bluetooth\":\(string(c.board.bluetooth.driver.rawValue)),\"problems\":[\(problems)],\(details)\(faults)},"
            + "\"leds\":{\(leds)},\"hub\":" + (c.hub.map { hubJSON($0, c) } ?? "null") + ",\"version\":\(string(BuildInfo.version)),\"build_id\":\(string(BuildInfo.buildID))}"
    }
}
