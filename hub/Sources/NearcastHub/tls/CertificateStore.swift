import NIOConcurrencyHelpers
import NIOCore
import NIOSSL

/// The hub's certificate chain and private key, read from PEM files, and read again on
/// request (SIGHUP): every new TLS handshake gets the files' current contents through NIOSSL's
/// context callback, while connections already open keep theirs. A reload that fails (a file
/// half-written by a renewal, a key that does not match) keeps what was loaded before.
public final class CertificateStore: Sendable {
    /// What was loaded, and from where.
    public struct Loaded: Sendable {
        public let chain: [NIOSSLCertificate]
        public let key: NIOSSLPrivateKey
        /// The leaf certificate's validity end, for the log line.
        public let notAfter: String
    }

    /// A file that cannot be used, named with the option it came from.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    public let certificatePath: String
    public let keyPath: String
    private let current: NIOLockedValueBox<Loaded>

    /// Reads both files now; a missing, unreadable or mismatched file is a `Failure` naming it.
    public init(certificatePath: String, keyPath: String) throws {
        self.certificatePath = certificatePath
        self.keyPath = keyPath
        current = NIOLockedValueBox(try Self.load(certificatePath: certificatePath, keyPath: keyPath))
    }

    public var loaded: Loaded { current.withLockedValue { $0 } }

    /// Reads the files again; on success new handshakes use them, on failure nothing changes.
    @discardableResult
    public func reload() throws -> Loaded {
        let fresh = try Self.load(certificatePath: certificatePath, keyPath: keyPath)
        current.withLockedValue { $0 = fresh }
        return fresh
    }

    /// A server configuration whose every handshake takes the store's current chain and key.
    public func serverConfiguration() -> TLSConfiguration {
        let now = loaded
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: now.chain.map { .certificate($0) }, privateKey: .privateKey(now.key))
        configuration.minimumTLSVersion = .tlsv12
        configuration.sslContextCallback = { [current] _, promise in
            let now = current.withLockedValue { $0 }
            var override = NIOSSLContextConfigurationOverride()
            override.certificateChain = now.chain.map { .certificate($0) }
            override.privateKey = .privateKey(now.key)
            promise.succeed(override)
        }
        return configuration
    }

    private static func load(certificatePath: String, keyPath: String) throws -> Loaded {
        let chain: [NIOSSLCertificate]
        do {
            chain = try NIOSSLCertificate.fromPEMFile(certificatePath)
        } catch {
            throw Failure(description: "--tls-cert \(certificatePath): \(Self.describe(error)) (a PEM file of the certificate, then its chain)")
        }
        guard let leaf = chain.first else {
            throw Failure(description: "--tls-cert \(certificatePath): holds no certificate (expected PEM, -----BEGIN CERTIFICATE-----)")
        }
        let key: NIOSSLPrivateKey
        do {
            key = try NIOSSLPrivateKey(file: keyPath, format: .pem)
        } catch {
            throw Failure(description: "--tls-key \(keyPath): \(Self.describe(error)) (an unencrypted PEM private key)")
        }
        // A key that is not the certificate's would fail every handshake: refuse it here.
        do {
            var check = TLSConfiguration.makeServerConfiguration(certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
            check.minimumTLSVersion = .tlsv12
            _ = try NIOSSLContext(configuration: check)
        } catch {
            throw Failure(description: "--tls-key \(keyPath) is not the key of --tls-cert \(certificatePath)'s certificate (\(Self.describe(error)))")
        }
        return Loaded(chain: chain, key: key, notAfter: HubClock.timestamp(ms: Int64(leaf.notValidAfter) * 1000))
    }

    private static func describe(_ error: any Error) -> String {
        if let error = error as? NIOSSLError {
            switch error {
            case .failedToLoadCertificate: return "not a readable PEM certificate"
            case .failedToLoadPrivateKey: return "not a readable PEM private key"
            default: return "\(error)"
            }
        }
        if let error = error as? IOError { return error.description }
        return "\(error)"
    }
}
