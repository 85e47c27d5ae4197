import NFCCore
import NFCTags
import Testing

/// The keys file (`NTAG424KeyFile`): regressions found by fuzzing (`Scripts/fuzz ntag424-keys`).
@Suite("NTAG 424 DNA keys file", .timeLimit(.minutes(1)))
struct NTAG424KeyFileTests {
    static let zero = String(repeating: "0", count: 32)
    static let other = "0102030405060708090A0B0C0D0E0F10"

    @Test("a CRLF keys file reads as its LF twin: a leading comment no longer hides every key (fuzz-crashes/ntag424-keys)")
    func crlfLineEnds() throws {
        let lf = "# SUN keys of the w26 stickers\nsdmMetaRead = \(Self.zero)\nsdmFileRead = \(Self.other)\n"
        let crlf = lf.replacingOccurrences(of: "\n", with: "\r\n")
        let file = try NTAG424KeyFile(text: crlf)
        #expect(file == (try NTAG424KeyFile(text: lf)))
        #expect(file.names == ["sdmfileread", "sdmmetaread"])
        #expect(file.key("sdmFileRead") == Bytes((1...16).map { UInt8($0) }))
    }

    @Test("a CRLF keys file's error names the same line as the LF one")
    func crlfErrorLine() {
        let text = "sdmMetaRead = \(Self.zero)\r\n\r\nsdmFileRead = 0000\r\n"
        let error = #expect(throws: NTAG424Error.self) { _ = try NTAG424KeyFile(text: text) }
        #expect(error?.code == .invalidKey)
        #expect(error?.offset == 3)
    }
}
