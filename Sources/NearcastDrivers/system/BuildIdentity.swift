import CBuildStamp
import Glibc
import NearcastCore

/// The running binary's GNU build ID (the linker's `--build-id` note): the same hex string
/// `readelf -n` and `file` print, so a technician's `version` names exactly which binary is on
/// the box, whatever its version string says. Read once from `/proc/self/exe`'s ELF note
/// segments (64-bit little-endian ELF, which is every target Nearcast builds for).
public enum BuildIdentity {
    /// The build ID in hex, or nil when the binary has none or cannot be read.
    public static let current: String? = read(path: "/proc/self/exe")

    /// The version string stamped at build time (`tools/package/release`), or the source tree's
    /// development version.
    public static var version: String { String(cString: nearcast_build_version()) }

    static func read(path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        func bytes(at offset: Int, count: Int) -> [UInt8]? {
            guard count >= 0, count <= 1 << 20 else { return nil }
            var buffer = [UInt8](repeating: 0, count: count)
            let n = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, count, off_t(offset)) }
            return n == count ? buffer : nil
        }
        func integer(_ b: [UInt8], _ at: Int, _ size: Int) -> Int {
            var value = 0
            for index in (0..<size).reversed() { value = value << 8 | Int(b[at + index]) }
            return value
        }
        // ELF64 header: magic, class 2 (64-bit), data 1 (little-endian).
        guard let header = bytes(at: 0, count: 64), header[0..<4] == [0x7F, 0x45, 0x4C, 0x46], header[4] == 2, header[5] == 1 else {
            return nil
        }
        let programHeaders = integer(header, 32, 8), entrySize = integer(header, 54, 2), count = integer(header, 56, 2)
        for index in 0..<count {
            guard let entry = bytes(at: programHeaders + index * entrySize, count: 56), integer(entry, 0, 4) == 4 else { continue }  // PT_NOTE
            guard let notes = bytes(at: integer(entry, 8, 8), count: integer(entry, 32, 8)) else { continue }
            var offset = 0
            while offset + 12 <= notes.count {
                let nameSize = integer(notes, offset, 4), descSize = integer(notes, offset + 4, 4), type = integer(notes, offset + 8, 4)
                let name = offset + 12
                let desc = name + (nameSize + 3) & ~3
                guard desc + descSize <= notes.count else { break }
                if type == 3 && notes[name..<name + nameSize] == [0x47, 0x4E, 0x55, 0x00] {   // NT_GNU_BUILD_ID, "GNU\0"
                    return Hex.format(notes[desc..<desc + descSize])
                }
                offset = desc + (descSize + 3) & ~3
            }
        }
        return nil
    }
}
