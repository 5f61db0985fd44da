import Glibc

/// socket(2)'s type argument for Unix sockets. Swift's Glibc module as linked with
/// `--static-swift-stdlib` (the release build) does not carry the `__socket_type` enum of
/// <bits/socket_type.h>, so the values are spelled here: Linux's ABI values, the same on
/// x86-64 and arm64, with SOCK_NONBLOCK and SOCK_CLOEXEC defined by the kernel as O_NONBLOCK
/// and O_CLOEXEC.
enum SocketType {
    static let stream: Int32 = 1
    static let datagram: Int32 = 2
    static let nonBlocking = O_NONBLOCK
    static let closeOnExec = O_CLOEXEC
}
