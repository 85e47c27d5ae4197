import NFCCore
import NFCTestSupport
import Testing

@testable import NFCTags

private let isoDEPTarget = TargetInfo.iso14443A(
    ISO14443ATarget(uid: [0x04, 1, 2, 3, 4, 5, 6], atqa: [0x44, 0x03], sak: 0x20, ats: [0x06, 0x75, 0x77, 0x81, 0x02, 0x80]))

private func isoTag(_ reader: ScriptedReader, initialSelectedAID: String? = nil, allowsPayment: Bool = false) -> ISO7816Tag {
    ISO7816Tag(
        reader: reader, target: isoDEPTarget, identity: ChipIdentity(model: "test", platform: .type4),
        initialSelectedAID: initialSelectedAID, allowsPaymentApplications: allowsPayment)
}

private func apdu(_ cla: UInt8, _ ins: UInt8, _ p1: UInt8, _ p2: UInt8, _ data: [UInt8] = [], le: Int? = nil) throws -> ISO7816APDU {
    try ISO7816APDU(instructionClass: cla, instructionCode: ins, p1Parameter: p1, p2Parameter: p2, data: Bytes(data), expectedResponseLength: le)
}

@Suite("ISO 7816-4 APDUs: encoding, parsing, chaining, payment refusal", .timeLimit(.minutes(5)))
struct APDUTests {
    static let bytes256 = [UInt8](repeating: 0xAB, count: 256)

    /// (data count, Le, expected encoding) for CLA 00 INS B0 P1 01 P2 02, data bytes all AB.
    static let vectors: [(Int, Int?, String)] = [
        (0, nil, "00 B0 01 02"),  // case 1
        (0, 15, "00 B0 01 02 0F"),  // case 2S
        (0, 256, "00 B0 01 02 00"),  // case 2S, Le 256 = 00
        (2, nil, "00 B0 01 02 02 AB AB"),  // case 3S
        (2, 1, "00 B0 01 02 02 AB AB 01"),  // case 4S
        (255, 256, "00 B0 01 02 FF" + String(repeating: " AB", count: 255) + " 00"),  // case 4S at both limits
        (0, 257, "00 B0 01 02 00 01 01"),  // case 2E
        (0, 65_536, "00 B0 01 02 00 00 00"),  // case 2E, Le 65536 = 0000
        (256, nil, "00 B0 01 02 00 01 00" + String(repeating: " AB", count: 256)),  // case 3E
        (256, 256, "00 B0 01 02 00 01 00" + String(repeating: " AB", count: 256) + " 01 00"),  // case 4E
        (1, 65_536, "00 B0 01 02 00 00 01 AB 00 00"),  // case 4E: Le forces the extended form
    ]

    @Test("short and extended encodings of the four cases, and the parser gives the APDU back", arguments: vectors)
    func encodingVectors(dataCount: Int, le: Int?, expected: String) throws {
        let command = try apdu(0x00, 0xB0, 0x01, 0x02, [UInt8](repeating: 0xAB, count: dataCount), le: le)
        #expect(command.encoded().array == hex(expected))
        #expect(command.isExtended == (dataCount > 255 || (le ?? 0) > 256))
        #expect(try ISO7816APDU(bytes: command.encoded()) == command)
    }

    @Test("the NDEF Tag Application SELECT encodes as in the Type 4 Tag specification")
    func ndefSelect() throws {
        let select = try apdu(0x00, 0xA4, 0x04, 0x00, Type4Command.ndefTagApplicationID, le: 256)
        #expect(select.encoded().array == hex("00 A4 04 00 07 D2 76 00 00 85 01 01 00"))
    }

    @Test("out-of-range data and Le are invalidParameter", arguments: [(65_536, nil), (0, 0), (0, 65_537), (0, -1)] as [(Int, Int?)])
    func limits(dataCount: Int, le: Int?) {
        #expect {
            _ = try apdu(0x00, 0xD6, 0, 0, [UInt8](repeating: 0, count: dataCount), le: le)
        } throws: { ($0 as? NFCTagError)?.code == .invalidParameter }
    }

    @Test("65 535 data bytes is the largest extended Lc")
    func largestData() throws {
        let command = try apdu(0x00, 0xD6, 0, 0, [UInt8](repeating: 1, count: 65_535))
        #expect(command.encoded().array.prefix(7) == [0x00, 0xD6, 0x00, 0x00, 0x00, 0xFF, 0xFF])
        #expect(command.encoded().count == 7 + 65_535)
    }

    /// (bytes, offset of the fault).
    static let malformed: [(String, Int)] = [
        ("", 0),
        ("00 A4 04", 3),  // header cut
        ("00 A4 04 00 05 D2 76", 7),  // Lc 5, 2 bytes follow
        ("00 A4 00 0C 02 E1 03 00 AA", 8),  // a byte after Le
        ("00 B0 00 00 00 01", 6),  // extended Le cut
        ("00 D6 00 00 00 00 00 AA", 5),  // extended Lc 0000 with data after
        ("00 D6 00 00 00 00 03 AA BB", 9),  // extended data cut
        ("00 D6 00 00 00 00 01 AA 01", 9),  // one-byte Le in an extended APDU
        ("00 D6 00 00 00 00 01 AA 00 01 FF", 10),  // a byte after the extended Le
    ]

    @Test("malformed APDUs are typed errors with the offset at fault", arguments: malformed)
    func parserErrors(text: String, offset: Int) {
        #expect {
            _ = try ISO7816APDU(bytes: Bytes(hex(text)))
        } throws: { error in
            let error = error as? NFCTagError
            return error?.code == .invalidParameter && error?.offset == offset
        }
    }

    @Test("short-form parsing: Le 00 means 256, case 3 has no Le")
    func shortParsing() throws {
        #expect(try ISO7816APDU(bytes: Bytes(hex("00 B0 00 00 00"))).expectedResponseLength == 256)
        let case3 = try ISO7816APDU(bytes: Bytes(hex("00 A4 00 0C 02 E1 03")))
        #expect(case3.data.array == [0xE1, 0x03] && case3.expectedResponseLength == nil)
        #expect(try ISO7816APDU(bytes: Bytes(hex("00 B0 00 00 00 00 00"))).expectedResponseLength == 65_536)
    }

    @Test("a response splits into data and SW1 SW2; fewer than 2 bytes is tagResponse")
    func response() throws {
        let response = try ISO7816Response(bytes: Bytes(hex("01 02 90 00")))
        #expect(response.data.array == [1, 2] && response.statusWord == .success && response.statusWord.isSuccess)
        #expect(ISO7816StatusWord(0x62, 0x82).isSuccess)
        #expect(!ISO7816StatusWord.fileNotFound.isSuccess)
        #expect(ISO7816StatusWord.fileNotFound.description == "6A82")
        #expect { _ = try ISO7816Response(bytes: Bytes([0x90])) } throws: { ($0 as? NFCTagError)?.offset == 1 }
    }

    // MARK: - Chaining

    @Test("61xx: GET RESPONSE with Le = xx, data accumulated in order")
    func getResponse() async throws {
        let reader = ScriptedReader(script: [
            ScriptedExchange(hex("00 CA 00 6E 00"), answer: hex("01 02 61 03")),
            ScriptedExchange(hex("00 C0 00 00 03"), answer: hex("03 04 05 61 00")),
            ScriptedExchange(hex("00 C0 00 00 00"), answer: [UInt8](repeating: 6, count: 256) + [0x90, 0x00]),
        ])
        let (data, sw1, sw2) = try await isoTag(reader).sendCommand(apdu: try apdu(0x00, 0xCA, 0x00, 0x6E, le: 256))
        #expect(data.array == [1, 2, 3, 4, 5] + [UInt8](repeating: 6, count: 256))
        #expect((sw1, sw2) == (0x90, 0x00))
        await reader.expectScriptFinished()
    }

    @Test("6Cxx: the command is sent again with Le = xx, once")
    func wrongLe() async throws {
        let reader = ScriptedReader(script: [
            ScriptedExchange(hex("00 B0 00 00 10"), answer: hex("6C 05")),
            ScriptedExchange(hex("00 B0 00 00 05"), answer: hex("AA BB CC DD EE 90 00")),
        ])
        let (data, sw1, sw2) = try await isoTag(reader).sendCommand(apdu: try apdu(0x00, 0xB0, 0x00, 0x00, le: 16))
        #expect(data.array == hex("AA BB CC DD EE") && sw1 == 0x90 && sw2 == 0x00)
        await reader.expectScriptFinished()
        // A second 6Cxx is handed back, not chased: a third command would be unscripted.
        let stubborn = ScriptedReader(script: [
            ScriptedExchange(hex("00 B0 00 00 10"), answer: hex("6C 05")),
            ScriptedExchange(hex("00 B0 00 00 05"), answer: hex("6C 04")),
        ])
        let (_, s1, s2) = try await isoTag(stubborn).sendCommand(apdu: try apdu(0x00, 0xB0, 0x00, 0x00, le: 16))
        #expect((s1, s2) == (0x6C, 0x04))
        await stubborn.expectScriptFinished()
    }

    @Test("endless 61xx stops after 256 GET RESPONSE commands with tagResponse")
    func boundedChaining() async throws {
        let reader = ScriptedReader(script: [ScriptedExchange(hex("00 CA 00 6E 01"), answer: hex("00 61 01"))],
                                    afterScript: .answer(hex("00 61 01")))
        await #expect {
            _ = try await isoTag(reader).sendCommand(apdu: try apdu(0x00, 0xCA, 0x00, 0x6E, le: 1))
        } throws: { ($0 as? NFCTagError)?.code == .tagResponse }
        #expect(await reader.sent.count == 1 + ISO7816Exchange.maximumGetResponses)
    }

    @Test("a lost tag is connectionLost, an answer without status word tagResponse")
    func failures() async throws {
        await #expect {
            _ = try await isoTag(ScriptedReader(script: [ScriptedExchange(hex("00 B0 00 00 02"), .timeout)]))
                .sendCommand(apdu: try apdu(0x00, 0xB0, 0, 0, le: 2))
        } throws: { ($0 as? NFCTagError)?.code == .connectionLost }
        await #expect {
            _ = try await isoTag(ScriptedReader(script: [ScriptedExchange(hex("00 B0 00 00 02"), answer: [0x90])]))
                .sendCommand(apdu: try apdu(0x00, 0xB0, 0, 0, le: 2))
        } throws: { ($0 as? NFCTagError)?.code == .tagResponse }
    }

    // MARK: - Payment refusal and selection

    static let paymentNames: [[UInt8]] = [
        Array("2PAY.SYS.DDF01".utf8), Array("1PAY.SYS.DDF01".utf8),
        hex("A0000000031010"), hex("A0000000041010"), hex("A00000002501"), hex("A0000001523010"),
        hex("A0000000651010"), hex("A000000333010101"), hex("A0000002771010"), hex("A0000005241010"),
        hex("A0000006581010"), hex("A000000003"),
        hex("A000000004"), hex("A00000"),  // a partial name reaches the first Visa/Mastercard application
        Array("2PAY".utf8),
    ]

    @Test("SELECT of a payment application is refused before anything is sent", arguments: paymentNames)
    func paymentRefused(name: [UInt8]) async throws {
        let reader = ScriptedReader(script: [])
        let select = try apdu(0x00, 0xA4, 0x04, 0x00, name, le: 256)
        await #expect {
            _ = try await isoTag(reader).sendCommand(apdu: select)
        } throws: { ($0 as? NFCTagError)?.code == .refused }
        #expect(await reader.sent.isEmpty)
        let mifare = MiFareTag(
            reader: reader, target: ISO14443ATarget(uid: [4, 1, 2, 3, 4, 5, 6], atqa: [0x44, 0x03], sak: 0x20, ats: [0x05, 0x75, 0x77, 0x81, 0x02]),
            identity: ChipIdentity(model: "MIFARE DESFire EV1", platform: .type4, family: .desfire))
        await #expect {
            _ = try await mifare.sendMiFareISO7816Command(select)
        } throws: { ($0 as? NFCTagError)?.code == .refused }
        #expect(await reader.sent.isEmpty)
    }

    @Test("opting in lets a payment SELECT through; other AIDs and file SELECTs always pass")
    func paymentAllowed() async throws {
        let reader = ScriptedReader(script: [
            ScriptedExchange(hex("00 A4 04 00 0E") + Array("2PAY.SYS.DDF01".utf8) + [0x00], answer: hex("6F 00 90 00")),
            ScriptedExchange(hex("00 A4 04 00 07 D2 76 00 00 85 01 01 00"), answer: hex("90 00")),
            ScriptedExchange(hex("00 A4 00 0C 02 A0 00"), answer: hex("90 00")),
        ])
        _ = try await isoTag(reader, allowsPayment: true).sendCommand(apdu: try apdu(0x00, 0xA4, 0x04, 0x00, Array("2PAY.SYS.DDF01".utf8), le: 256))
        _ = try await isoTag(reader).sendCommand(apdu: try apdu(0x00, 0xA4, 0x04, 0x00, Type4Command.ndefTagApplicationID, le: 256))
        _ = try await isoTag(reader).sendCommand(apdu: try apdu(0x00, 0xA4, 0x00, 0x0C, hex("A000")))
        await reader.expectScriptFinished()
    }

    @Test("selectedAID starts at initialSelectedAID and follows successful SELECTs by name only")
    func selectedAID() async throws {
        let reader = ScriptedReader(script: [
            ScriptedExchange(hex("00 A4 04 00 05 F0 AA BB CC DD 00"), answer: hex("6A 82")),
            ScriptedExchange(hex("00 A4 04 00 07 D2 76 00 00 85 01 01 00"), answer: hex("90 00")),
        ])
        let tag = isoTag(reader, initialSelectedAID: "f0010203040506")
        #expect(tag.initialSelectedAID == "F0010203040506" && tag.selectedAID == "F0010203040506")
        _ = try await tag.sendCommand(apdu: try apdu(0x00, 0xA4, 0x04, 0x00, hex("F0AABBCCDD"), le: 256))
        #expect(tag.selectedAID == "F0010203040506")
        let copy = tag
        _ = try await copy.sendCommand(apdu: try apdu(0x00, 0xA4, 0x04, 0x00, Type4Command.ndefTagApplicationID, le: 256))
        #expect(tag.selectedAID == "D2760000850101")
    }

    @Test("a MIFARE tag without ISO-DEP gets no APDU: notSupported, nothing sent")
    func mifareWithoutISODEP() async throws {
        let reader = ScriptedReader(script: [])
        let ntag = MiFareTag(
            reader: reader, target: ISO14443ATarget(uid: [4, 1, 2, 3, 4, 5, 6], atqa: [0x44, 0x00], sak: 0x00),
            identity: ChipIdentity(model: "NTAG215", platform: .type2, family: .ntag21x))
        await #expect {
            _ = try await ntag.sendMiFareISO7816Command(try apdu(0x90, 0x60, 0, 0, le: 256))
        } throws: { ($0 as? NFCTagError)?.code == .notSupported }
        #expect(await reader.sent.isEmpty)
    }

    // MARK: - Capability container

    @Test("a mapping 2.0 CC and a 3.0 CC with the extended NDEF File Control TLV parse")
    func capabilityContainers() throws {
        let v2 = try Type4CapabilityContainer(bytes: hex("00 0F 20 00 3B 00 34 04 06 E1 04 08 00 00 FF"))
        #expect(v2.maximumReadLength == 0x3B && v2.maximumUpdateLength == 0x34 && v2.ndefFileID == 0xE104)
        #expect(v2.capacity == 2046 && !v2.isWritable && v2.isReadable && v2.lengthFieldSize == 2)
        let v3 = try Type4CapabilityContainer(bytes: hex("00 11 30 00 FF 00 FF 06 08 E1 04 00 01 00 00 00 00"))
        #expect(v3.isExtended && v3.maximumNDEFFileSize == 0x10000 && v3.lengthFieldSize == 4)
        #expect(v3.capacity == 0x8000 - 4)  // 15-bit offsets reach 32 768 bytes
        #expect(Type4CapabilityContainer.requiredLength(hex("00 11 30 00 FF 00 FF 06 08 E1 04 00 01 00 00")) == 17)
    }

    /// (CC bytes, code, offset).
    static let malformedCCs: [(String, NFCTagError.Code, Int)] = [
        ("00 0F 20 00 3B 00 34 04 06 E1 04 08", .malformedTag, 12),  // cut
        ("00 0E 20 00 3B 00 34 04 06 E1 04 08 00 00 00", .malformedTag, 0),  // CCLEN 14
        ("00 0F 10 00 3B 00 34 04 06 E1 04 08 00 00 00", .notNDEFFormatted, 2),  // mapping 1.0
        ("00 0F 40 00 3B 00 34 04 06 E1 04 08 00 00 00", .notNDEFFormatted, 2),  // mapping 4.0
        ("00 0F 20 00 0E 00 34 04 06 E1 04 08 00 00 00", .malformedTag, 3),  // MLe 14
        ("00 0F 20 00 3B 00 00 04 06 E1 04 08 00 00 00", .malformedTag, 5),  // MLc 0
        ("00 0F 20 00 3B 00 34 05 06 E1 04 08 00 00 00", .malformedTag, 7),  // proprietary TLV first
        ("00 11 20 00 3B 00 34 06 08 E1 04 00 01 00 00 00 00", .malformedTag, 7),  // extended TLV in 2.0
        ("00 0F 20 00 3B 00 34 04 05 E1 04 08 00 00 00", .malformedTag, 8),  // TLV length 5
        ("00 0F 20 00 3B 00 34 04 06 E1 03 08 00 00 00", .malformedTag, 9),  // file ID of the CC
        ("00 0F 20 00 3B 00 34 04 06 E1 04 00 04 00 00", .malformedTag, 11),  // size 4
        ("00 0F 20 00 3B 00 34 04 06 E1 04 FF FF 00 00", .malformedTag, 11),  // size FFFF
        ("00 11 30 00 3B 00 34 06 08 E1 04 00 00 80 00 00 00", .malformedTag, 11),  // ENLEN size below FFFF
        ("00 11 30 00 3B 00 34 06 08 E1 04 00 01 00 00 00", .malformedTag, 16),  // extended TLV cut
    ]

    @Test("malformed capability containers give the CC offset at fault", arguments: malformedCCs)
    func malformedCapabilityContainer(text: String, code: NFCTagError.Code, offset: Int) {
        #expect {
            _ = try Type4CapabilityContainer(bytes: hex(text))
        } throws: { error in
            let error = error as? NFCTagError
            return error?.code == code && error?.offset == offset
        }
    }
}
