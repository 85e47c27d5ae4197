/// The memory behind ``Bytes``: a count and the bytes, in one allocation.
///
/// A non-generic class, so creating one costs a plain allocation; a `[UInt8]` costs several
/// times more on Linux, where each new array looks its storage type up in the runtime's
/// metadata cache. Written once when created, then only read.
@usableFromInline
final class ByteStorage: ManagedBuffer<Int, UInt8> {}

/// An immutable run of bytes, indexed from zero, that slices share instead of copying.
///
/// NDEF records decoded from a tag's memory keep their type, identifier and payload as views
/// into one buffer, so decoding a 4 KiB record copies nothing after the input itself. Unlike
/// `ArraySlice`, indices always start at 0: `payload[0]` is the first payload byte.
///
/// Sendable: the storage is written only inside ``init(count:initializingWith:)``, before any
/// `Bytes` refers to it, and never after; every other access reads.
public struct Bytes: @unchecked Sendable {
    /// The shared memory, or `nil` when empty.
    @usableFromInline let storage: ByteStorage?
    /// Where this run starts in `storage`.
    @usableFromInline let offset: Int
    /// The number of bytes.
    public let count: Int

    @inlinable
    init(storage: ByteStorage?, offset: Int, count: Int) {
        self.storage = storage
        self.offset = offset
        self.count = count
    }

    /// Creates an empty run of bytes.
    @inlinable
    public init() { self.init(storage: nil, offset: 0, count: 0) }

    /// Allocates `count` bytes and lets `body` write them all: how encoders build output
    /// without an intermediate array.
    @inlinable
    public init(count: Int, initializingWith body: (UnsafeMutableBufferPointer<UInt8>) throws -> Void) rethrows {
        guard count > 0 else {
            self.init()
            return
        }
        let storage = unsafeDowncast(ByteStorage.create(minimumCapacity: count) { _ in count }, to: ByteStorage.self)
        try storage.withUnsafeMutablePointerToElements { try body(UnsafeMutableBufferPointer(start: $0, count: count)) }
        self.init(storage: storage, offset: 0, count: count)
    }

    /// Copies the bytes in memory.
    @inlinable
    public init(copying buffer: UnsafeRawBufferPointer) {
        self.init(count: buffer.count) { out in
            UnsafeMutableRawBufferPointer(out).copyMemory(from: buffer)
        }
    }

    /// Copies an array.
    @inlinable
    public init(_ array: [UInt8]) {
        self = array.withUnsafeBytes { Bytes(copying: $0) }
    }

    /// Copies an array slice.
    @inlinable
    public init(_ slice: ArraySlice<UInt8>) {
        self = slice.withUnsafeBytes { Bytes(copying: $0) }
    }

    /// Copies any sequence of bytes.
    @inlinable
    public init<S: Sequence>(_ sequence: S) where S.Element == UInt8 {
        if let copied = sequence.withContiguousStorageIfAvailable({ Bytes(copying: UnsafeRawBufferPointer($0)) }) {
            self = copied
        } else {
            self.init(Array(sequence))
        }
    }

    /// The UTF-8 encoding of a string.
    @inlinable
    public init(utf8 string: String) {
        var string = string
        self = string.withUTF8 { Bytes(copying: UnsafeRawBufferPointer($0)) }
    }

    /// The bytes copied into a fresh array.
    @inlinable
    public var array: [UInt8] {
        withUnsafeBytes { [UInt8]($0) }
    }

    /// The bytes copied into an `ArraySlice` (whose indices start at 0).
    @inlinable
    public var slice: ArraySlice<UInt8> { array[...] }

    /// Calls `body` with the bytes in memory.
    @inlinable
    public func withUnsafeBufferPointer<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        guard let storage else { return try body(UnsafeBufferPointer(start: nil, count: 0)) }
        return try storage.withUnsafeMutablePointerToElements {
            try body(UnsafeBufferPointer(start: $0 + offset, count: count))
        }
    }

    /// Calls `body` with the bytes in memory, untyped.
    @inlinable
    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try withUnsafeBufferPointer { try body(UnsafeRawBufferPointer($0)) }
    }
}

extension Bytes: RandomAccessCollection {
    /// Always 0.
    @inlinable public var startIndex: Int { 0 }
    /// The number of bytes.
    @inlinable public var endIndex: Int { count }
    /// Whether there are no bytes.
    @inlinable public var isEmpty: Bool { count == 0 }

    /// The byte at a zero-based position.
    @inlinable
    public subscript(position: Int) -> UInt8 {
        precondition(position >= 0 && position < count, "Bytes index out of range")
        return storage.unsafelyUnwrapped.withUnsafeMutablePointerToElements { $0[offset &+ position] }
    }

    /// A zero-based sub-range, sharing storage.
    @inlinable
    public subscript(bounds: Range<Int>) -> Bytes {
        precondition(bounds.lowerBound >= 0 && bounds.upperBound <= count, "Bytes range out of range")
        if bounds.isEmpty { return Bytes() }
        return Bytes(storage: storage, offset: offset &+ bounds.lowerBound, count: bounds.count)
    }

    /// The bytes from `start` to the end, sharing storage.
    @inlinable
    public subscript(from start: Int) -> Bytes { self[start..<count] }

    /// Calls `body` with the bytes in memory: always available, so never `nil`.
    @inlinable
    public func withContiguousStorageIfAvailable<R>(
        _ body: (UnsafeBufferPointer<UInt8>) throws -> R
    ) rethrows -> R? {
        try withUnsafeBufferPointer(body)
    }
}

extension Bytes: Hashable {
    /// Two runs are equal when they hold the same bytes, wherever they are stored.
    @inlinable
    public static func == (lhs: Bytes, rhs: Bytes) -> Bool {
        guard lhs.count == rhs.count else { return false }
        if lhs.count == 0 || (lhs.storage === rhs.storage && lhs.offset == rhs.offset) { return true }
        return lhs.withUnsafeBytes { l in rhs.withUnsafeBytes { r in l.elementsEqual(r) } }
    }

    /// Hashes the bytes (not where they are stored).
    @inlinable
    public func hash(into hasher: inout Hasher) {
        hasher.combine(count)
        withUnsafeBytes { hasher.combine(bytes: $0) }
    }
}

extension Bytes: ExpressibleByArrayLiteral {
    /// `let b: Bytes = [0xD1, 0x01]`
    @inlinable
    public init(arrayLiteral elements: UInt8...) { self.init(elements) }
}

extension Bytes: CustomStringConvertible, CustomDebugStringConvertible {
    /// The bytes as lowercase hex without separators.
    public var description: String { Hex.encode(self) }
    /// The bytes as hex, for debugging.
    public var debugDescription: String { "Bytes(\(Hex.encode(self)))" }
}
