/// An immutable run of bytes, indexed from zero, that can share storage with the buffer it was
/// cut from.
///
/// NDEF records decoded from a tag's memory keep their type, identifier and payload as `Bytes`
/// that point into the original buffer, so decoding a 4 KiB record copies nothing. Unlike
/// `ArraySlice`, indices always start at 0, so `payload[0]` is the first payload byte.
public struct Bytes: Sendable {
    @usableFromInline
    internal var storage: ArraySlice<UInt8>

    /// Creates an empty run of bytes.
    @inlinable
    public init() { storage = [] }

    /// Wraps an array without copying it.
    @inlinable
    public init(_ array: [UInt8]) { storage = array[...] }

    /// Wraps a slice without copying it.
    @inlinable
    public init(_ slice: ArraySlice<UInt8>) { storage = slice }

    /// Copies any sequence of bytes.
    @inlinable
    public init<S: Sequence>(_ sequence: S) where S.Element == UInt8 {
        storage = ArraySlice(sequence)
    }

    /// The UTF-8 encoding of a string.
    @inlinable
    public init(utf8 string: String) { storage = ArraySlice(string.utf8) }

    /// The bytes as an `ArraySlice` sharing this value's storage (its indices need not start at 0).
    @inlinable
    public var slice: ArraySlice<UInt8> { storage }

    /// The bytes copied into a fresh array.
    @inlinable
    public var array: [UInt8] { Array(storage) }
}

extension Bytes: RandomAccessCollection {
    /// Always 0.
    @inlinable public var startIndex: Int { 0 }
    /// The number of bytes.
    @inlinable public var endIndex: Int { storage.count }
    /// The number of bytes.
    @inlinable public var count: Int { storage.count }
    /// Whether there are no bytes.
    @inlinable public var isEmpty: Bool { storage.isEmpty }

    /// The byte at a zero-based position.
    @inlinable
    public subscript(position: Int) -> UInt8 {
        storage[storage.startIndex &+ position]
    }

    /// A zero-based sub-range, sharing storage.
    @inlinable
    public subscript(bounds: Range<Int>) -> Bytes {
        let base = storage.startIndex
        return Bytes(storage[(base + bounds.lowerBound)..<(base + bounds.upperBound)])
    }

    /// Calls `body` with a pointer to the contiguous bytes.
    @inlinable
    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try storage.withUnsafeBytes(body)
    }

    @inlinable
    public func withContiguousStorageIfAvailable<R>(
        _ body: (UnsafeBufferPointer<UInt8>) throws -> R
    ) rethrows -> R? {
        try storage.withContiguousStorageIfAvailable(body)
    }
}

extension Bytes: Hashable {
    /// Two runs are equal when they hold the same bytes, wherever they are stored.
    @inlinable
    public static func == (lhs: Bytes, rhs: Bytes) -> Bool {
        guard lhs.count == rhs.count else { return false }
        return lhs.storage.withUnsafeBytes { l in
            rhs.storage.withUnsafeBytes { r in
                l.count == 0 || memcmpBytes(l, r)
            }
        }
    }

    /// Hashes the bytes (not where they are stored).
    @inlinable
    public func hash(into hasher: inout Hasher) {
        hasher.combine(count)
        storage.withUnsafeBytes { hasher.combine(bytes: $0) }
    }
}

@inlinable
internal func memcmpBytes(_ l: UnsafeRawBufferPointer, _ r: UnsafeRawBufferPointer) -> Bool {
    l.elementsEqual(r)
}

extension Bytes: ExpressibleByArrayLiteral {
    /// `let b: Bytes = [0xD1, 0x01]`
    @inlinable
    public init(arrayLiteral elements: UInt8...) { storage = elements[...] }
}

extension Bytes: CustomStringConvertible, CustomDebugStringConvertible {
    /// The bytes as lowercase hex without separators.
    public var description: String { Hex.encode(storage) }
    /// The bytes as hex, for debugging.
    public var debugDescription: String { "Bytes(\(Hex.encode(storage)))" }
}
