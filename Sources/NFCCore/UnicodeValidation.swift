/// Strict UTF-8 and UTF-16 decoding that reports where invalid text starts.
public enum UnicodeValidation {
    /// Decodes UTF-8 bytes, or returns the offset of the first byte that is not valid UTF-8.
    @inlinable
    public static func decodeUTF8(_ bytes: Bytes) -> Result<String, InvalidText> {
        bytes.withUnsafeBufferPointer { decodeUTF8(buffer: $0) }
    }

    /// Decodes UTF-8 bytes, or returns the offset of the first byte that is not valid UTF-8.
    @inlinable
    public static func decodeUTF8(_ bytes: ArraySlice<UInt8>) -> Result<String, InvalidText> {
        bytes.withUnsafeBufferPointer { decodeUTF8(buffer: $0) }
    }

    /// Decodes UTF-8 bytes, or returns the offset of the first byte that is not valid UTF-8.
    @inlinable
    public static func decodeUTF8(_ bytes: [UInt8]) -> Result<String, InvalidText> {
        bytes.withUnsafeBufferPointer { decodeUTF8(buffer: $0) }
    }

    /// Decodes UTF-8 from memory: the one implementation behind the overloads above.
    public static func decodeUTF8(buffer: UnsafeBufferPointer<UInt8>) -> Result<String, InvalidText> {
        if let offset = firstInvalidUTF8Offset(buffer) { return .failure(InvalidText(offset: offset)) }
        return .success(String(decoding: buffer, as: UTF8.self))
    }

    /// The offset of the first byte of `buffer` that does not start or continue a valid UTF-8
    /// sequence (RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF), or `nil`.
    public static func firstInvalidUTF8Offset(_ buffer: UnsafeBufferPointer<UInt8>) -> Int? {
        let count = buffer.count
        var i = 0
        // ASCII runs, eight bytes at a time.
        while i < count {
            if i + 8 <= count {
                let word = UnsafeRawPointer(buffer.baseAddress! + i).loadUnaligned(as: UInt64.self)
                if word & 0x8080_8080_8080_8080 == 0 {
                    i += 8
                    continue
                }
            }
            let lead = buffer[i]
            if lead < 0x80 {
                i += 1
                continue
            }
            let length: Int
            var low: UInt8 = 0x80, high: UInt8 = 0xBF  // bounds of the second byte
            switch lead {
            case 0xC2...0xDF: length = 2
            case 0xE0: length = 3; low = 0xA0
            case 0xE1...0xEC, 0xEE...0xEF: length = 3
            case 0xED: length = 3; high = 0x9F
            case 0xF0: length = 4; low = 0x90
            case 0xF1...0xF3: length = 4
            case 0xF4: length = 4; high = 0x8F
            default: return i
            }
            guard i + length <= count else { return i }
            let second = buffer[i + 1]
            guard second >= low && second <= high else { return i }
            for k in 2..<length where buffer[i + k] & 0xC0 != 0x80 { return i }
            i += length
        }
        return nil
    }

    /// Decodes UTF-16 code units from bytes in the given byte order, or returns the byte offset
    /// of the first unpaired surrogate (or of a dangling odd byte).
    public static func decodeUTF16(_ bytes: Bytes, bigEndian: Bool) -> Result<String, InvalidText> {
        let count = bytes.count
        if count % 2 != 0 { return .failure(InvalidText(offset: count - 1)) }
        var units = [UInt16]()
        units.reserveCapacity(count / 2)
        var i = 0
        while i + 1 < count {
            let a = UInt16(bytes[i]), b = UInt16(bytes[i + 1])
            units.append(bigEndian ? a << 8 | b : b << 8 | a)
            i += 2
        }
        var scalars = String.UnicodeScalarView()
        var parser = Unicode.UTF16.ForwardParser()
        var iterator = units.makeIterator()
        var unitOffset = 0
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let encoded):
                scalars.append(Unicode.UTF16.decode(encoded))
                unitOffset += encoded.count
            case .emptyInput: return .success(String(scalars))
            case .error: return .failure(InvalidText(offset: unitOffset * 2))
            }
        }
    }

    /// Decodes UTF-16 from an array of bytes.
    public static func decodeUTF16(_ bytes: [UInt8], bigEndian: Bool) -> Result<String, InvalidText> {
        decodeUTF16(Bytes(bytes), bigEndian: bigEndian)
    }

    /// Text that is not valid in its declared encoding.
    public struct InvalidText: Error, Sendable, Hashable {
        /// Offset, in bytes from the start of the text, of the first invalid byte.
        public var offset: Int
        /// Creates an error at a byte offset.
        public init(offset: Int) { self.offset = offset }
    }
}
