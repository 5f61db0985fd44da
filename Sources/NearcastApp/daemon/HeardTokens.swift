import NearcastNearby

/// The tokens the daemon's own subscription hears now (found and not yet lost): kept by the
/// ``Listener``, shown by `status`.
final class HeardTokens {
    private(set) var present: [FoundMessage] = []

    func found(_ message: FoundMessage) { present.append(message) }
    func lost(_ message: FoundMessage) { present.removeAll { $0.token == message.token } }
    func clear() { present.removeAll() }
}
