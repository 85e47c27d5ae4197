import NFCCore
import NFCTags
import NFCTestSupport
import Testing

/// Per-tag NTAG 424 DNA keys from master keys, against AN10922's published AES-128 example
/// (rev. 2.x §2.2.1 Table 2: master 00112233445566778899AABBCCDDEEFF, UID 04782E21801D80, AID
/// 3042F5 and system identifier "NXP Abu" give A8DD63A3B89D54B37CA802473FDA9175; here AID and
/// system name are given together as the keys file's system identifier, so the input M is the
/// note's), and the keys file's rules. The openssl command-line check is in the CLI's
/// BatchNTAG424Tests.
@Suite("NTAG 424 DNA keys diversified per tag (AN10922)", .timeLimit(.minutes(1)))
struct NTAG424DiversifiedKeysTests {
    static let file = """
        key0Master = 00112233445566778899AABBCCDDEEFF
        sdmFileReadMaster = 1112131415161718191A1B1C1D1E1F20
        sdmMetaRead = 0102030405060708090A0B0C0D0E0F10
        systemIdentifier = 3042F54E585020416275
        """

    @Test("AN10922 Table 2: key0Master and the note's UID ‖ AID ‖ system identifier give A8DD63A3B89D54B37CA802473FDA9175")
    func publishedExample() throws {
        let keys = try NTAG424DiversifiedKeys(try NTAG424KeyFile(text: Self.file))
        #expect(try keys.input(uid: hexBytes("04782E21801D80")) == hexBytes("04782E21801D803042F54E585020416275"))
        let tag = try keys.keys(forUID: hexBytes("04782E21801D80"))
        #expect(tag.key("key0") == hexBytes("A8DD63A3B89D54B37CA802473FDA9175"))
        #expect(tag.key("sdmMetaRead") == hexBytes("0102030405060708090A0B0C0D0E0F10"))
        #expect(tag.key("sdmFileRead") != nil && tag.key("sdmFileRead") != hexBytes("1112131415161718191A1B1C1D1E1F20"))
        #expect(try keys.keys(forUID: hexBytes("04782E21801D81")).key("key0") != tag.key("key0"))
        #expect(keys.diversifiedNames == ["key0", "sdmFileRead"])
    }

    @Test("a master file is told from a plain one; the rules: no sdmMetaReadMaster, no master and plain of one key, no key twice, a 7-byte UID")
    func rules() throws {
        #expect(NTAG424DiversifiedKeys.isDiversifying(try NTAG424KeyFile(text: Self.file)))
        #expect(!NTAG424DiversifiedKeys.isDiversifying(try NTAG424KeyFile(text: "sdmFileRead = 1112131415161718191A1B1C1D1E1F20")))
        for text in [
            "key0Master = 00112233445566778899AABBCCDDEEFF;sdmMetaReadMaster = 0102030405060708090A0B0C0D0E0F10",
            "key0Master = 00112233445566778899AABBCCDDEEFF;key0 = 0102030405060708090A0B0C0D0E0F10",
            "key0Master = 00112233445566778899AABBCCDDEEFF;sdmFileReadMaster = 00112233445566778899AABBCCDDEEFF",
            "key9Master = 00112233445566778899AABBCCDDEEFF",
            "sdmMetaRead = 0102030405060708090A0B0C0D0E0F10",
        ] {
            let error = #expect(throws: NTAG424Error.self) { try NTAG424DiversifiedKeys(try NTAG424KeyFile(text: text)) }
            #expect(error?.code == .invalidKey)
            #expect(error.map { !$0.description.contains("00112233") && !$0.description.contains("01020304") } ?? false)
        }
        // A system identifier is hex of 1 to 21 bytes; the error shows no digits.
        for bad in ["systemIdentifier = NXP", "systemIdentifier = 123", "systemIdentifier = \(String(repeating: "AB", count: 22))"] {
            #expect(throws: NTAG424Error.self) { try NTAG424KeyFile(text: bad) }
        }
        let keys = try NTAG424DiversifiedKeys(try NTAG424KeyFile(text: Self.file))
        #expect(throws: NTAG424Error.self) { try keys.keys(forUID: hexBytes("04782E21801D")) }
    }

    @Test("descriptions and identifiers name keys and fingerprints, never key digits")
    func redaction() throws {
        let keys = try NTAG424DiversifiedKeys(try NTAG424KeyFile(text: Self.file))
        let identifiers = try keys.identifiers()
        #expect(identifiers.map(\.name) == ["key0", "sdmFileRead", "sdmMetaRead"])
        #expect(identifiers.map(\.diversified) == [true, true, false])
        #expect(identifiers.allSatisfy { $0.fingerprint.count == 8 })
        let text = "\(keys) \(String(reflecting: keys)) \(identifiers) \(try keys.keys(forUID: hexBytes("04782E21801D80")))".uppercased()
        for digits in ["00112233445566778899", "1112131415161718", "0102030405060708", "A8DD63A3B89D54B3"] {
            #expect(!text.contains(digits))
        }
    }
}
