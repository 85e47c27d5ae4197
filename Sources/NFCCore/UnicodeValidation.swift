/// Strict UTF-8 and UTF-16 decoding that reports where invalid text starts.
public enum UnicodeValidation {
    /// Decodes UTF-8, or returns the offset of the first byte that is not valid UTF-8.
    public static func decodeUTF8<C: Collection>(_ bytes: C) -> Result<String, InvalidText>
    where C.Element == UInt8, C.Index == Int {
        if let s = bytes.withContiguousStorageIfAvailable({ String(validating: $0, as: UTF8.self) }) {
            if let s { return .success(s) }
        } else if let s = String(validating: Array(bytes), as: UTF8.self) {
            return .success(s)
        }
        // Invalid: find the offset for the error message.
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = bytes.makeIterator()
        var offset = 0
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let encoded): offset += encoded.count
            case .emptyInput: return .failure(InvalidText(offset: offset))
            case .error(let length):
                _ = length
                return .failure(InvalidText(offset: offset))
            }
        }
    }

    /// Decodes UTF-16 code units from bytes in the given byte order, or returns the byte offset
    /// of the first unpaired surrogate (or of a dangling odd byte).
    public static func decodeUTF16<C: Collection>(_ bytes: C, bigEndian: Bool) -> Result<String, InvalidText>
    where C.Element == UInt8, C.Index == Int {
        let base = bytes.startIndex
        let count = bytes.count
        var units = [UInt16]()
        units.reserveCapacity(count / 2)
        var i = 0
        while i + 1 < count {
            let a = UInt16(bytes[base + i]), b = UInt16(bytes[base + i + 1])
            units.append(bigEndian ? a << 8 | b : b << 8 | a)
            i += 2
        }
        if count % 2 != 0 { return .failure(InvalidText(offset: count - 1)) }
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

    /// Text that is not valid in its declared encoding.
    public struct InvalidText: Error, Sendable, Hashable {
        /// Offset, in bytes from the start of the text, of the first invalid byte.
        public var offset: Int
        /// Creates an error at a byte offset.
        public init(offset: Int) { self.offset = offset }
    }
}
