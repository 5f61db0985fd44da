import Glibc

/// A POSIX thread that runs one closure: the audio drivers' own threads.
///
/// Made directly with `pthread_create` so the thread has a name (`top -H`, `ps -L` and gdb show
/// it) and nothing between the driver and the kernel allocates once it runs.
final class DriverThread {
    private final class Start {
        let body: () -> Void
        let name: String
        init(body: @escaping () -> Void, name: String) {
            self.body = body
            self.name = name
        }
    }

    private var thread = pthread_t()
    private var joined = false

    /// Starts `body` on a new thread called `name` (at most 15 characters, the kernel's limit).
    init(name: String, body: @escaping () -> Void) throws(SystemError) {
        let start = Unmanaged.passRetained(Start(body: body, name: name)).toOpaque()
        let result = pthread_create(&thread, nil, { context in
            let start = Unmanaged<Start>.fromOpaque(context!).takeRetainedValue()
            DriverThread.nameCurrentThread(start.name)
            start.body()
            return nil
        }, start)
        if result != 0 {
            Unmanaged<Start>.fromOpaque(start).release()
            throw SystemError(code: result, operation: "pthread_create", subject: name)
        }
    }

    /// Names the calling thread through /proc/thread-self/comm (proc(5)); glibc's
    /// pthread_setname_np is a GNU extension Swift's Glibc module does not show.
    private static func nameCurrentThread(_ name: String) {
        let fd = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { return }
        let bytes = Array(name.utf8.prefix(15))
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
    }

    /// The thread's handle (for tests that count what it allocates).
    var handle: pthread_t { thread }

    /// Waits for the thread to finish.
    func join() {
        guard !joined else { return }
        joined = true
        pthread_join(thread, nil)
    }
}
