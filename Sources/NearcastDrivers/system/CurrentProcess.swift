import Glibc

/// The running process itself.
public enum CurrentProcess {
    /// Ends the process with `status` (exit(3): atexit handlers run, stdio is flushed).
    public static func exit(status: Int32) -> Never {
        Glibc.exit(status)
    }
}
