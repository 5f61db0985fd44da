import Logging
import ServiceLifecycle
import UnixSignals

/// Reads the hub's certificate and key again on SIGHUP (what a renewal hook sends, as to
/// nginx): new handshakes get the new files, open connections and their streams stay as they
/// are. A reload that fails is logged and the old pair kept. A hub without TLS traps SIGHUP too
/// (`systemctl reload` sends it; its default action would end the hub) and says there is
/// nothing to read again.
struct CertificateReloader: Service {
    let store: CertificateStore?
    let logger: Logger

    func run() async throws {
        let hangups = await UnixSignalsSequence(trapping: .sighup)
        for await _ in hangups.cancelOnGracefulShutdown() {
            guard let store else {
                logger.notice("nearcast-hub: SIGHUP: no certificate to read again (serving plain HTTP); the other settings apply at a restart")
                continue
            }
            do {
                let loaded = try store.reload()
                logger.notice("nearcast-hub: SIGHUP: certificate \(store.certificatePath) read again (valid until \(loaded.notAfter)); new connections use it")
            } catch {
                logger.error("nearcast-hub: SIGHUP: \(error); still serving the certificate read before")
            }
        }
    }
}
