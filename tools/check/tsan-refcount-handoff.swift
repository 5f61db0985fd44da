// The pattern tools/check/tsan-suppressions.txt suppresses in SwiftNIO, in plain Swift, for
// tools/check/sanitize to check that ThreadSanitizer still reports it: a reader thread takes a second
// reference to a buffer, reads the buffer and drops the reference; the owner waits until
// isKnownUniquelyReferenced says it holds the only reference, then writes. The only ordering
// between the read and the write is the reference count (a release in swift_release, an
// acquiring load in the uniqueness check), which lives in the uninstrumented Swift runtime.
// Exits 0 after printing "handed off"; under TSan a report means TSan cannot see that ordering.
import Foundation

final class Storage { var bytes = [UInt8](repeating: 7, count: 4096) }

var storage = Storage()
let handOff = NSLock()
nonisolated(unsafe) var shared: Storage? = storage
nonisolated(unsafe) var total = 0

let reader = Thread {
    handOff.lock()
    let mine = shared!
    shared = nil
    handOff.unlock()
    var sum = 0
    for byte in mine.bytes { sum &+= Int(byte) }
    total = sum
}
reader.start()
func readerHasTaken() -> Bool { handOff.lock(); defer { handOff.unlock() }; return shared == nil }
while !readerHasTaken() || !isKnownUniquelyReferenced(&storage) { usleep(100) }
storage.bytes[0] = 1
print("handed off")
