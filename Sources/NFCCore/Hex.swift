/// Hexadecimal text for bytes: what users type on the command line and what tests write as
/// literals.
public enum Hex {
    /// The bytes as hex digits, two per byte, with an optional separator between bytes.
    public static func encode<C: Collection>(_ bytes: C, uppercase: Bool = false, separator: String = "")
        -> String where C.Element == UInt8
    {
        let digits: StaticString = uppercase ? "0123456789ABCDEF" : "0123456789abcdef"
        var out = [UInt8]()
        out.reserveCapacity(bytes.count * (2 + separator.utf8.count))
        let sep = Array(separator.utf8)
        var first = true
        digits.withUTF8Buffer { table in
            for byte in bytes {
                if !first, !sep.isEmpty { out.append(contentsOf: sep) }
                first = false
                out.append(table[Int(byte >> 4)])
                out.append(table[Int(byte & 0x0F)])
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// An integer as hex digits (no `0x`), zero-padded to at least `width` digits: `Hex.number(0xE104)`
    /// is `E104`, `Hex.number(7, width: 2)` is `07`. A negative value gets a leading `-`.
    public static func number<T: BinaryInteger>(_ value: T, width: Int = 0, uppercase: Bool = true) -> String {
        let digits = String(value.magnitude, radix: 16, uppercase: uppercase)
        let padded = String(repeating: "0", count: max(0, width - digits.count)) + digits
        return value < 0 ? "-" + padded : padded
    }

    /// Parses hex text into bytes.
    ///
    /// Accepts upper- and lowercase digits, and ignores whitespace, `:`, `-` and `_` between
    /// bytes, plus a leading `0x`. Fails on an odd number of digits or any other character.
    /// - Throws: `HexError` with the offset (in UTF-8 bytes) of the offending character.
    public static func decode(_ text: String) throws(HexError) -> [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity(text.utf8.count / 2)
        var high: UInt8? = nil
        var highOffset = 0
        let utf8 = Array(text.utf8)
        var i = 0
        if utf8.count >= 2, utf8[0] == UInt8(ascii: "0"), utf8[1] | 0x20 == UInt8(ascii: "x") { i = 2 }
        while i < utf8.count {
            let c = utf8[i]
            let value: UInt8
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = c - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): value = c - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): value = c - UInt8(ascii: "A") + 10
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"),
                UInt8(ascii: ":"), UInt8(ascii: "-"), UInt8(ascii: "_"):
                if high != nil { throw HexError(offset: i, reason: "separator inside a byte (odd digit before it)") }
                i += 1
                continue
            default:
                throw HexError(offset: i, reason: "'\(Unicode.Scalar(c))' is not a hex digit")
            }
            if let h = high {
                out.append(h << 4 | value)
                high = nil
            } else {
                high = value
                highOffset = i
            }
            i += 1
        }
        if high != nil { throw HexError(offset: highOffset, reason: "odd number of hex digits") }
        return out
    }
}

/// Hex text that could not be parsed.
public struct HexError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Offset, in UTF-8 bytes of the text, of the character at fault.
    public var offset: Int
    /// What was wrong.
    public var reason: String

    /// Creates an error at a text offset.
    public init(offset: Int, reason: String) {
        self.offset = offset
        self.reason = reason
    }

    /// "invalid hex at offset N: reason".
    public var description: String { "invalid hex at offset \(offset): \(reason)" }
}
