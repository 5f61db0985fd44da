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
        lines.append("beacon time \(c.beaconTime), uptime \(Formatting.fixed(c.uptime, decimals: 1)) s, \(c.bursts) bursts")
        let problems = c.manager.currentProblems
        lines.append("drivers: audio \(c.board.audioOutput.driver) \(c.audioProblem ?? "ok"), bluetooth \(c.board.bluetooth.driver) "
                     + (c.bluetoothProblem ?? "ok")
                     + (problems.isEmpty ? "" : "; problems: " + problems.identifiers.joined(separator: ", ")))
        if let faults = c.faults, !faults.active.isEmpty {
            lines.append("simulated faults on: " + faults.active.map { $0.rawValue }.sorted().joined(separator: ", "))
        }
        lines.append("leds: " + c.ledPatterns.map { "\($0.0)=\($0.1)" }.joined(separator: " "))
        if !c.present.isEmpty { lines.append("heard: " + c.present.map(\.description).joined(separator: ", ")) }
        return lines
    }

    static func json(_ c: DaemonState) -> String {
        func string(_ text: String) -> String { Formatting.jsonString(text) }
        let publications = c.publications.map { entry -> String in
            let status = c.manager.schedule.status(of: entry.publication.slot)
            var fields = ["\"id\":\(entry.id)"]
            switch entry.request.message {
            case .direct: fields.append("\"kind\":\"direct\"")
            case .eid(_, let k): fields.append("\"kind\":\"eid\""); fields.append("\"exponent\":\(k)")
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
        let faults = c.faults.map { ",\"simulated_faults\":[" + $0.active.map { string($0.rawValue) }.sorted().joined(separator: ",") + "]" } ?? ""
        return "{\"mediums\":\(string("\(c.strategy.mediums)")),\"mode\":\(string("\(c.strategy.mode)")),"
            + "\"consent\":\(c.consentGranted),\"publications\":[\(publications.joined(separator: ","))],"
            + "\"beacon_time\":\(c.beaconTime),\"uptime_s\":\(Formatting.fixed(c.uptime, decimals: 3)),\"bursts\":\(c.bursts),"
            + "\"drivers\":{\"audio\":\(string(c.board.audioOutput.driver.rawValue)),\"bluetooth\":\(string(c.board.bluetooth.driver.rawValue)),\"problems\":[\(problems)],\(details)\(faults)},"
            + "\"leds\":{\(leds)},\"version\":\(string(BuildInfo.version)),\"build_id\":\(string(BuildInfo.buildID))}"
    }
}
