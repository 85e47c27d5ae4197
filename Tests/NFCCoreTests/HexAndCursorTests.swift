import NFCCore
import Testing

@Suite("Hex text and the byte cursor", .timeLimit(.minutes(5)))
struct HexAndCursorTests {
    @Test("hex decodes with separators, either case and a 0x prefix")
    func hexDecodes() throws {
        #expect(try Hex.decode("D1 01:0a-ff_00") == [0xD1, 0x01, 0x0A, 0xFF, 0x00])
        #expect(try Hex.decode("0xabCD") == [0xAB, 0xCD])
        #expect(try Hex.decode("") == [])
    }

    @Test("hex rejects odd digits and strange characters with their offset",
          arguments: [("abc", 2), ("zz", 0), ("a b", 1), ("0g", 1)])
    func hexRejects(text: String, offset: Int) {
        #expect(throws: HexError.self) { try Hex.decode(text) }
        do { _ = try Hex.decode(text) } catch { #expect(error.offset == offset) }
    }

    @Test("hex encodes with case and separator")
    func hexEncodes() {
        #expect(Hex.encode([0xAB, 0x01]) == "ab01")
        #expect(Hex.encode([0xAB, 0x01], uppercase: true, separator: ":") == "AB:01")
    }

    @Test("the cursor reads integers and refuses to read past the end")
    func cursor() {
        var c = ByteCursor([0x01, 0x02, 0x03, 0x04, 0x05])
        #expect(c.readUInt16BE() == 0x0102)
        #expect(c.offset == 2)
        #expect(c.readUInt32BE() == nil)
        #expect(c.offset == 2)
        #expect(c.readUInt16LE() == 0x0403)
        #expect(c.readBytes(2) == nil)
        #expect(c.readBytes(1) == [0x05])
        #expect(c.isAtEnd)
        #expect(c.readUInt8() == nil)
    }

    @Test("Bytes are zero-based and compare by content")
    func bytesValue() {
        let array: [UInt8] = [9, 8, 7, 6]
        let slice = Bytes(array[1...])
        #expect(slice[0] == 8)
        #expect(slice == Bytes([8, 7, 6]))
        #expect(slice.hashValue == Bytes([8, 7, 6]).hashValue)
        #expect(slice[1..<3] == [7, 6])
        #expect(Bytes(utf8: "hi").array == [0x68, 0x69])
    }

    @Test("UTF-8 and UTF-16 validation report the offset of bad bytes")
    func unicode() {
        #expect(UnicodeValidation.decodeUTF8([0x61, 0xC3, 0xBC]) == .success("aü"))
        #expect(UnicodeValidation.decodeUTF8([0x61, 0x62, 0xFF]) == .failure(.init(offset: 2)))
        #expect(UnicodeValidation.decodeUTF16([0x00, 0x48, 0xD8, 0x00], bigEndian: true) == .failure(.init(offset: 2)))
        #expect(UnicodeValidation.decodeUTF16([0x48, 0x00], bigEndian: false) == .success("H"))
        #expect(UnicodeValidation.decodeUTF16([0x48], bigEndian: false) == .failure(.init(offset: 0)))
    }
}
