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

    private static func write(_ text: String, to descriptor: Int32) {
        var bytes = Array(text.utf8)
        bytes.withUnsafeMutableBytes { raw in
            var done = 0
            while done < raw.count {
                let n = Glibc.write(descriptor, raw.baseAddress! + done, raw.count - done)
                if n > 0 { done += n } else if n == -1 && errno == EINTR { continue } else { return }
            }
        }
    }
}
