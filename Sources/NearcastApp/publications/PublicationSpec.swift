import NearcastCore
import NearcastNearby

/// One publication as the box's settings name it, parsed once from text (`--publish`, the config
/// file's and the saved settings' `publications`) or built from a console line, and printed back
/// in one form: `direct:HEX@MEDIUMS`, `eid:K@MEDIUMS`, `message:NAMESPACE/TYPE:TEXT@MEDIUMS` or
/// `hub@MEDIUMS`.
struct PublicationSpec: Equatable {
    enum Kind: Equatable {
        case direct(Token)
        case eid(exponent: Int)
        /// Text attached on the hub to the EID of the box's hub identity.
        case message(namespacedType: String, text: String)
        /// The EID of the box's hub identity with nothing attached: what phones resolve to the
        /// box's beacon on the hub (its Present show). The default of a box given a hub.
        case hubBeacon
    }

    /// Why a text is not a publication; the caller says where the text came from.
    struct Invalid: Error, CustomStringConvertible, Equatable {
        let description: String
        init(_ description: String) { self.description = description }
    }

    var kind: Kind
    var mediums: DiscoveryMediums

    init(kind: Kind, mediums: DiscoveryMediums) {
        self.kind = kind
        self.mediums = mediums
    }

    /// The spec written out in full, as the settings file keeps it.
    var text: String {
        switch kind {
        case .direct(let token): return "direct:\(token.hex)@\(mediums)"
        case .eid(let exponent): return "eid:\(exponent)@\(mediums)"
        case .message(let type, let text): return "message:\(type):\(text)@\(mediums)"
        case .hubBeacon: return "hub@\(mediums)"
        }
    }

    /// A message publication, checked: the type is NAMESPACE/TYPE, the text not empty and at
    /// most a message's 100 KiB.
    static func message(type: String, text: String, mediums: DiscoveryMediums = .both) throws(Invalid) -> PublicationSpec {
        let parts = type.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty, !type.contains(" "), !type.contains("*") else {
            throw Invalid("the type '\(type)' must be NAMESPACE/TYPE, e.g. demo/slide (the namespace is the hub project's name)")
        }
        guard !text.isEmpty else { throw Invalid("the message's text is empty") }
        guard text.utf8.count <= Message.maximumContentBytes else {
            throw Invalid("the text is \(text.utf8.count) bytes; a message holds at most 100 KiB")
        }
        return PublicationSpec(kind: .message(namespacedType: type, text: text), mediums: mediums)
    }

    /// A direct token publication, checked: 1 to 8 bytes of hex.
    static func direct(hex: some StringProtocol, mediums: DiscoveryMediums = .both) throws(Invalid) -> PublicationSpec {
        do {
            return PublicationSpec(kind: .direct(try Token(kind: .direct, hex: hex)), mediums: mediums)
        } catch {
            throw Invalid("\(error)")
        }
    }

    /// An EID publication, checked: the rotation exponent 0 to 15 (2^K seconds).
    static func eid(exponent: Int, mediums: DiscoveryMediums = .both) throws(Invalid) -> PublicationSpec {
        guard (0...EphemeralIdentifier.maximumExponent).contains(exponent) else {
            throw Invalid("the rotation exponent must be 0 to \(EphemeralIdentifier.maximumExponent), not \(exponent)")
        }
        return PublicationSpec(kind: .eid(exponent: exponent), mediums: mediums)
    }

    /// A message's text and the mediums its trailing `@audio`, `@ble` or `@both` names (both
    /// when it names none): the text itself may hold '@'.
    static func splitMediums(_ text: String) -> (text: String, mediums: DiscoveryMediums) {
        if let at = text.lastIndex(of: "@"), let named = DiscoveryMediums(name: text[text.index(after: at)...]) {
            return (String(text[..<at]), named)
        }
        return (text, .both)
    }

    /// `message:NAMESPACE/TYPE:TEXT[@MEDIUMS]`: the text may hold ':' and '@'; a trailing
    /// `@audio`, `@ble` or `@both` names the mediums.
    private static func parseMessage(_ text: String) throws(Invalid) -> PublicationSpec {
        let (body, mediums) = splitMediums(String(text.dropFirst("message:".count)))
        guard let colon = body.firstIndex(of: ":") else {
            throw Invalid("write message:NAMESPACE/TYPE:TEXT, e.g. message:demo/slide:Slide 3")
        }
        return try message(type: String(body[..<colon]), text: String(body[body.index(after: colon)...]), mediums: mediums)
    }

    /// Parses `direct:HEX`, `eid[:K]`, `message:NAMESPACE/TYPE:TEXT` or `hub`, each optionally with
    /// `@audio`, `@ble` or `@both`; `eid` alone rotates every 2^`defaultExponent` s.
    static func parse(_ text: String, defaultExponent: Int) throws(Invalid) -> PublicationSpec {
        if text.hasPrefix("message:") { return try parseMessage(text) }
        let parts = text.split(separator: "@", maxSplits: 1, omittingEmptySubsequences: false)
        var mediums = DiscoveryMediums.both
        if parts.count == 2 {
            guard let parsed = DiscoveryMediums(name: parts[1]) else {
                throw Invalid("mediums '\(parts[1])' must be audio, ble or both")
            }
            mediums = parsed
        }
        let fields = parts[0].split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        switch fields[0] {
        case "direct":
            guard fields.count == 2 else { throw Invalid("write direct:HEX, e.g. direct:c0ffee") }
            return try direct(hex: fields[1], mediums: mediums)
        case "hub":
            guard fields.count == 1 else { throw Invalid("write hub (or hub@audio, hub@ble): it takes no value") }
            return PublicationSpec(kind: .hubBeacon, mediums: mediums)
        case "eid":
            guard fields.count == 2 else { return try eid(exponent: defaultExponent, mediums: mediums) }
            guard let k = Int(fields[1]) else { throw Invalid("the rotation exponent after eid: must be a number, 0 to 15") }
            return try eid(exponent: k, mediums: mediums)
        default:
            throw Invalid("start with direct:HEX, eid[:K], message:NAMESPACE/TYPE:TEXT or hub")
        }
    }

    /// The spec of a publication the box makes (what `config save` writes back).
    init(_ request: PublicationRequest) {
        switch request.message {
        case .direct(let token): kind = .direct(token)
        case .eid(_, let exponent): kind = .eid(exponent: exponent)
        case .content(let type, let bytes): kind = .message(namespacedType: type, text: String(decoding: bytes, as: UTF8.self))
        case .hubBeacon: kind = .hubBeacon
        }
        mediums = request.strategy.mediums
    }

    /// The request the box publishes for this spec; an EID's key comes from `identityKey`.
    func request<Failure: Error>(identityKey: () throws(Failure) -> [UInt8]) throws(Failure) -> PublicationRequest {
        let strategy = Strategy(mediums: mediums, mode: .broadcast)
        switch kind {
        case .direct(let token): return PublicationRequest(message: .direct(token), strategy: strategy)
        case .eid(let exponent): return PublicationRequest(message: .eid(identityKey: try identityKey(), exponent: exponent), strategy: strategy)
        case .message(let type, let text):
            return PublicationRequest(message: .content(namespacedType: type, bytes: Array(text.utf8)), strategy: strategy)
        case .hubBeacon: return PublicationRequest(message: .hubBeacon, strategy: strategy)
        }
    }

    /// Whether this publication goes through a hub (a message, or the hub beacon).
    var isMessage: Bool {
        switch kind {
        case .message, .hubBeacon: return true
        case .direct, .eid: return false
        }
    }
}
