/// A fixed number of elements stored inline, in the value itself: no heap, ever. What
/// `InlineArray` (Swift 6.2) is, written so that Swift 6.0 (Debian 13's toolchain) and Embedded
/// Swift build it too.
///
/// `Storage` is one of the homogeneous tuple shapes below (`Tuple4<Element>` ... `Tuple1024<Element>`),
/// or, for bytes, a tuple of 64-bit words (`Bytes4096`, `Bytes8192`): Embedded Swift does not
/// specialise code over a tuple of more than 1024 elements, so a larger byte buffer is stored as
/// words. A homogeneous tuple lays its elements out contiguously at the element's stride, the
/// layout C arrays are imported with, so its memory is a buffer of `capacity` elements, reached
/// by rebinding it to `Element` for the length of each access. The capacity is a power of two; a
/// type that needs 31 or 260 keeps its own limit below it.
///
/// ```swift
/// var line = FixedArray<Tuple256<UInt8>, UInt8>(repeating: 0)
/// line[0] = 0x41
/// ```
public struct FixedArray<Storage, Element> {
    @usableFromInline internal var storage: Storage

    /// The number of elements, fixed by `Storage`.
    @inlinable public static var capacity: Int { MemoryLayout<Storage>.stride / MemoryLayout<Element>.stride }
    /// The number of elements, fixed by `Storage`.
    @inlinable public var count: Int { Self.capacity }
    /// `0..<count`.
    @inlinable public var indices: Range<Int> { 0..<count }

    /// Every element set to `value`.
    public init(repeating value: Element) {
        precondition(MemoryLayout<Storage>.stride % MemoryLayout<Element>.stride == 0
                     && MemoryLayout<Storage>.alignment % MemoryLayout<Element>.alignment == 0,
                     "FixedArray: Storage must be a homogeneous tuple of Element or of words")
        // Words hold plain bytes only: a reference counted element must sit in a tuple of its own type.
        precondition(MemoryLayout<Storage>.alignment == MemoryLayout<Element>.alignment || _isPOD(Element.self),
                     "FixedArray: only a trivial Element may be stored in words")
        // The tuple is built in place from its elements, so no Storage value is ever needed first.
        storage = withUnsafeTemporaryAllocation(of: Storage.self, capacity: 1) { slot in
            let base = UnsafeMutableRawPointer(slot.baseAddress!)
            base.initializeMemory(as: Element.self, repeating: value, count: Self.capacity)
            return base.bindMemory(to: Storage.self, capacity: 1).move()
        }
    }

    /// The element at `index`; traps outside `0..<count`.
    @inlinable public subscript(index: Int) -> Element {
        get {
            precondition(index >= 0 && index < Self.capacity, "FixedArray: index out of range")
            return withUnsafePointer(to: storage) { tuple in
                tuple.withMemoryRebound(to: Element.self, capacity: Self.capacity) { $0[index] }
            }
        }
        set {
            precondition(index >= 0 && index < Self.capacity, "FixedArray: index out of range")
            withUnsafeMutablePointer(to: &storage) { tuple in
                tuple.withMemoryRebound(to: Element.self, capacity: Self.capacity) { $0[index] = newValue }
            }
        }
    }

    /// Calls `body` with the elements as one buffer.
    @inlinable public func withUnsafeBufferPointer<R, E: Error>(
        _ body: (UnsafeBufferPointer<Element>) throws(E) -> R
    ) throws(E) -> R {
        let result: Result<R, E> = withUnsafePointer(to: storage) { tuple in
            tuple.withMemoryRebound(to: Element.self, capacity: Self.capacity) { elements in
                do throws(E) { return .success(try body(UnsafeBufferPointer(start: elements, count: Self.capacity))) }
                catch { return .failure(error) }
            }
        }
        return try result.get()
    }

    /// Calls `body` with the elements as one buffer it may change.
    @inlinable public mutating func withUnsafeMutableBufferPointer<R, E: Error>(
        _ body: (UnsafeMutableBufferPointer<Element>) throws(E) -> R
    ) throws(E) -> R {
        let result: Result<R, E> = withUnsafeMutablePointer(to: &storage) { tuple in
            tuple.withMemoryRebound(to: Element.self, capacity: Self.capacity) { elements in
                do throws(E) { return .success(try body(UnsafeMutableBufferPointer(start: elements, count: Self.capacity))) }
                catch { return .failure(error) }
            }
        }
        return try result.get()
    }

    /// Calls `body` with the elements' bytes.
    @inlinable public func withUnsafeBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        try withUnsafeBufferPointer { (elements) throws(E) -> R in try body(UnsafeRawBufferPointer(elements)) }
    }
}

extension FixedArray: Sendable where Element: Sendable, Storage: Sendable {}

// The storage shapes: each doubles the one before, so element i sits at i × stride(Element).
/// Four elements in a row.
public typealias Tuple4<T> = (T, T, T, T)
/// Eight elements in a row.
public typealias Tuple8<T> = (Tuple4<T>, Tuple4<T>)
/// 16 elements in a row.
public typealias Tuple16<T> = (Tuple8<T>, Tuple8<T>)
/// 32 elements in a row.
public typealias Tuple32<T> = (Tuple16<T>, Tuple16<T>)
/// 64 elements in a row.
public typealias Tuple64<T> = (Tuple32<T>, Tuple32<T>)
/// 128 elements in a row.
public typealias Tuple128<T> = (Tuple64<T>, Tuple64<T>)
/// 256 elements in a row.
public typealias Tuple256<T> = (Tuple128<T>, Tuple128<T>)
/// 512 elements in a row.
public typealias Tuple512<T> = (Tuple256<T>, Tuple256<T>)
/// 1024 elements in a row.
public typealias Tuple1024<T> = (Tuple512<T>, Tuple512<T>)
/// 4096 bytes as 512 words (Embedded Swift does not specialise over 4096 tuple elements).
public typealias Bytes4096 = Tuple512<UInt64>
/// 8192 bytes as 1024 words.
public typealias Bytes8192 = Tuple1024<UInt64>
