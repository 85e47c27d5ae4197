/// A JSON value as a trace line holds it: the subset ``ReaderTrace``'s lines use (objects with
/// their keys in order, arrays, strings, integers, booleans, null). Numbers with a fraction or
/// an exponent are refused: every number in a trace is a count, an index or microseconds.
enum TraceJSON: Sendable, Hashable {
    case object([(key: String, value: TraceJSON)])
    case array([TraceJSON])
    case string(String)
    case integer(Int)
    case bool(Bool)
    case null

    static func == (lhs: TraceJSON, rhs: TraceJSON) -> Bool {
        switch (lhs, rhs) {
        case (.object(let a), .object(let b)): a.count == b.count && zip(a, b).allSatisfy { $0.key == $1.key && $0.value == $1.value }
        case (.array(let a), .array(let b)): a == b
        case (.string(let a), .string(let b)): a == b
        case (.integer(let a), .integer(let b)): a == b
        case (.bool(let a), .bool(let b)): a == b
        case (.null, .null): true
        default: false
        }
    }

    func hash(into hasher: inout Hasher) {
        switch self {
        case .object(let pairs): for (key, value) in pairs { hasher.combine(key); hasher.combine(value) }
        case .array(let values): hasher.combine(values)
        case .string(let s): hasher.combine(s)
        case .integer(let i): hasher.combine(i)
        case .bool(let b): hasher.combine(b)
        case .null: hasher.combine(0)
        }
    }

    /// The value's compact JSON text (no spaces), keys in their order.
    var text: String {
        var out = ""
        write(to: &out)
        return out
    }

    func write(to out: inout String) {
        switch self {
        case .object(let pairs):
            out += "{"
            for (index, pair) in pairs.enumerated() {
                if index > 0 { out += "," }
                Self.writeString(pair.key, to: &out)
                out += ":"
                pair.value.write(to: &out)
            }
            out += "}"
        case .array(let values):
            out += "["
            for (index, value) in values.enumerated() {
                if index > 0 { out += "," }
                value.write(to: &out)
            }
            out += "]"
        case .string(let s): Self.writeString(s, to: &out)
        case .integer(let i): out += String(i)
        case .bool(let b): out += b ? "true" : "false"
        case .null: out += "null"
        }
    }

    static func writeString(_ s: String, to out: inout String) {
        out += "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F || (0x80...0x9F).contains(scalar.value) || scalar.value == 0x2028 || scalar.value == 0x2029 {
                    let digits = String(scalar.value, radix: 16, uppercase: false)
                    out += "\\u" + String(repeating: "0", count: 4 - digits.count) + digits
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        out += "\""
    }

    /// The value of `key` in an object, nil when absent or not an object.
    subscript(key: String) -> TraceJSON? {
        guard case .object(let pairs) = self else { return nil }
        return pairs.first { $0.key == key }?.value
    }
}

/// A total parser of one trace line's JSON: a cursor over the line's UTF-8 bytes, every step
/// checked, nesting capped at ``maximumDepth``; errors carry the byte offset in the line.
struct TraceJSONParser {
    /// The deepest nesting a trace line needs is 4 (an event, its target list, a target); 8 is
    /// room to spare and bounds the recursion.
    static let maximumDepth = 8

    let bytes: ArraySlice<UInt8>
    var index: Int

    init(_ bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
        index = bytes.startIndex
    }

    /// The offset of the cursor in the line.
    var offset: Int { index - bytes.startIndex }

    /// Parses the whole line as one value; only spaces and tabs may follow it.
    static func parse(_ bytes: ArraySlice<UInt8>) throws(TraceJSONSyntaxError) -> TraceJSON {
        var parser = TraceJSONParser(bytes)
        let value = try parser.value(depth: 0)
        parser.skipSpace()
        guard parser.index == bytes.endIndex else { throw parser.fail("text after the JSON value") }
        return value
    }

    func fail(_ reason: String) -> TraceJSONSyntaxError { TraceJSONSyntaxError(offset: offset, reason: reason) }

    mutating func skipSpace() {
        while index < bytes.endIndex, bytes[index] == 0x20 || bytes[index] == 0x09 || bytes[index] == 0x0D { index += 1 }
    }

    mutating func value(depth: Int) throws(TraceJSONSyntaxError) -> TraceJSON {
        skipSpace()
        guard index < bytes.endIndex else { throw fail("a value is missing") }
        switch bytes[index] {
        case UInt8(ascii: "{"):
            guard depth < Self.maximumDepth else { throw fail("nested deeper than \(Self.maximumDepth)") }
            return try object(depth: depth + 1)
        case UInt8(ascii: "["):
            guard depth < Self.maximumDepth else { throw fail("nested deeper than \(Self.maximumDepth)") }
            return try array(depth: depth + 1)
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): try word("true"); return .bool(true)
        case UInt8(ascii: "f"): try word("false"); return .bool(false)
        case UInt8(ascii: "n"): try word("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .integer(try integer())
        default: throw fail("not a JSON value")
        }
    }

    mutating func word(_ text: String) throws(TraceJSONSyntaxError) {
        let expected = Array(text.utf8)
        let count = expected.count
        guard bytes.endIndex - index >= count, bytes[index..<(index + count)].elementsEqual(expected) else { throw fail("not a JSON value") }
        index += count
    }

    mutating func integer() throws(TraceJSONSyntaxError) -> Int {
        let start = index
        var negative = false
        if bytes[index] == UInt8(ascii: "-") { negative = true; index += 1 }
        var value = 0
        var digits = 0
        while index < bytes.endIndex, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) {
            let digit = Int(bytes[index] - UInt8(ascii: "0"))
            if digits == 1 && value == 0 { index = start; throw fail("a number with a leading zero") }
            let (times, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times.addingReportingOverflow(digit)
            guard !overflow1, !overflow2 else { index = start; throw fail("a number out of range") }
            value = sum
            digits += 1
            index += 1
        }
        guard digits > 0 else { throw fail("a number without digits") }
        if index < bytes.endIndex, [UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E")].contains(bytes[index]) {
            throw fail("a number that is not an integer")
        }
        return negative ? -value : value
    }

    mutating func object(depth: Int) throws(TraceJSONSyntaxError) -> TraceJSON {
        index += 1  // {
        var pairs: [(key: String, value: TraceJSON)] = []
        skipSpace()
        if index < bytes.endIndex, bytes[index] == UInt8(ascii: "}") { index += 1; return .object(pairs) }
        while true {
            skipSpace()
            let keyOffset = offset
            guard index < bytes.endIndex, bytes[index] == UInt8(ascii: "\"") else { throw fail("expected a key in quotes") }
            let key = try string()
            if pairs.contains(where: { $0.key == key }) {
                throw TraceJSONSyntaxError(offset: keyOffset, reason: "the key '\(key)' appears twice")
            }
            skipSpace()
            guard index < bytes.endIndex, bytes[index] == UInt8(ascii: ":") else { throw fail("expected ':'") }
            index += 1
            pairs.append((key, try value(depth: depth)))
            skipSpace()
            guard index < bytes.endIndex else { throw fail("the object is never closed") }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: "}") { index += 1; return .object(pairs) }
            throw fail("expected ',' or '}'")
        }
    }

    mutating func array(depth: Int) throws(TraceJSONSyntaxError) -> TraceJSON {
        index += 1  // [
        var values: [TraceJSON] = []
        skipSpace()
        if index < bytes.endIndex, bytes[index] == UInt8(ascii: "]") { index += 1; return .array(values) }
        while true {
            values.append(try value(depth: depth))
            skipSpace()
            guard index < bytes.endIndex else { throw fail("the array is never closed") }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: "]") { index += 1; return .array(values) }
            throw fail("expected ',' or ']'")
        }
    }

    /// A string: valid UTF-8, escapes decoded, no raw control characters.
    mutating func string() throws(TraceJSONSyntaxError) -> String {
        index += 1  // "
        var out = String.UnicodeScalarView()
        while index < bytes.endIndex {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") { index += 1; return String(out) }
            if byte == UInt8(ascii: "\\") {
                index += 1
                guard index < bytes.endIndex else { break }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""): out.append("\"")
                case UInt8(ascii: "\\"): out.append("\\")
                case UInt8(ascii: "/"): out.append("/")
                case UInt8(ascii: "b"): out.append("\u{08}")
                case UInt8(ascii: "f"): out.append("\u{0C}")
                case UInt8(ascii: "n"): out.append("\n")
                case UInt8(ascii: "r"): out.append("\r")
                case UInt8(ascii: "t"): out.append("\t")
                case UInt8(ascii: "u"):
                    var code = try hex4()
                    if (0xD800...0xDBFF).contains(code) {
                        guard bytes.endIndex - index >= 2, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                            throw fail("a lone high surrogate")
                        }
                        index += 2
                        let low = try hex4()
                        guard (0xDC00...0xDFFF).contains(low) else { throw fail("a high surrogate without its low half") }
                        code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                    }
                    guard let scalar = Unicode.Scalar(code) else { throw fail("a \\u escape that is not a character") }
                    out.append(scalar)
                default: index -= 1; throw fail("an unknown escape")
                }
                continue
            }
            guard byte >= 0x20 else { throw fail("a control character inside a string") }
            out.append(try utf8Scalar())
        }
        throw fail("the string is never closed")
    }

    /// One UTF-8 encoded scalar at the cursor (shortest form, no surrogates).
    mutating func utf8Scalar() throws(TraceJSONSyntaxError) -> Unicode.Scalar {
        let lead = bytes[index]
        let length: Int, initial: UInt32, minimum: UInt32
        switch lead {
        case 0x00...0x7F: index += 1; return Unicode.Scalar(lead)
        case 0xC2...0xDF: (length, initial, minimum) = (2, UInt32(lead & 0x1F), 0x80)
        case 0xE0...0xEF: (length, initial, minimum) = (3, UInt32(lead & 0x0F), 0x800)
        case 0xF0...0xF4: (length, initial, minimum) = (4, UInt32(lead & 0x07), 0x10000)
        default: throw fail("invalid UTF-8")
        }
        guard bytes.endIndex - index >= length else { throw fail("invalid UTF-8") }
        var value = initial
        for k in 1..<length {
            let next = bytes[index + k]
            guard next & 0xC0 == 0x80 else { throw fail("invalid UTF-8") }
            value = value << 6 | UInt32(next & 0x3F)
        }
        guard value >= minimum, let scalar = Unicode.Scalar(value) else { throw fail("invalid UTF-8") }
        index += length
        return scalar
    }

    mutating func hex4() throws(TraceJSONSyntaxError) -> UInt32 {
        guard bytes.endIndex - index >= 4 else { throw fail("\\u needs 4 hex digits") }
        var value: UInt32 = 0
        for k in 0..<4 {
            guard let digit = hexDigit(bytes[index + k]) else { throw fail("\\u needs 4 hex digits") }
            value = value << 4 | UInt32(digit)
        }
        index += 4
        return value
    }
}

/// A hex digit's value, nil for any other byte.
func hexDigit(_ byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
    default: nil
    }
}

/// Why a line is not JSON, and where (the byte offset in the line).
struct TraceJSONSyntaxError: Error, Sendable, Hashable {
    var offset: Int
    var reason: String
}
