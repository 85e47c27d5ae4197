/// Text from a tag (or a file, or a reader's USB descriptor) made safe to show on a terminal.
///
/// A tag is input from a stranger: a Text record can hold `ESC [2J` (clear the screen), an OSC
/// sequence that retitles the window, BEL, or U+202E (right-to-left override) that makes a URL
/// read differently from what it is. This is the one place that decides which characters a
/// terminal must never receive raw, and how they are shown instead:
///
/// - C0 controls other than newline and tab (U+0000–U+001F), and DEL (U+007F): `\x1b`;
/// - C1 controls (U+0080–U+009F): `\u{9B}`;
/// - bidirectional formatting characters (U+061C, U+200E, U+200F, U+202A–U+202E,
///   U+2066–U+2069) and the line/paragraph separators U+2028/U+2029: `\u{202E}`;
/// - bytes that are not valid UTF-8 (``escaping(utf8:newlines:)``): `\xff`.
///
/// JSON output keeps the exact value: ``escapingInJSON(_:)`` writes the same characters as JSON
/// `\uXXXX` escapes, which every JSON parser turns back into the original.
public enum TerminalSafeText {
    /// What to do with a newline (U+000A) and a tab (U+0009).
    public enum Newlines: Sendable {
        /// Keep them: multi-line text stays multi-line.
        case keep
        /// Show them as `\n` and `\t`: for a value that must stay on one line (a field, a progress
        /// line), so that a tag cannot forge extra lines of output.
        case escape
    }

    /// Whether `scalar` must never reach a terminal raw (newline and tab aside).
    @inlinable
    public static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        let value = scalar.value
        if value < 0x20 { return value != 0x0A && value != 0x09 }
        if value < 0x7F { return false }
        if value <= 0x9F { return true }  // DEL and the C1 controls
        if value < 0x061C { return false }
        switch value {
        case 0x061C, 0x200E, 0x200F, 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069: return true
        default: return false
        }
    }

    /// `text` with every unsafe character escaped (newlines and tabs as `newlines` says).
    public static func escaping(_ text: String, newlines: Newlines = .keep) -> String {
        guard text.unicodeScalars.contains(where: { isUnsafe($0) || (newlines == .escape && ($0 == "\n" || $0 == "\t")) }) else {
            return text
        }
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            append(scalar, newlines: newlines, to: &out)
        }
        return String(out)
    }

    /// Bytes that should be UTF-8 text, shown safely: valid sequences as their characters (unsafe
    /// ones escaped), every byte of an invalid sequence as `\xNN`.
    public static func escaping(utf8 bytes: some Collection<UInt8>, newlines: Newlines = .keep) -> String {
        let bytes = Array(bytes)
        var out = ""
        var start = 0
        // The valid run up to the first invalid byte (UnicodeValidation decides), then that byte
        // as \xNN, then on after it.
        while start < bytes.count {
            let run = bytes[start...]
            let invalid = run.withUnsafeBufferPointer { UnicodeValidation.firstInvalidUTF8Offset($0) }
            let end = invalid.map { start + $0 } ?? bytes.count
            out += escaping(String(decoding: bytes[start..<end], as: UTF8.self), newlines: newlines)
            guard end < bytes.count else { break }
            out += hexEscape(bytes[end])
            start = end + 1
        }
        return out
    }

    /// A JSON text with every unsafe character written as a `\uXXXX` escape (valid JSON with the
    /// same value: raw unsafe characters can only stand inside JSON strings, where the escape
    /// means the same character). JSON encoders already escape C0 controls; this covers DEL, C1
    /// and the bidirectional controls, which JSON allows raw.
    public static func escapingInJSON(_ json: String) -> String {
        guard json.unicodeScalars.contains(where: { isUnsafe($0) && $0.value >= 0x20 }) else { return json }
        var out = String.UnicodeScalarView()
        for scalar in json.unicodeScalars {
            if isUnsafe(scalar) && scalar.value >= 0x20 {
                let hex = String(scalar.value, radix: 16)
                out.append(contentsOf: ("\\u" + String(repeating: "0", count: 4 - hex.count) + hex).unicodeScalars)
            } else {
                out.append(scalar)
            }
        }
        return String(out)
    }

    private static func append(_ scalar: Unicode.Scalar, newlines: Newlines, to out: inout String.UnicodeScalarView) {
        if newlines == .escape && scalar == "\n" {
            out.append(contentsOf: "\\n".unicodeScalars)
        } else if newlines == .escape && scalar == "\t" {
            out.append(contentsOf: "\\t".unicodeScalars)
        } else if !isUnsafe(scalar) {
            out.append(scalar)
        } else if scalar.value <= 0x7F {
            out.append(contentsOf: hexEscape(UInt8(scalar.value)).unicodeScalars)
        } else {
            out.append(contentsOf: "\\u{\(String(scalar.value, radix: 16, uppercase: true))}".unicodeScalars)
        }
    }

    private static func hexEscape(_ byte: UInt8) -> String {
        let hex = String(byte, radix: 16)
        return "\\x" + (hex.count == 1 ? "0" + hex : hex)
    }
}
