import NDEF
import NFCCore
import NFCCrypto
import NFCTags
import NFCTestSupport
import Testing

/// Secure Dynamic Messaging against NXP's published examples, value by value. Sources (AN12196
/// "NTAG 424 DNA and NTAG 424 DNA TagTamper features and hints", rev. 1.x section and table
/// numbers; rev. 2.0 numbers each one lower):
///
/// - §4.3 Table 2: session keys from a non-zero SDMFileReadKey (UID 04C767F2066180, counter 1);
/// - §4.4.2.1 Table 3 and the URL `https://ntag.nxp.com/424?e=EF963FF7828658A599F3041510671E88&c=94EED9EE65337086`:
///   encrypted PICC data with all-zero keys;
/// - Table 4: SDMENCFileData (PICC data FDE4AFA99B5C820A2C1BB0F1C792D0EB, IVe, 16 × `x`);
/// - §4.4.4.2.1 Table 5: the SDMMAC over a zero-length input (session key 3FB5F6E3…, MAC 94EED9EE65337086);
/// - §4.4.4.2.2 Table 6: the SDMMAC over `CEE9…8962&cmac=`, offsets 0x44/0x6A, the URL
///   `https://www.my424dna.com/?picc_data=FD91EC264309878BE6345CBE53BADF40&enc=CEE9A53E3E463EF1F459635736738962&cmac=ECC1E7F6C6C73BF6`;
/// - §6 Tables 15–16 and 18: the NDEF file `https://choose.url.com/ntag424?e=…&c=…` and its
///   ChangeFileSettings offsets 0x20/0x43/0x43, SDMOptions C1.
///
/// The rules the published values do not pin come from the NT4H2421Gx datasheet (rev. 3.0,
/// 9.3): SDMENCFileData encrypts the first half of its placeholder (9.3.6), SV2 holds only what
/// is mirrored, zero-padded (9.3.9.1), PICCDataTag bits 5–4 are RFU and the UID length is 0 when
/// the UID is not mirrored (Table 21), and the offset rules of 9.3.3, 9.3.5 and 9.3.7.
///
/// The plain-mirror example (UID 041E3C8A2D6B80, counter 6, MAC 4B00064004B0B3D3, all-zero
/// key) is not NXP's: it is the plain-SUN test vector of nfc-developer/sdm-backend
/// (`tests/test_libsdm.py`, `test_plain_sdm`), an independent implementation. AN12196 §4.4.1's
/// own plain URL (`…uid=04C767F2066180&ctr=000001&c=54A45B2C3A558765`) gives no key it was
/// made with, so it cannot be checked.
@Suite("NTAG 424 DNA Secure Dynamic Messaging against AN12196", .timeLimit(.minutes(1)))
struct NTAG424SDMTests {
    let zero = Bytes([UInt8](repeating: 0, count: 16))
    var zeroKeys: SDMKeys { get throws { try SDMKeys(metaRead: zero, fileRead: zero) } }

    @Test("AN12196 Table 2: SV1, SV2 and both session keys from SDMFileReadKey 5ACE7E50…")
    func sessionKeysTable2() throws {
        let picc = try SDMPICCData(uid: hexBytes("04C767F2066180"), readCounter: 1)
        #expect(picc.counterBytesLSBFirst == hex("010000"))
        #expect(picc.sessionVector(prefix: NTAG424SDM.sessionVector1Prefix) == hexBytes("C33C0001008004C767F2066180010000"))
        #expect(picc.sessionVector(prefix: NTAG424SDM.sessionVector2Prefix) == hexBytes("3CC30001008004C767F2066180010000"))
        let keys = try SDMSessionKeys(fileReadKey: hexBytes("5ACE7E50AB65D5D51FD5BF5A16B8205B"), picc: picc)
        #expect(keys.encryption == hexBytes("66DA61797E23DECA5D8ECA13BBADF7A9"))
        #expect(keys.mac == hexBytes("3A3E8110E05311F7A3FCF0D969BF2B48"))
        #expect(!"\(keys)".contains("3A3E"), "session keys are never printed")
    }

    @Test("AN12196 Table 3: the PICC data decrypts to C704DE5F1EACC0403D0000DA5CF60941, and encrypting it gives the published ciphertext back")
    func piccDataTable3() throws {
        let picc = try SDMPICCData.decrypt(hexBytes("EF963FF7828658A599F3041510671E88"), metaReadKey: zero)
        #expect(picc.uid == hexBytes("04DE5F1EACC040"))
        #expect(picc.readCounter == 61)
        #expect(picc.tag == 0xC7)
        #expect(try picc.plaintext(padding: hex("DA5CF60941")) == hexBytes("C704DE5F1EACC0403D0000DA5CF60941"))
        #expect(try picc.encrypted(metaReadKey: zero, padding: hex("DA5CF60941")) == hexBytes("EF963FF7828658A599F3041510671E88"))
    }

    @Test("AN12196 Table 5: KSesSDMFileReadMAC 3FB5F6E3… and the SDMMAC of a zero-length input, 94EED9EE65337086")
    func macTable5() throws {
        let picc = try SDMPICCData(uid: hexBytes("04DE5F1EACC040"), readCounter: 61)
        #expect(picc.sessionVector(prefix: NTAG424SDM.sessionVector2Prefix) == hexBytes("3CC30001008004DE5F1EACC0403D0000"))
        #expect(try SDMSessionKeys(fileReadKey: zero, picc: picc).mac == hexBytes("3FB5F6E3A807A03D5E3570ACE393776F"))
        #expect(try SDMMAC.compute(fileReadKey: zero, picc: picc, input: Bytes()) == hexBytes("94EED9EE65337086"))
        #expect(try SDMMAC.verify(hexBytes("94EED9EE65337086"), fileReadKey: zero, picc: picc, input: Bytes()))
        #expect(try !SDMMAC.verify(hexBytes("94EED9EE65337087"), fileReadKey: zero, picc: picc, input: Bytes()))
        // The other truncations the note warns about are not it.
        let full = try SDMMAC.full(sessionKey: hexBytes("3FB5F6E3A807A03D5E3570ACE393776F"), input: Bytes())
        #expect(Bytes(full.prefix(8)) != hexBytes("94EED9EE65337086"))
    }

    @Test("AN12196 Table 4: SDMENCFileData, KSesSDMFileReadENC 8097D733…, IVe 7B3F3CFC…, decrypts to 16 × 'x' and back")
    func encryptedFileDataTable4() throws {
        let picc = try SDMPICCData.decrypt(hexBytes("FDE4AFA99B5C820A2C1BB0F1C792D0EB"), metaReadKey: zero)
        #expect(picc.uid == hexBytes("04958CAA5C5E80"))
        #expect(picc.readCounter == 1)
        let keys = try SDMSessionKeys(fileReadKey: zero, picc: picc)
        #expect(keys.encryption == hexBytes("8097D73344D53F963B09E23E03B62336"))
        #expect(try SDMFileDataCipher.iv(sessionKeys: keys, picc: picc) == hexBytes("7B3F3CFC39D3B7FF5868636E38AF7C3A"))
        let plain = try SDMFileDataCipher.decrypt(hexBytes("94592FDE69FA06E8E3B6CA686A22842B"), fileReadKey: zero, picc: picc)
        #expect(plain == Bytes(utf8: "xxxxxxxxxxxxxxxx"))
        #expect(try SDMFileDataCipher.encrypt(plain, fileReadKey: zero, picc: picc) == hexBytes("94592FDE69FA06E8E3B6CA686A22842B"))
    }

    @Test("AN12196 Table 6: KSesSDMFileReadMAC 3ED0920E… and the SDMMAC ECC1E7F6C6C73BF6 over 'CEE9…8962&cmac='")
    func macWithInputTable6() throws {
        let picc = try SDMPICCData.decrypt(hexBytes("FD91EC264309878BE6345CBE53BADF40"), metaReadKey: zero)
        #expect(picc.uid == hexBytes("04958CAA5C5E80"))
        #expect(picc.readCounter == 8)
        #expect(try SDMSessionKeys(fileReadKey: zero, picc: picc).mac == hexBytes("3ED0920E5E6A0320D823D5987FEAFBB1"))
        let input = Bytes(utf8: "CEE9A53E3E463EF1F459635736738962&cmac=")
        #expect(try SDMMAC.compute(fileReadKey: zero, picc: picc, input: input) == hexBytes("ECC1E7F6C6C73BF6"))
    }

    @Test("the published example URL verifies: UID 04DE5F1EACC040, counter 61")
    func verifyPublishedURL() throws {
        let tap = try SUNVerifier.verify(url: "https://ntag.nxp.com/424?e=EF963FF7828658A599F3041510671E88&c=94EED9EE65337086", keys: try zeroKeys)
        #expect(tap.uid == hexBytes("04DE5F1EACC040"))
        #expect(tap.readCounter == 61)
        #expect(tap.encryptedPICCData)
        #expect(tap.fileData == nil)
        // Lower-case hex is the same value.
        let lower = try SUNVerifier.verify(url: "https://ntag.nxp.com/424?e=ef963ff7828658a599f3041510671e88&c=94eed9ee65337086", keys: try zeroKeys)
        #expect(lower.readCounter == 61)
    }

    @Test("every single changed character of the published URL's parameters is refused")
    func oneCharacterChanged() throws {
        let text = "https://ntag.nxp.com/424?e=EF963FF7828658A599F3041510671E88&c=94EED9EE65337086"
        let url = Array(text.utf8)
        let piccValue = 27..<59
        let macValue = 62..<78
        #expect(String(decoding: url[piccValue], as: UTF8.self) == "EF963FF7828658A599F3041510671E88")
        #expect(String(decoding: url[macValue], as: UTF8.self) == "94EED9EE65337086")
        var refused = 0
        for index in Array(piccValue) + Array(macValue) {
            var altered = url
            altered[index] = altered[index] == UInt8(ascii: "0") ? UInt8(ascii: "1") : UInt8(ascii: "0")
            #expect(throws: NTAG424Error.self, "changed at \(index)") {
                _ = try SUNVerifier.verify(url: String(decoding: altered, as: UTF8.self), keys: try zeroKeys)
            }
            refused += 1
        }
        #expect(refused >= 48)
        // The MAC check itself, named: the last MAC digit changed.
        var altered = url
        altered[url.count - 1] = UInt8(ascii: "7")
        let error = try #require(throws: NTAG424Error.self) {
            _ = try SUNVerifier.verify(url: String(decoding: altered, as: UTF8.self), keys: try zeroKeys)
        }
        #expect(error.code == .macMismatch)
        #expect(error.offset == url.count - 16)
        // The right URL with the wrong keys is refused too.
        let wrong = try SDMKeys(metaRead: zero, fileRead: Bytes([UInt8](repeating: 1, count: 16)))
        #expect(throws: NTAG424Error.self) { _ = try SUNVerifier.verify(url: String(decoding: url, as: UTF8.self), keys: wrong) }
    }

    @Test("Table 6's URL verifies with its SDMENCFileData: UID 04958CAA5C5E80, counter 8, 16 × 'x'")
    func verifyTable6URL() throws {
        let names = SUNParameterNames(picc: "picc_data", mac: "cmac", encryptedFileData: "enc")
        let url = "https://www.my424dna.com/?picc_data=FD91EC264309878BE6345CBE53BADF40&enc=CEE9A53E3E463EF1F459635736738962&cmac=ECC1E7F6C6C73BF6"
        let tap = try SUNVerifier.verify(url: url, names: names, keys: try zeroKeys)
        #expect(tap.uid == hexBytes("04958CAA5C5E80"))
        #expect(tap.readCounter == 8)
        #expect(tap.fileData == Bytes(utf8: "xxxxxxxxxxxxxxxx"))
        let altered = url.replacingOccurrences(of: "enc=CEE9", with: "enc=CEE8")
        #expect(throws: NTAG424Error.self) { _ = try SUNVerifier.verify(url: altered, names: names, keys: try zeroKeys) }
    }

    @Test("plain mirroring (sdm-backend's vector): UID 041E3C8A2D6B80, counter 000006, MAC 4B00064004B0B3D3")
    func plainMirror() throws {
        let keys = try SDMKeys(metaRead: nil, fileRead: zero)
        let tap = try SUNVerifier.verify(url: "https://sdm.example/tag?uid=041E3C8A2D6B80&ctr=000006&c=4B00064004B0B3D3", keys: keys)
        #expect(tap.uid == hexBytes("041E3C8A2D6B80"))
        #expect(tap.readCounter == 6)
        #expect(!tap.encryptedPICCData)
        #expect(throws: NTAG424Error.self) {
            _ = try SUNVerifier.verify(url: "https://sdm.example/tag?uid=041E3C8A2D6B80&ctr=000007&c=4B00064004B0B3D3", keys: keys)
        }
    }

    @Test("AN12196 §6 Tables 15–16 and 18: the NDEF file of choose.url.com/ntag424?e=…&c=… and offsets 0x20/0x43/0x43")
    func personalizationTemplate() throws {
        let template = try SDMURLTemplate("https://choose.url.com/ntag424?e={sun:picc}&c={sun:mac}")
        let expected = hex("0051D1014D5504") + Array("choose.url.com/ntag424?e=".utf8) + [UInt8](repeating: 0x30, count: 32)
            + Array("&c=".utf8) + [UInt8](repeating: 0x30, count: 16)
        #expect(template.file == expected)
        #expect(template.layout.piccDataOffset == 0x20)
        #expect(template.layout.macInputOffset == 0x43)
        #expect(template.layout.macOffset == 0x43)
        #expect(template.layout.sdmOptions == 0xC1)
        #expect(template.layout.uidOffset == nil && template.layout.counterOffset == nil)
    }

    @Test("Table 6's layout: the offsets 0x44 (MAC input, SDMENCOffset) and 0x6A (MAC), and a read reproduces the published URL")
    func table6Template() throws {
        let template = try SDMURLTemplate("https://www.my424dna.com/?picc_data={sun:picc}&enc={sun:enc:xxxxxxxxxxxxxxxx}&cmac={sun:mac}")
        #expect(template.file[6] == 0x02)  // "https://www." abbreviated
        #expect(template.layout.piccDataOffset == 0x1F)
        #expect(template.layout.macInputOffset == 0x44)
        #expect(template.layout.encryptedFileData == SDMLayout.Range(offset: 0x44, length: 32))
        #expect(template.layout.macOffset == 0x6A)
        #expect(template.layout.sdmOptions == 0xD1)
        // The chip's random padding, read out of the published PICC data.
        let plain = try decryptBlock(hexBytes("FD91EC264309878BE6345CBE53BADF40"))
        let read = try template.layout.mirror(
            file: template.file, uid: hexBytes("04958CAA5C5E80"), counter: 8, keys: try zeroKeys, padding: Array(plain[11...]))
        let url = try #require(try NDEFMessage(bytes: Array(read[2...])).records.first?.wellKnownTypeURIPayload())
        #expect(url == "https://www.my424dna.com/?picc_data=FD91EC264309878BE6345CBE53BADF40&enc=CEE9A53E3E463EF1F459635736738962&cmac=ECC1E7F6C6C73BF6")
    }

    @Test("a virtual read of the AN12196 template reproduces the published URL from UID 04DE5F1EACC040, counter 61")
    func generatePublishedURL() throws {
        let template = try SDMURLTemplate("https://ntag.nxp.com/424?e={sun:picc}&c={sun:mac}")
        let read = try template.layout.mirror(
            file: template.file, uid: hexBytes("04DE5F1EACC040"), counter: 61, keys: try zeroKeys, padding: hex("DA5CF60941"))
        let url = try #require(try NDEFMessage(bytes: Array(read[2...])).records.first?.wellKnownTypeURIPayload())
        #expect(url == "https://ntag.nxp.com/424?e=EF963FF7828658A599F3041510671E88&c=94EED9EE65337086")
        // A file shorter than the mirrors, and keys the layout needs but lacks, are typed errors.
        let short = #expect(throws: NTAG424Error.self) {
            _ = try template.layout.mirror(file: Array(template.file.prefix(40)), uid: hexBytes("04DE5F1EACC040"), counter: 61, keys: try zeroKeys, padding: hex("DA5CF60941"))
        }
        #expect(short?.code == .invalidLength)
        let noMetaRead = #expect(throws: NTAG424Error.self) {
            _ = try template.layout.mirror(file: template.file, uid: hexBytes("04DE5F1EACC040"), counter: 61,
                                           keys: try SDMKeys(metaRead: nil, fileRead: zero), padding: hex("DA5CF60941"))
        }
        #expect(noMetaRead?.code == .invalidKey)
    }

    @Test("plain placeholders: a virtual read verifies, and the counter is written most significant byte first")
    func plainTemplate() throws {
        let template = try SDMURLTemplate("https://ex.io/t?uid={sun:uid}&ctr={sun:counter}&c={sun:mac}")
        #expect(template.layout.sdmOptions == 0xC1)
        #expect(!template.layout.encryptsPICCData)
        let keys = try SDMKeys(metaRead: nil, fileRead: zero)
        let read = try template.layout.mirror(file: template.file, uid: hexBytes("041E3C8A2D6B80"), counter: 6, keys: keys, padding: [])
        let url = try #require(try NDEFMessage(bytes: Array(read[2...])).records.first?.wellKnownTypeURIPayload())
        #expect(url == "https://ex.io/t?uid=041E3C8A2D6B80&ctr=000006&c=4B00064004B0B3D3")
    }

    @Test("malformed placeholders are refused with the offset of the placeholder", arguments: [
        ("https://ex.io/?e={sun:picc}", 17),  // no MAC
        ("https://ex.io/?e={sun:serial}&c={sun:mac}", 17),
        ("https://ex.io/?e={sun:picc}&f={sun:picc}&c={sun:mac}", 30),
        ("https://ex.io/?e={sun:picc&c=1", 17),
        ("https://ex.io/?e={sun:enc:short}&u={sun:uid}&c={sun:mac}", 17),
        ("https://ex.io/?e={sun:mac:1}&u={sun:uid}", 17),
    ])
    func malformedPlaceholders(url: String, offset: Int) {
        let error = #expect(throws: NTAG424Error.self) { _ = try SDMURLTemplate(url) }
        #expect(error?.code == .invalidPlaceholder)
        #expect(error?.offset == offset)
    }

    @Test("placeholder sets the chip cannot mirror are refused", arguments: [
        "https://ex.io/?c={sun:mac}",
        "https://ex.io/?e={sun:picc}&u={sun:uid}&c={sun:mac}",
        "https://ex.io/?c={sun:mac}&e={sun:enc:xxxxxxxxxxxxxxxx}&u={sun:uid}",
    ])
    func refusedSets(url: String) {
        #expect(throws: NTAG424Error.self) { _ = try SDMURLTemplate(url) }
    }

    @Test("a file larger than the chip's, and mirrors past its end, are refused before anything is written")
    func tooLong() throws {
        let long = "https://ex.io/" + String(repeating: "a", count: 200) + "?e={sun:picc}&c={sun:mac}"
        let error = #expect(throws: NTAG424Error.self) { _ = try SDMURLTemplate(long) }
        #expect(error?.code == .illegalLayout)
        #expect(throws: NTAG424Error.self) { _ = try SDMURLTemplate("https://ex.io/?e={sun:picc}&c={sun:mac}", fileSize: 60) }
    }

    @Test("layout rules: order, overlap, lengths, exclusive modes")
    func layoutRules() {
        func refused(_ reason: Comment, _ make: () throws -> SDMLayout) {
            do {
                _ = try make()
                Issue.record("accepted: \(reason)")
            } catch let error as NTAG424Error {
                #expect(error.code == .illegalLayout, reason)
            } catch {
                Issue.record("\(error)")
            }
        }
        refused("MAC input after the MAC") { try SDMLayout(mirrorsUID: true, mirrorsCounter: true, piccDataOffset: 10, macInputOffset: 50, macOffset: 40) }
        refused("MAC over the PICC data") { try SDMLayout(mirrorsUID: true, mirrorsCounter: true, piccDataOffset: 10, macInputOffset: 30, macOffset: 30) }
        refused("encrypted and plain at once") { try SDMLayout(mirrorsUID: true, mirrorsCounter: false, piccDataOffset: 10, uidOffset: 60) }
        refused("UID past the file's end") { try SDMLayout(mirrorsUID: true, mirrorsCounter: false, uidOffset: 250) }
        refused("UID mirror without an offset") { try SDMLayout(mirrorsUID: true, mirrorsCounter: false) }
        refused("SDMENCLength not a multiple of 32") {
            try SDMLayout(mirrorsUID: true, mirrorsCounter: true, piccDataOffset: 10, macInputOffset: 42, macOffset: 100,
                          encryptedFileData: SDMLayout.Range(offset: 42, length: 16))
        }
        refused("SDMENCFileData running into the MAC") {
            try SDMLayout(mirrorsUID: true, mirrorsCounter: true, piccDataOffset: 10, macInputOffset: 42, macOffset: 60,
                          encryptedFileData: SDMLayout.Range(offset: 42, length: 32))
        }
        refused("SDMENCFileData without the counter") {
            try SDMLayout(mirrorsUID: true, mirrorsCounter: false, uidOffset: 10, macInputOffset: 42, macOffset: 100,
                          encryptedFileData: SDMLayout.Range(offset: 42, length: 32))
        }
        #expect(throws: Never.self) {
            try SDMLayout(mirrorsUID: true, mirrorsCounter: true, piccDataOffset: 0x20, macInputOffset: 0x43, macOffset: 0x43)
        }
        #expect(NTAG424SDM.threeBytesLSBFirst(0x43) == [0x43, 0x00, 0x00])
    }

    @Test("URL parsers are total: bad hex, wrong lengths and missing or repeated parameters are typed errors naming the offset", arguments: [
        ("https://x/?e=EF963FF7828658A599F3041510671E8G&c=94EED9EE65337086", NTAG424Error.Code.invalidHex, 44),
        ("https://x/?e=EF963FF7828658A599F3041510671E88&c=94EED9EE6533708", .invalidLength, 48),
        ("https://x/?e=EF963FF7828658A599F3041510671E&c=94EED9EE65337086", .invalidLength, 13),
        ("https://x/?e=EF963FF7828658A599F3041510671E88", .missingParameter, nil),
        ("https://x/?c=94EED9EE65337086", .missingParameter, nil),
        ("https://x/e=EF963FF7828658A599F3041510671E88", .missingParameter, nil),
        ("https://x/?e=EF963FF7828658A599F3041510671E88&c=94EED9EE65337086&c=94EED9EE65337086", .duplicateParameter, 65),
        ("https://x/?e=EF96 FF7828658A599F3041510671E88&c=94EED9EE65337086", .invalidHex, 17),
        ("https://x/?e=00000000000000000000000000000000&c=94EED9EE65337086", .unsupportedPICCData, 13),
        ("", .missingParameter, nil),
    ] as [(String, NTAG424Error.Code, Int?)])
    func totalParsers(url: String, code: NTAG424Error.Code, offset: Int?) throws {
        let error = #expect(throws: NTAG424Error.self) { _ = try SUNVerifier.verify(url: url, keys: try zeroKeys) }
        #expect(error?.code == code)
        #expect(error?.offset == offset)
    }

    @Test("5,000 mangled versions of the published URL: each is a typed error or the original tap, never a crash or another tap")
    func mangledURLs() throws {
        let original = Array("https://ntag.nxp.com/424?e=EF963FF7828658A599F3041510671E88&c=94EED9EE65337086".utf8)
        let alphabet = Array("0123456789ABCDEFabcdef&=?#ce%\u{00}".utf8) + [0xC3, 0xA9, 0xFF]
        var generator = SeededGenerator(seed: 0x5D4)
        let keys = try zeroKeys
        var accepted = 0
        for _ in 0..<5_000 {
            var url = original
            for _ in 0..<Int.random(in: 1...4, using: &generator) {
                let at = Int.random(in: 0..<max(url.count, 1), using: &generator)
                switch Int.random(in: 0..<4, using: &generator) {
                case 0 where !url.isEmpty: url[at] = alphabet.randomElement(using: &generator)!
                case 1 where !url.isEmpty: url.remove(at: at)
                case 2: url.insert(alphabet.randomElement(using: &generator)!, at: min(at, url.count))
                default: url = Array(url.prefix(at))
                }
            }
            // As text (an invalid UTF-8 byte becomes U+FFFD): offsets count its UTF-8 bytes.
            let text = String(decoding: url, as: UTF8.self)
            do {
                let tap = try SUNVerifier.verify(url: text, keys: keys)
                // Only a URL that still carries the original parameters may pass (e.g. a changed host).
                #expect(tap.uid == hexBytes("04DE5F1EACC040") && tap.readCounter == 61)
                accepted += 1
            } catch {
                #expect(error.offset.map { $0 >= 0 && $0 <= text.utf8.count } ?? true, "\(error) in \(text)")
            }
        }
        #expect(accepted < 5_000)
    }

    @Test("keys: wrong lengths refused, never printed")
    func keys() throws {
        #expect(throws: NTAG424Error.self) { _ = try SDMKeys(metaRead: Bytes([1, 2, 3]), fileRead: nil) }
        let keys = try SDMKeys(metaRead: hexBytes("5ACE7E50AB65D5D51FD5BF5A16B8205B"), fileRead: hexBytes("5ACE7E50AB65D5D51FD5BF5A16B8205B"))
        var dumped = ""
        dump(keys, to: &dumped)
        for text in ["\(keys)", String(reflecting: keys), dumped] {
            #expect(!text.uppercased().contains("5ACE"), "\(text)")
        }
    }

    @Test("PICC data round-trips for every tag shape, and a decrypted block with reserved bits is refused")
    func piccShapes() throws {
        for (uid, counter) in [(hexBytes("04DE5F1EACC040"), UInt32?(61)), (hexBytes("04DE5F1EACC040"), nil), (nil, UInt32?(0xFFFFFF))] {
            let picc = try SDMPICCData(uid: uid, readCounter: counter)
            let encrypted = try picc.encrypted(metaReadKey: zero, padding: [UInt8](repeating: 0xA5, count: 16))
            #expect(try SDMPICCData.decrypt(encrypted, metaReadKey: zero) == picc)
        }
        let error = #expect(throws: NTAG424Error.self) { _ = try SDMPICCData(plaintext: hexBytes("F704DE5F1EACC0403D0000DA5CF60941")) }
        #expect(error?.code == .unsupportedPICCData)
        #expect(throws: NTAG424Error.self) { _ = try SDMPICCData(uid: hexBytes("04DE5F1E"), readCounter: nil) }
        #expect(throws: NTAG424Error.self) { _ = try SDMPICCData(uid: nil, readCounter: 0x1000000) }
    }

    /// One AES block decrypted under the zero key (the PICC data's plaintext, padding included).
    func decryptBlock(_ block: Bytes) throws -> [UInt8] {
        try AES128.decryptCBC(key: zero, iv: zero, block).array
    }
}
