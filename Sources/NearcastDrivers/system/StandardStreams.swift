import Glibc

/// Standard output and error for commands and the daemon's log lines.
///
/// Lines go out with write(2) whole, unbuffered: a line reaches a pipe or the journal when it
/// is printed, and lines from different threads never interleave mid-line.
public enum StandardStreams {
    /// Writes `text` and a newline to standard output.
    public static func line(_ text: String) { write(text + "\n", to: STDOUT_FILENO) }

    /// Writes `text` and a newline to standard error.
    public static func error(_ text: String) { write(text + "\n", to: STDERR_FILENO) }

    /// Whether standard output is connected to the systemd journal (`$JOURNAL_STREAM` names
    /// its device and inode, systemd.exec(5)): the journal then takes a `<N>` syslog level at
    /// the start of each line.
    public static let outputIsJournal: Bool = {
        guard let stream = FileSystem.environment("JOURNAL_STREAM") else { return false }
        let parts = stream.split(separator: ":")
        var status = stat()
        guard parts.count == 2, let device = UInt64(parts[0]), let inode = UInt64(parts[1]),
              fstat(STDOUT_FILENO, &status) == 0 else { return false }
        return UInt64(status.st_dev) == device && UInt64(status.st_ino) == inode
    }()

    private static func write(_ text: String, to descriptor: Int32) {
        var bytes = Array(text.utf8)
        bytes.withUnsafeMutableBytes { raw in
            var done = 0
            while done < raw.count {
                // A log line that cannot be written (stdout closed) is dropped: nothing else can be done with it.
                let n = try? retryingInterrupts("write", nil) { Glibc.write(descriptor, raw.baseAddress! + done, raw.count - done) }
                guard let n, n > 0 else { return }
                done += n
            }
        }
    }
}
