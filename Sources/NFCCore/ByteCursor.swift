/// Reads big- and little-endian integers and byte runs from a buffer, never past its end.
///
/// Every read returns `nil` instead of trapping when the buffer is too short, so parsers built
/// on it are total: they turn `nil` into their own typed error naming ``offset``.
public struct ByteCursor: Sendable {
    /// The whole buffer being read.
    public let buffer: ArraySlice<UInt8>
    /// Index, in `buffer`'s own indices, of the next byte to read.
    @usableFromInline
    internal var position: Int

    /// Starts reading at the beginning of `buffer`.
    @inlinable
    public init(_ buffer: ArraySlice<UInt8>) {
        self.buffer = buffer
        self.position = buffer.startIndex
    }

    /// Starts reading at the beginning of `array`.
    @inlinable
    public init(_ array: [UInt8]) { self.init(array[...]) }

    /// Distance from the start of the buffer to the next byte to read.
    @inlinable public var offset: Int { position - buffer.startIndex }
    /// How many bytes are left.
    @inlinable public var remaining: Int { buffer.endIndex - position }
    /// Whether everything has been read.
    @inlinable public var isAtEnd: Bool { position >= buffer.endIndex }

    /// The next byte, or `nil` at the end.
    @inlinable
    public mutating func readUInt8() -> UInt8? {
        guard position < buffer.endIndex else { return nil }
        defer { position &+= 1 }
        return buffer[position]
    }

    /// The next byte without consuming it.
    @inlinable
    public func peekUInt8() -> UInt8? {
        position < buffer.endIndex ? buffer[position] : nil
    }

    /// A big-endian 16-bit integer.
    @inlinable
    public mutating func readUInt16BE() -> UInt16? {
        guard remaining >= 2 else { return nil }
        defer { position &+= 2 }
        return UInt16(buffer[position]) << 8 | UInt16(buffer[position &+ 1])
    }

    /// A little-endian 16-bit integer.
    @inlinable
    public mutating func readUInt16LE() -> UInt16? {
        guard remaining >= 2 else { return nil }
        defer { position &+= 2 }
        return UInt16(buffer[position]) | UInt16(buffer[position &+ 1]) << 8
    }

    /// A big-endian 32-bit integer.
    @inlinable
    public mutating func readUInt32BE() -> UInt32? {
        guard remaining >= 4 else { return nil }
        defer { position &+= 4 }
        return UInt32(buffer[position]) << 24 | UInt32(buffer[position &+ 1]) << 16
            | UInt32(buffer[position &+ 2]) << 8 | UInt32(buffer[position &+ 3])
    }

    /// The next `count` bytes as a slice of the buffer (no copy), or `nil` if fewer remain.
    @inlinable
    public mutating func readBytes(_ count: Int) -> ArraySlice<UInt8>? {
        guard count >= 0, count <= remaining else { return nil }
        defer { position &+= count }
        return buffer[position..<(position &+ count)]
    }

    /// Everything left, consumed.
    @inlinable
    public mutating func readRest() -> ArraySlice<UInt8> {
        defer { position = buffer.endIndex }
        return buffer[position...]
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
