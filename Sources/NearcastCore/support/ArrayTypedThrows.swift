// Swift 6.0 (Debian 13's toolchain) has `Array.withUnsafe(Mutable)BufferPointer` and
// `withUnsafeBytes` only as `rethrows`, so a closure that throws a typed error comes back out as
// `any Error`, and one such call site crashed 6.0.3's SILGen. These keep the error's type on
// both 6.0 and 6.2+: the body's error is carried out of a non-throwing closure in a `Result`.

extension Array {
    /// `withUnsafeBufferPointer` that keeps `body`'s error type (Swift 6.0 and later).
    @inlinable public func withBuffer<R, E: Error>(_ body: (UnsafeBufferPointer<Element>) throws(E) -> R) throws(E) -> R {
        let result: Result<R, E> = withUnsafeBufferPointer { buffer in
            do throws(E) { return .success(try body(buffer)) } catch { return .failure(error) }
        }
        return try result.get()
    }

    /// `withUnsafeMutableBufferPointer` that keeps `body`'s error type (Swift 6.0 and later).
    @inlinable public mutating func withMutableBuffer<R, E: Error>(
        _ body: (UnsafeMutableBufferPointer<Element>) throws(E) -> R
    ) throws(E) -> R {
        let result: Result<R, E> = withUnsafeMutableBufferPointer { buffer in
            do throws(E) { return .success(try body(buffer)) } catch { return .failure(error) }
        }
        return try result.get()
    }

    /// `withUnsafeBytes` that keeps `body`'s error type (Swift 6.0 and later).
    @inlinable public func withBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        let result: Result<R, E> = withUnsafeBytes { bytes in
            do throws(E) { return .success(try body(bytes)) } catch { return .failure(error) }
        }
        return try result.get()
    }
}
