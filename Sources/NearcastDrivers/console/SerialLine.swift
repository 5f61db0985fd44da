import Glibc

/// A serial device in raw mode (no echo, no line discipline), 8N1 at a standard baud rate,
/// optionally with RTS/CTS hardware flow control: the UART console and H4 Bluetooth controllers.
enum SerialLine {
    /// Opens `path` non-blocking and configures it; returns the descriptor and the attributes
    /// it had (to restore at close).
    static func open(_ path: String, baud: Int, flowControl: Bool) throws(SystemError) -> (Int32, termios) {
        let fd = try retryingInterrupts("open", path) { Glibc.open(path, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC) }
        do {
            var attributes = termios()
            _ = try retryingInterrupts("tcgetattr", path) { tcgetattr(fd, &attributes) }
            let saved = attributes
            cfmakeraw(&attributes)
            attributes.c_cflag |= tcflag_t(CLOCAL | CREAD)
            attributes.c_cflag &= ~tcflag_t(CSTOPB | PARENB)
            if flowControl { attributes.c_cflag |= tcflag_t(CRTSCTS) } else { attributes.c_cflag &= ~tcflag_t(CRTSCTS) }
            let speed = try Self.speed(baud, path: path)
            _ = try retryingInterrupts("cfsetspeed", path) { cfsetspeed(&attributes, speed) }
            _ = try retryingInterrupts("tcsetattr", path) { tcsetattr(fd, TCSANOW, &attributes) }
            return (fd, saved)
        } catch {
            Glibc.close(fd)
            throw error
        }
    }

    private static func speed(_ baud: Int, path: String) throws(SystemError) -> speed_t {
        switch baud {
        case 9_600: return speed_t(B9600)
        case 19_200: return speed_t(B19200)
        case 38_400: return speed_t(B38400)
        case 57_600: return speed_t(B57600)
        case 115_200: return speed_t(B115200)
        case 230_400: return speed_t(B230400)
        case 460_800: return speed_t(B460800)
        case 921_600: return speed_t(B921600)
        case 1_000_000: return speed_t(B1000000)
        case 1_500_000: return speed_t(B1500000)
        case 2_000_000: return speed_t(B2000000)
        case 3_000_000: return speed_t(B3000000)
        default: throw SystemError(code: EINVAL, operation: "set baud \(baud)", subject: path)
        }
    }
}
