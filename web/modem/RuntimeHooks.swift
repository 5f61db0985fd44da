import NearcastCore

// The module is linked with wasi-libc for malloc and the maths functions, and imports nothing:
// the two libc functions that would reach WASI are defined here instead, `putchar` (the Embedded
// runtime writes a `fatalError` message with it) and `arc4random_buf` (the seed of Swift's
// hashing), which draws on entropy the page hands over with `nc_seed` (from
// `crypto.getRandomValues`). tools/setup/build-web fails if the module imports anything.

/// The Embedded runtime's last words land here: after a trap the page reads them from memory and
/// shows them, instead of a bare "unreachable". Only `fatalError` writes a message in this
/// -Osize build; a failed `precondition` traps without one, and the page says "unreachable".
let messageCapacity = 1_024
nonisolated(unsafe) let messageBuffer = UnsafeMutablePointer<UInt8>.allocate(capacity: messageCapacity)
nonisolated(unsafe) var messageLength = 0

@_cdecl("putchar")
public func putchar(_ character: Int32) -> Int32 {
    if character == 10 && messageLength == 0 { return character }   // no leading blank line
    if messageLength < messageCapacity {
        messageBuffer[messageLength] = UInt8(truncatingIfNeeded: character)
        messageLength += 1
    }
    return character
}

/// The address of the runtime's last message (`nc_message_length` bytes of UTF-8).
@_expose(wasm, "nc_message") @_cdecl("nc_message")
public func ncMessage() -> UnsafeMutablePointer<UInt8> { messageBuffer }

/// The length of the runtime's last message, 0 if it wrote none.
@_expose(wasm, "nc_message_length") @_cdecl("nc_message_length")
public func ncMessageLength() -> Int32 { Int32(messageLength) }

/// The source behind `arc4random_buf`: SplitMix64 from the core, seeded by the page.
nonisolated(unsafe) var entropy = SplitMix64(seed: 0x6E65_6172_6361_7374)

/// Mixes 64 bits of the page's entropy into the generator behind `arc4random_buf`.
@_expose(wasm, "nc_seed") @_cdecl("nc_seed")
public func ncSeed(_ seed: UInt64) {
    entropy = SplitMix64(seed: seed ^ entropy.next())
}

@_cdecl("arc4random_buf")
public func arc4random_buf(_ buffer: UnsafeMutableRawPointer?, _ count: Int) {
    guard let buffer else { return }
    for index in 0..<count {
        buffer.storeBytes(of: UInt8(truncatingIfNeeded: entropy.next()), toByteOffset: index, as: UInt8.self)
    }
}
