import Glibc

/// A file opened for reading or writing, closed on deinit: the thin wrapper over open(2),
/// read(2), write(2), fsync(2) that the WAV reader and writer and the state files use.
public final class OpenFile {
    /// The path it was opened with, for messages.
    public let path: String
    private var descriptor: Int32

    /// Opens `path` for reading.
    public static func forReading(_ path: String) throws(SystemError) -> OpenFile {
        let fd = try retryingInterrupts("open", path) { open(path, O_RDONLY | O_CLOEXEC) }
        return OpenFile(path: path, descriptor: fd)
    }

    /// Creates or truncates `path` for writing with `mode` permissions.
    public static func forWriting(_ path: String, mode: mode_t = 0o644) throws(SystemError) -> OpenFile {
        let fd = try retryingInterrupts("open", path) {
            open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode)
        }
        return OpenFile(path: path, descriptor: fd)
    }

    private init(path: String, descriptor: Int32) {
        self.path = path
        self.descriptor = descriptor
    }

    deinit { if descriptor >= 0 { Glibc.close(descriptor) } }

    /// Size of the file in bytes.
    public func size() throws(SystemError) -> Int {
        var info = stat()
        _ = try retryingInterrupts("stat", path) { fstat(descriptor, &info) }
        return Int(info.st_size)
    }

    /// Reads up to `buffer.count` bytes; returns how many (0 at the end of the file).
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(SystemError) -> Int {
        try retryingInterrupts("read", path) { Glibc.read(descriptor, buffer.baseAddress, buffer.count) }
    }

    /// Reads until `buffer` is full or the file ends; returns how many bytes were read.
    public func readFully(into buffer: UnsafeMutableRawBufferPointer) throws(SystemError) -> Int {
        var total = 0
        while total < buffer.count {
            let n = try read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[total...]))
            if n == 0 { break }
            total += n
        }
        return total
    }

    /// Reads up to `count` bytes from the current position (fewer at the end of the file).
    public func read(count: Int) throws(SystemError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        var failure: SystemError?
        let got = bytes.withUnsafeMutableBytes { buffer in
            do throws(SystemError) { return try readFully(into: buffer) } catch { failure = error; return 0 }
        }
        if let failure { throw failure }
        bytes.removeSubrange(got...)
        return bytes
    }

    /// Writes all of `bytes`, at `offset` when given, else at the current position.
    public func write(_ bytes: some Collection<UInt8>, at offset: Int? = nil) throws(SystemError) {
        var failure: SystemError?
        Array(bytes).withUnsafeBytes { raw in
            do throws(SystemError) {
                if let offset { try write(raw, at: offset) } else { try write(raw) }
            } catch { failure = error }
        }
        if let failure { throw failure }
    }

    /// Moves the read/write position to `offset` bytes from the start.
    public func seek(to offset: Int) throws(SystemError) {
        _ = try retryingInterrupts("lseek", path) { lseek(descriptor, off_t(offset), SEEK_SET) }
    }

    /// Writes all of `bytes` at the current position.
    public func write(_ bytes: UnsafeRawBufferPointer) throws(SystemError) {
        var done = 0
        while done < bytes.count {
            let rest = UnsafeRawBufferPointer(rebasing: bytes[done...])
            done += try retryingInterrupts("write", path) { Glibc.write(descriptor, rest.baseAddress, rest.count) }
        }
    }

    /// Writes all of `bytes` at `offset`, leaving the current position alone.
    public func write(_ bytes: UnsafeRawBufferPointer, at offset: Int) throws(SystemError) {
        var done = 0
        while done < bytes.count {
            let rest = UnsafeRawBufferPointer(rebasing: bytes[done...])
            done += try retryingInterrupts("pwrite", path) {
                pwrite(descriptor, rest.baseAddress, rest.count, off_t(offset + done))
            }
        }
    }

    /// Flushes the file's data to the storage device.
    public func sync() throws(SystemError) {
        _ = try retryingInterrupts("fsync", path) { fsync(descriptor) }
    }

    /// Closes the file now, reporting a failure (a full disk can show up only here).
    public func close() throws(SystemError) {
        guard descriptor >= 0 else { return }
        let fd = descriptor
        descriptor = -1
        try closeDescriptor(fd, path)
    }
}
