import Glibc
import MallocInterposerSwift
import XCTest

/// Counts heap allocations made by one thread while a closure runs.
///
/// malloc-interposer replaces malloc and friends for the whole test process; its per-allocation
/// hook runs on the allocating thread, so comparing that thread with the measuring one filters
/// out whatever XCTest or the Swift runtime do on other threads meanwhile.
enum AllocationCounter {
    nonisolated(unsafe) private static var watchedThread: pthread_t?
    nonisolated(unsafe) private static var count = 0

    /// True when the interposer really replaced malloc in this process: a known allocation
    /// is seen.
    static var isActive: Bool {
        var probe: [Int] = []
        let seen = allocations { probe = Array(repeating: 7, count: 1000) }
        return seen > 0 && probe.count == 1000
    }

    /// Allocations made by the calling thread during `body`.
    static func allocations(during body: () -> Void) -> Int {
        allocations(onThread: pthread_self(), during: body)
    }

    /// Allocations made by `thread` (an audio driver's thread, say) while `body` runs on the
    /// calling thread.
    static func allocations(onThread thread: pthread_t, during body: () -> Void) -> Int {
        MallocInterposerSwift.initialize()
        count = 0
        watchedThread = thread
        MallocInterposerSwift.setAllocationHook { _ in
            if let watched = AllocationCounter.watchedThread, pthread_equal(watched, pthread_self()) != 0 {
                AllocationCounter.count += 1
            }
        }
        MallocInterposerSwift.hook()
        body()
        MallocInterposerSwift.unhook()
        MallocInterposerSwift.setAllocationHook(nil)
        watchedThread = nil
        return count
    }
}
