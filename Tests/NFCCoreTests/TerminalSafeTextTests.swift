import NFCCore
import Testing

@Suite("TerminalSafeText: what a terminal never receives raw", .timeLimit(.minutes(1)))
struct TerminalSafeTextTests {
    @Test("C0 controls but newline and tab, and DEL, as \\xNN", arguments: Array(0x00...0x1F).filter { $0 != 0x0A && $0 != 0x09 } + [0x7F])
    func c0(value: Int) throws {
        let scalar = try #require(Unicode.Scalar(UInt32(value)))
        let hex = value < 0x10 ? "0" + String(value, radix: 16) : String(value, radix: 16)
        #expect(TerminalSafeText.escaping("a\(Character(scalar))b") == "a\\x\(hex)b")
    }

    @Test("C1 controls, bidi controls and line separators as \\u{…}",
          arguments: [0x80, 0x85, 0x9B, 0x9F, 0x061C, 0x200E, 0x200F, 0x2028, 0x2029, 0x202A, 0x202E, 0x2066, 0x2069])
    func unicodeControls(value: Int) throws {
        let scalar = try #require(Unicode.Scalar(UInt32(value)))
        #expect(TerminalSafeText.escaping("a\(Character(scalar))b") == "a\\u{\(String(value, radix: 16, uppercase: true))}b")
    }

    @Test("ordinary text, accents, CJK, emoji, newline and tab pass unchanged")
    func ordinaryText() {
        let text = "Grüße, 東京 👋\nline two\tcolumn ¡A0 © ‐ – — ‘’ “” \u{A0}"
        #expect(TerminalSafeText.escaping(text) == text)
    }

    @Test("newlines and tabs escaped on request, so a value stays on its line")
    func oneLine() {
        #expect(TerminalSafeText.escaping("a\nb\tc\r", newlines: .escape) == "a\\nb\\tc\\x0d")
    }

    @Test("bytes: valid UTF-8 as text, each byte of an invalid sequence as \\xNN")
    func invalidUTF8() {
        #expect(TerminalSafeText.escaping(utf8: [0x41, 0xFF, 0x9B, 0x42]) == "A\\xff\\x9bB")
        #expect(TerminalSafeText.escaping(utf8: [0xE2, 0x80, 0xAE]) == "\\u{202E}")              // U+202E, valid, unsafe
        #expect(TerminalSafeText.escaping(utf8: [0xC3, 0xA9, 0xE2, 0x80]) == "é\\xe2\\x80")      // truncated sequence
        #expect(TerminalSafeText.escaping(utf8: [0xC0, 0xAF]) == "\\xc0\\xaf")                  // overlong '/'
        #expect(TerminalSafeText.escaping(utf8: [0xED, 0xA0, 0x80]) == "\\xed\\xa0\\x80")       // a surrogate
        #expect(TerminalSafeText.escaping(utf8: [0xF4, 0x90, 0x80, 0x80]) == "\\xf4\\x90\\x80\\x80")  // above U+10FFFF
        #expect(TerminalSafeText.escaping(utf8: Array("ok 👋".utf8)) == "ok 👋")
    }

    @Test("JSON: unsafe characters as \\uXXXX, which parse back to the same value")
    func json() {
        #expect(TerminalSafeText.escapingInJSON("{\"t\":\"a\u{202E}b\u{7F}c\u{85}\"}") == "{\"t\":\"a\\u202eb\\u007fc\\u0085\"}")
        #expect(TerminalSafeText.escapingInJSON("{\"t\":\"plain\"}") == "{\"t\":\"plain\"}")
    }
}
