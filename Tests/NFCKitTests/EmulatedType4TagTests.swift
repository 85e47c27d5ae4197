import NFCCore
import NFCKit
import NFCTestSupport
import Testing

/// The card side of a Type 4 tag, APDU by APDU (no reader needed): the answers T4T 2.0 §5.4
/// prescribes, and one negative test per rule.
@Suite("EmulatedType4Tag answers a reader's APDUs", .timeLimit(.minutes(10)))
struct EmulatedType4TagTests {
    static let message = Bytes([0xD1, 0x01, 0x0C, 0x55, 0x04] + Array("example.com".utf8))

    /// A tag with the NDEF file selected.
    static func selected(readOnly: Bool = false) throws -> EmulatedType4Tag {
        var tag = try EmulatedType4Tag(message: message, readOnly: readOnly)
        #expect(tag.respond(to: hexBytes("00A4040007D276000085010100")) == hexBytes("9000"))
        #expect(tag.respond(to: hexBytes("00A4000C02E104")) == hexBytes("9000"))
        return tag
    }

    @Test("the read procedure: application, CC, NDEF file, NLEN, message")
    func readProcedure() throws {
        var tag = try EmulatedType4Tag(message: Self.message)
        #expect(tag.respond(to: hexBytes("00A4040007D276000085010100")) == hexBytes("9000"))
        #expect(tag.respond(to: hexBytes("00A4000C02E103")) == hexBytes("9000"))
        #expect(tag.respond(to: hexBytes("00B000000F")) == hexBytes("000F20008000800406E104080000009000"))
        #expect(tag.respond(to: hexBytes("00A4000C02E104")) == hexBytes("9000"))
        #expect(tag.respond(to: hexBytes("00B0000002")) == hexBytes("00109000"))
        #expect(tag.respond(to: hexBytes("00B000020F")).count == 15 + 2)
        #expect(tag.messageWasRead == false)
        #expect(tag.respond(to: hexBytes("00B0000210")) == Bytes(Self.message.array + [0x90, 0x00]))
        #expect(tag.messageWasRead)
        #expect(tag.wasUpdated == false)
        #expect(tag.message == Self.message)
    }

    @Test("the update procedure: NLEN 0, data, NLEN; the written message is kept")
    func updateProcedure() throws {
        var tag = try Self.selected()
        #expect(tag.respond(to: hexBytes("00D60000020000")) == hexBytes("9000"))
        #expect(tag.message == Bytes())
        #expect(tag.respond(to: hexBytes("00D6000203D00000")) == hexBytes("9000"))
        #expect(tag.respond(to: hexBytes("00D60000020003")) == hexBytes("9000"))
        #expect(tag.wasUpdated)
        #expect(tag.message == hexBytes("D00000"))
    }

    @Test("read-only: write access FF in the CC, UPDATE BINARY refused with 6982, file unchanged")
    func readOnly() throws {
        var tag = try Self.selected(readOnly: true)
        #expect(tag.respond(to: hexBytes("00D60000020000")) == hexBytes("6982"))
        #expect(tag.wasUpdated == false)
        #expect(tag.message == Self.message)
        #expect(tag.capabilityContainer.last == 0xFF)
    }

    @Test("refusals, one per rule", arguments: [
        ("10A4040007D2760000850101", "6E00"),  // class not 00
        ("00CA000000", "6D00"),  // unknown instruction
        ("00A4040007D2760000850100", "6A82"),  // another application
        ("00A40400", "6700"),  // SELECT without data
        ("00A4000C02E105", "6A82"),  // unknown file
        ("00A4010C02E104", "6A86"),  // P1 01
        ("00B0100001", "6B00"),  // offset past the file
        ("00D60800020000", "6B00"),  // update past the file
        ("00B00000", "6700"),  // READ BINARY without Le
        ("00D600", "6700"),  // truncated
    ])
    func refusals(command: String, status: String) throws {
        var tag = try Self.selected()
        let answer = tag.respond(to: hexBytes(command))
        #expect(answer == hexBytes(status))
        #expect(tag.message == Self.message)
    }

    @Test("no file selected: READ and UPDATE BINARY answer 6986; SELECT of a file needs the application first")
    func nothingSelected() throws {
        var tag = try EmulatedType4Tag(message: Self.message)
        #expect(tag.respond(to: hexBytes("00B0000002")) == hexBytes("6986"))
        #expect(tag.respond(to: hexBytes("00D60000020000")) == hexBytes("6986"))
        #expect(tag.respond(to: hexBytes("00A4000C02E104")) == hexBytes("6A82"))
    }

    @Test("the capability container cannot be updated")
    func capabilityContainerIsReadOnly() throws {
        var tag = try EmulatedType4Tag(message: Self.message)
        _ = tag.respond(to: hexBytes("00A4040007D276000085010100"))
        _ = tag.respond(to: hexBytes("00A4000C02E103"))
        #expect(tag.respond(to: hexBytes("00D60000020000")) == hexBytes("6982"))
    }

    @Test("READ BINARY answers at most MLe (128) bytes and stops at the end of the file")
    func readLengthIsCapped() throws {
        var tag = try EmulatedType4Tag(message: Self.message, fileSize: 200)
        _ = tag.respond(to: hexBytes("00A4040007D276000085010100"))
        _ = tag.respond(to: hexBytes("00A4000C02E104"))
        #expect(tag.respond(to: hexBytes("00B0000000")).count == 128 + 2)
        #expect(tag.respond(to: hexBytes("00B000C0FF")).count == 8 + 2)
    }

    @Test("a message that does not fit, and file sizes outside 5…32767, are refused")
    func configurationErrors() {
        #expect(throws: EmulatedType4Tag.ConfigurationError.self) { try EmulatedType4Tag(message: Bytes([UInt8](repeating: 0, count: 10)), fileSize: 11) }
        #expect(throws: EmulatedType4Tag.ConfigurationError.self) { try EmulatedType4Tag(message: Bytes(), fileSize: 4) }
        #expect(throws: EmulatedType4Tag.ConfigurationError.self) { try EmulatedType4Tag(message: Bytes(), fileSize: 0x8000) }
    }
}
