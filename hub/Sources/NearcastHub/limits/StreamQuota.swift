import NIOConcurrencyHelpers

/// Open event streams counted per client address and per key, each under its cap. A stream
/// holds a `Slot`; the slot gives its place back when it is released or, failing that, when it
/// is freed (a response body that never ran still ends its stream's count).
final class StreamQuota: Sendable {
    /// Which cap refused a stream.
    enum Refusal: Error { case address, key }

    /// One open stream's place.
    final class Slot: Sendable {
        private let quota: StreamQuota
        private let address: String
        private let key: String
        private let released = NIOLockedValueBox(false)

        fileprivate init(quota: StreamQuota, address: String, key: String) {
            self.quota = quota
            self.address = address
            self.key = key
        }

        func release() {
            let first = released.withLockedValue { done in defer { done = true }; return !done }
            if first { quota.give(address: address, key: key) }
        }

        deinit { release() }
    }

    private struct Counts {
        var byAddress: [String: Int] = [:]
        var byKey: [String: Int] = [:]
        var total = 0
    }

    let perAddress: Int
    let perKey: Int
    private let counts = NIOLockedValueBox(Counts())

    init(perAddress: Int, perKey: Int) {
        self.perAddress = perAddress
        self.perKey = perKey
    }

    func acquire(address: String, key: String) -> Result<Slot, Refusal> {
        let refusal: Refusal? = counts.withLockedValue { counts in
            if counts.byAddress[address, default: 0] >= perAddress { return .address }
            if counts.byKey[key, default: 0] >= perKey { return .key }
            counts.byAddress[address, default: 0] += 1
            counts.byKey[key, default: 0] += 1
            counts.total += 1
            return nil
        }
        if let refusal { return .failure(refusal) }
        return .success(Slot(quota: self, address: address, key: key))
    }

    /// Streams open now.
    var total: Int { counts.withLockedValue { $0.total } }

    private func give(address: String, key: String) {
        counts.withLockedValue { counts in
            counts.total -= 1
            func drop(_ table: inout [String: Int], _ name: String) {
                let left = table[name, default: 1] - 1
                table[name] = left > 0 ? left : nil
            }
            drop(&counts.byAddress, address)
            drop(&counts.byKey, key)
        }
    }
}
