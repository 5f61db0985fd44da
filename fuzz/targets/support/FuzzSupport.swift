// Shared by every fuzz target (tools/check/fuzz compiles it into each).

#if canImport(Glibc)
import Glibc
#endif

/// Counts heap allocations while a body runs, through AddressSanitizer's malloc hook (every
/// target is built with -sanitize=address): the decoder's steady path must allocate nothing.
enum AllocationCounter {
    nonisolated(unsafe) static var count = 0
    nonisolated(unsafe) static var counting = false
    nonisolated(unsafe) static var installed = false
    /// The thread whose allocations count: libFuzzer's own threads (the RSS watcher) allocate
    /// now and then, and counted those made a target fail on a path that allocates nothing.
    nonisolated(unsafe) static var thread = pthread_self()

    static func allocations(during body: () -> Void) -> Int {
        if !installed {
            // ASan refuses (returns 0) unless both hooks are given: with a nil free hook nothing
            // was ever counted, and every "allocates nothing" check passed vacuously.
            let accepted = __sanitizer_install_malloc_and_free_hooks(countAllocation, ignoreFree)
            precondition(accepted != 0, "fuzz: AddressSanitizer did not take the malloc hook")
            installed = true
        }
        count = 0
        thread = pthread_self()
        counting = true
        body()
        counting = false
        return count
    }
}

@_silgen_name("__sanitizer_install_malloc_and_free_hooks")
func __sanitizer_install_malloc_and_free_hooks(
    _ malloc: (@convention(c) (UnsafeRawPointer?, Int) -> Void)?,
    _ free: (@convention(c) (UnsafeRawPointer?) -> Void)?) -> Int32

private let countAllocation: @convention(c) (UnsafeRawPointer?, Int) -> Void = { _, _ in
    if AllocationCounter.counting && pthread_equal(AllocationCounter.thread, pthread_self()) != 0 {
        AllocationCounter.count += 1
    }
}
private let ignoreFree: @convention(c) (UnsafeRawPointer?) -> Void = { _ in }

/// Reads the fuzzer's bytes as a sequence of small decisions (sizes, choices), then the rest.
struct FuzzInput {
    private let bytes: UnsafeBufferPointer<UInt8>
    private(set) var offset = 0

    init(_ data: UnsafePointer<UInt8>?, _ size: Int) {
        bytes = UnsafeBufferPointer(start: data, count: data == nil ? 0 : size)
    }

    var isEmpty: Bool { offset >= bytes.count }
    var remaining: Int { bytes.count - offset }

    mutating func byte() -> UInt8 {
        guard offset < bytes.count else { return 0 }
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func take(_ count: Int) -> UnsafeBufferPointer<UInt8> {
        let n = min(max(0, count), remaining)
        defer { offset += n }
        return UnsafeBufferPointer(rebasing: bytes[offset..<offset + n])
    }

    mutating func rest() -> UnsafeBufferPointer<UInt8> { take(remaining) }

    var all: UnsafeBufferPointer<UInt8> { bytes }
}

/// Stops the run with a message libFuzzer reports as a crash (and keeps the input).
func require(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String) {
    if !condition() { fatalError("fuzz: " + message()) }
}
