extension Beacon {
    /// What an EID beacon registered with: the identity key the hub derived from the beacon's
    /// public key, the rotation exponent, and the beacon's clock as last read. The resolvers need
    /// all of it to compute the beacon's EIDs; the API shows back the public key, exponent and
    /// clock (never the identity key).
    package struct EIDRegistration: Sendable, Equatable {
        /// The 16-byte identity key, hex. Nil once the beacon is deleted: the tombstone row keeps
        /// no secret, and without it the beacon resolves nowhere.
        package var identityKeyHex: String?
        /// The beacon's X25519 public key, base64 as registered.
        package var beaconPublicKey: String
        /// EIDs rotate every 2^exponent seconds (`Beacon.exponents`).
        package var exponent: Int
        /// Read at registration, read again by every heartbeat that carries a clock value.
        package var clock: ClockReading

        package init(identityKeyHex: String? = nil, beaconPublicKey: String, exponent: Int, clock: ClockReading) {
            self.identityKeyHex = identityKeyHex
            self.beaconPublicKey = beaconPublicKey
            self.exponent = exponent
            self.clock = clock
        }
    }

    /// A beacon's clock as the hub last read it: the beacon's 32-bit time `value` at hub time
    /// `atMs`. Always set together (registration and heartbeats re-anchor both): the resolvers
    /// project the clock forward from this pair. The stored form of the API's `ClockObservation`.
    package struct ClockReading: Sendable, Equatable {
        package var value: Int64
        package var atMs: Int64

        package init(value: Int64, atMs: Int64) {
            self.value = value
            self.atMs = atMs
        }
    }
}
