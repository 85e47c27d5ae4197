/// Reads big- and little-endian integers and byte runs from a buffer, never past its end.
///
/// Every read returns `nil` instead of trapping when the buffer is too short, so parsers built
/// on it are total: they turn `nil` into their own typed error naming ``offset``.
public struct ByteCursor: Sendable {
    /// The whole buffer being read.
    public let buffer: Bytes
    /// Distance from the start of the buffer to the next byte to read.
    @usableFromInline internal var position: Int
    /// Distance from the start of the buffer to the next byte to read.
    @inlinable public var offset: Int { position }

    /// Starts reading at the beginning of `buffer`.
    @inlinable
    public init(_ buffer: Bytes) {
        self.buffer = buffer
        self.position = 0
    }

    /// Starts reading at the beginning of a copy of `array`.
    @inlinable
    public init(_ array: [UInt8]) { self.init(Bytes(array)) }

    /// How many bytes are left.
    @inlinable public var remaining: Int { buffer.count - offset }
    /// Whether everything has been read.
    @inlinable public var isAtEnd: Bool { offset >= buffer.count }

    /// The next byte, or `nil` at the end.
    @inlinable
    public mutating func readUInt8() -> UInt8? {
        guard offset < buffer.count else { return nil }
        defer { position &+= 1 }
        return buffer[offset]
    }

    /// The next byte without consuming it.
    @inlinable
    public func peekUInt8() -> UInt8? {
        offset < buffer.count ? buffer[offset] : nil
    }

    /// A big-endian 16-bit integer.
    @inlinable
    public mutating func readUInt16BE() -> UInt16? {
        guard remaining >= 2 else { return nil }
        defer { position &+= 2 }
        return UInt16(buffer[offset]) << 8 | UInt16(buffer[offset &+ 1])
    }

    /// A little-endian 16-bit integer.
    @inlinable
    public mutating func readUInt16LE() -> UInt16? {
        guard remaining >= 2 else { return nil }
        defer { position &+= 2 }
        return UInt16(buffer[offset]) | UInt16(buffer[offset &+ 1]) << 8
    }

    /// A big-endian 32-bit integer.
    @inlinable
    public mutating func readUInt32BE() -> UInt32? {
        guard remaining >= 4 else { return nil }
        defer { position &+= 4 }
        return UInt32(buffer[offset]) << 24 | UInt32(buffer[offset &+ 1]) << 16
            | UInt32(buffer[offset &+ 2]) << 8 | UInt32(buffer[offset &+ 3])
    }

    /// The next `count` bytes, sharing the buffer's storage, or `nil` if fewer remain.
    @inlinable
    public mutating func readBytes(_ count: Int) -> Bytes? {
        guard count >= 0, count <= remaining else { return nil }
        defer { position &+= count }
        return buffer[offset..<(offset &+ count)]
    }

    /// Everything left, consumed.
    @inlinable
    public mutating func readRest() -> Bytes {
        defer { position = buffer.count }
        return buffer[offset..<buffer.count]
    }
}

extension Array where Element == UInt8 {
    /// Appends a big-endian 16-bit integer.
    @inlinable
    public mutating func appendUInt16BE(_ value: UInt16) {
        append(UInt8(truncatingIfNeeded: value >> 8))
        append(UInt8(truncatingIfNeeded: value))
    }

    /// Appends a little-endian 16-bit integer.
    @inlinable
    public mutating func appendUInt16LE(_ value: UInt16) {
        append(UInt8(truncatingIfNeeded: value))
        append(UInt8(truncatingIfNeeded: value >> 8))
    }

    /// Appends a big-endian 32-bit integer.
    @inlinable
    public mutating func appendUInt32BE(_ value: UInt32) {
        append(UInt8(truncatingIfNeeded: value >> 24))
        append(UInt8(truncatingIfNeeded: value >> 16))
        append(UInt8(truncatingIfNeeded: value >> 8))
        append(UInt8(truncatingIfNeeded: value))
    }
}
