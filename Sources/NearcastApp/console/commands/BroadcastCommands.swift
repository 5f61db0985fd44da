import NearcastCore
import NearcastDrivers
import NearcastNearby

/// What the box broadcasts: `publish`, `unpublish`, `publications`, `strategy`, `consent`, `token`.
enum BroadcastCommands {
    static func commands(_ publications: Publications, consent: Consent, progress: LoopProgress, stateDirectory: StateDirectory,
                         log: LogSink) -> [ConsoleCommandDescriptor] { [

        ConsoleCommandDescriptor("publish", completions: ["direct", "eid", "message", "hub"],
                                 usage: "publish direct HEX [audio|ble|both] | publish eid [K] [audio|ble|both] | publish message NAMESPACE/TYPE TEXT...[@audio|@ble] | publish hub [audio|ble|both]",
                                 summary: "start broadcasting a token (up to 8 publications), or a message through the hub (replaces one of its type)",
                                 arguments: 1...64,
                                 changesState: { _ in true }, persists: { _ in true }) { call throws(ConsoleFailure) in
            try publish(call.arguments, publications, identityKey: { () throws(StorageError) in try stateDirectory.identityKey(log: log.callAsFunction) })
        },
        ConsoleCommandDescriptor("unpublish", usage: "unpublish ID", summary: "stop a publication (ids from publications)",
                                 arguments: 1...1, changesState: { _ in true }, persists: { _ in true }) { call throws(ConsoleFailure) in
            guard let id = Int(call[0]) else { throw ConsoleFailure("give the publication's id") }
            guard publications.unpublish(id) else { throw ConsoleFailure("no publication \(id); see publications") }
            return ["unpublished \(id)"]
        },
        ConsoleCommandDescriptor("publications", usage: "publications", summary: "list the publications") { call throws(ConsoleFailure) in
            if publications.entries.isEmpty && publications.waiting.isEmpty { return ["no publications"] }
            return publications.entries.map { StatusReport.describe($0, publications.status(of: $0)) }
                + publications.waiting.map { "\($0.id): \($0.request.message), waiting for the box's hub identity" }
        },
        ConsoleCommandDescriptor("strategy", completions: ["mediums", "mode", "show"],
                                 usage: "strategy [mediums audio|ble|both] [mode broadcast|scan|both]",
                                 summary: "which mediums the box uses, and whether it broadcasts and scans", arguments: 0...5,
                                 changesState: { $0.contains { $0 != "show" } }, persists: { $0.contains { $0 != "show" } },
                                 handler: { call throws(ConsoleFailure) in try strategy(call.arguments, publications) }),
        ConsoleCommandDescriptor("consent", completions: ["grant", "deny", "show"], usage: "consent grant|deny|show",
                                 summary: "the operator's permission to broadcast (remembered across restarts)", arguments: 1...1,
                                 changesState: { $0.first == "grant" || $0.first == "deny" }) { call throws(ConsoleFailure) in
            switch call[0] {
            case "show": break
            case "grant", "deny":
                do { try consent.set(call[0] == "grant") } catch { throw ConsoleFailure("consent not saved: \(error)") }
            default: throw ConsoleFailure("grant, deny or show, not '\(call[0])'")
            }
            return [consent.isGranted ? "consent granted: broadcasting" : "consent not granted: nothing is broadcast"]
        },
        ConsoleCommandDescriptor("token", usage: "token", summary: "each publication's current token and next rotation") { call throws(ConsoleFailure) in
            if publications.entries.isEmpty { return ["no publications"] }
            return publications.entries.map { entry in
                let status = publications.status(of: entry)
                let token = status?.token.map { "\($0)" } ?? "(EID being computed)"
                var line = "\(entry.id): \(token)"
                if let next = status?.nextSwitchAt {
                    line += "; next EID in \(Formatting.fixed(Double(next - Int64(progress.position)) / Double(progress.sampleRate), decimals: 1)) s"
                }
                return line
            }
        },
    ] }

    /// A spec checked by ``PublicationSpec``, its refusal said on the console.
    private static func checked(_ make: () throws(PublicationSpec.Invalid) -> PublicationSpec) throws(ConsoleFailure) -> PublicationSpec {
        do { return try make() } catch { throw ConsoleFailure(error.description) }
    }

    private static func mediums(_ text: String?) throws(ConsoleFailure) -> DiscoveryMediums {
        guard let text else { return .both }
        guard let mediums = DiscoveryMediums(name: text) else { throw ConsoleFailure("mediums '\(text)' must be audio, ble or both") }
        return mediums
    }

    /// `publish direct HEX [MEDIUMS]`, `publish eid [K] [MEDIUMS]`, `publish message TYPE TEXT...[@MEDIUMS]`:
    /// the console's words made into a ``PublicationSpec`` (checked there, as `--publish` is), then published.
    private static func publish(_ args: [String], _ publications: Publications,
                                identityKey: () throws(StorageError) -> [UInt8]) throws(ConsoleFailure) -> [String] {
        guard args[0] == "message" || args.count <= 3 else {
            throw ConsoleFailure("publish direct HEX [audio|ble|both] | publish eid [K] [audio|ble|both]: too many arguments")
        }
        let spec: PublicationSpec
        switch args[0] {
        case "message":
            guard args.count >= 3 else { throw ConsoleFailure("publish message NAMESPACE/TYPE TEXT... (e.g. publish message demo/slide Slide 3)") }
            // A trailing @audio, @ble or @both names the mediums, as in --publish.
            let (text, mediums) = PublicationSpec.splitMediums(args[2...].joined(separator: " "))
            spec = try checked { () throws(PublicationSpec.Invalid) in try .message(type: args[1], text: text, mediums: mediums) }
        case "direct":
            guard args.count >= 2 else { throw ConsoleFailure("publish direct HEX [audio|ble|both]") }
            let chosen = try mediums(args.count == 3 ? args[2] : nil)
            spec = try checked { () throws(PublicationSpec.Invalid) in try .direct(hex: args[1], mediums: chosen) }
        case "hub":
            guard args.count <= 2 else { throw ConsoleFailure("publish hub [audio|ble|both]") }
            spec = PublicationSpec(kind: .hubBeacon, mediums: try mediums(args.count == 2 ? args[1] : nil))
        case "eid":
            var rest = args.dropFirst()
            var exponent = SettingsDefaults.exponent
            if let first = rest.first, let k = Int(first) {
                exponent = k
                rest = rest.dropFirst()
            }
            guard rest.count <= 1 else { throw ConsoleFailure("publish eid [K] [audio|ble|both]") }
            let chosen = try mediums(rest.first)
            spec = try checked { () throws(PublicationSpec.Invalid) in try .eid(exponent: exponent, mediums: chosen) }
        default:
            throw ConsoleFailure("direct, eid, message or hub, not '\(args[0])'")
        }
        do {
            let request = try spec.request(identityKey: identityKey)
            let id = try publications.publish(request)
            guard case .message(let type, let text) = spec.kind else {
                return ["published \(id): \(request.message) over \(spec.mediums)"
                        + (publications.isWaiting(id) ? " (on air once the hub has answered: the box has no hub identity yet)" : "")]
            }
            let waiting = publications.isWaiting(id)
            return ["published \(id): \(type) \"\(text)\" over \(spec.mediums)"
                    + (waiting ? " (on air once the hub has answered: the box has no hub identity yet)" : "; the hub is told next")]
        } catch {
            throw ConsoleFailure("\(error)")
        }
    }

    private static func strategy(_ args: [String], _ publications: Publications) throws(ConsoleFailure) -> [String] {
        var strategy = publications.strategy
        var index = 0
        while index < args.count {
            let word = args[index]
            if word == "show" { index += 1; continue }
            guard index + 1 < args.count else { throw ConsoleFailure("'\(word)' needs a value") }
            switch word {
            case "mediums": strategy.mediums = try mediums(args[index + 1])
            case "mode":
                guard let mode = DiscoveryMode(name: args[index + 1]) else {
                    throw ConsoleFailure("mode '\(args[index + 1])' must be broadcast, scan or both")
                }
                strategy.mode = mode
            default: throw ConsoleFailure("mediums or mode, not '\(word)'")
            }
            index += 2
        }
        if strategy.mode.contains(.scan) && strategy.mediums.intersection(publications.listenMediums).isEmpty {
            throw ConsoleFailure("mode \(strategy.mode) listens, and this board can listen over \(publications.listenMediums) only "
                                 + "(listening over audio needs a microphone: audio.input in the board file)")
        }
        publications.apply(strategy)
        return ["strategy: \(publications.strategy)"]
    }
}
