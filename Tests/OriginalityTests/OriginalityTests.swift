import Foundation
import NFCCore
import NFCCrypto
import NFCTags
import NFCTestSupport
import Originality
import Testing
import VirtualTags

/// Real (UID, signature) pairs read from NXP chips, published in Proxmark3's
/// `tools/recover_pk.py` self-tests (RfidResearchGroup/proxmark3), by the key they belong to.
enum RealChips {
    static let pairs: [(key: String, uid: String, signature: String)] = [
        ("NXP NTAG21x", "04E10CDA993C80", "8B76052EE42F5567BEB53238B3E3F9950707C0DCC956B5C5EFCFDB709B2D82B3"),
        ("NXP NTAG21x", "04DB0BDA993C80", "6048EFD9417CD10F6B7F1818D471A7FE5B46868D2EABDC6307A1E0AAE139D8D0"),
        ("NXP MIFARE Ultralight EV1", "04C1285A373080", "CEA2EB0B3C95D0844A95B824A7553703B3702378033BF0987899DB70151A19E7"),
        ("NXP MIFARE Ultralight EV1", "04C2285A373080", "A561506723D422D29ED9F93E60D20B9ED1E05CC1BF81DA19FE500CA0B81CC0ED"),
        ("NXP MIFARE Classic EV1", "0433619AB35780", "B9FAE369EC21C980650D87ED9AE9B1610E859131B4B8699C647548AB68D249BB"),
        ("NXP MIFARE Classic EV1", "524374E2", "F8758CE30A58553A9985C458FB9C7D340FCFB04847B928A0667939272BC58B5E"),
        // ICODE: the UID as users read it, E0 04 01 …; the chip signs it least significant byte first.
        ("NXP ICODE SLIX2/DNA", "E0040118009B5FEE", "32D9E7579CD77E6F1FA11419231E874826984C5F189FDE1421684563A9663377"),
        ("NXP ICODE SLIX2/DNA", "E00401082AD28E83", "CAE8183CB4823C765AFDEB78C9D66C959990FD52A5820E76E1D6E025D76EAD79"),
        ("NXP NTAG 424 DNA", "0463474AA26A80",
         "27E9A50E6CA4BA9037C02F7D20A80D0284D0C1D83C67F5A5AC1D8A4EF86C9508417E4E9C6F85AA7920F0ABDED984CAF20467D66EA54BBF08"),
        ("NXP NTAG 424 DNA", "04C46C222A6380",
         "344A806EBF704C05C19215D2F840529CE365AAD2D08A469A95896D75D477D9FAB02A0C827E9F215BD8EB0E56A3A9A008FB75D706AABBD4DA"),
        ("NXP MIFARE DESFire EV2", "042A41CAE45380",
         "B2769F8DDB575AEA2A680ADCA8FFED4FAB81A1E9908E2B82FE0FABB697BBD9B23835C416970E75768F12902ACA491349E94E6589EAF4F508"),
        ("NXP MIFARE DESFire EV3", "04448BD2DB6B80",
         "5CBB5632795C8F15263FEFB095B51C7B541AFD914A1AE44EF6FB8AF605EDF13DBFEE6C3A2DB372245E671DFE0D42CB1F0D0B8FE67A89D2F6"),
        ("NXP MIFARE DESFire Light", "0439556ACB6480",
         "D5BD0978106E1E38B513642335966AB21E9F950DCFCFAB45FF13D0DC3CA4C2AE7E0D671DF1240937D040DAC4601C5F66ED62C546EE03ED08"),
        // tools/recover_pk.py self-tests "NTAG413DNA", "DESFire EV2 XL", "Mifare Plus EV1".
        ("NXP NTAG 413 DNA / MIFARE DESFire EV1", "042468222F5C80",
         "B9211E320F321BD1D0E158E10FF15109B389638BAE15D9909D7725BF1250ED236D66F1AF75C94D60330E4E92535F5E6997675281A5687173"),
        ("NXP NTAG 413 DNA / MIFARE DESFire EV1", "042938222F5C80",
         "18B642797D1FD71806146A7A6EC778D3FDD04F39C4A3B36A592BD1A114DC44E5528380FA766C0B7EA32B284AFBE84300B620369F0686D8CC"),
        ("NXP MIFARE DESFire EV2 XL", "044CA092806480",
         "9D86DACD3866058B1CF122FF5FC80E997251D99179BC1F996ACF6ED7D495DA5C39DDE699E2760C08D747EF08487B9897D48957E5AFD755E2"),
        ("NXP MIFARE DESFire EV2 XL", "045793D28A6380",
         "E509576A484B4F93B5B97FFA04CB297CAE97CFF1071BDEFD23D5054513E3036203FDD1CDD2CDEAD0AEAD88DF24FFE7CDAAFEE1E58A55A745"),
        // tools/recover_pk.py self-tests "MIFARE Ultralight AES" and its "Vingcard alt key": 48-byte
        // signatures on secp192r1 (prime192v1).
        ("NXP MIFARE Ultralight AES", "045E4CC2451390",
         "C9BBDA1B99EB6634CDFD8E3251AC5C4742EA5FA507B8A8A8B39B19AB7340D173331589C54C56C49F0CCA6DDBAC1E492A"),
        ("NXP MIFARE Ultralight AES", "043F88C2451390",
         "5C2055A7373F119C3FDD9843020B06AA0E6DE18C16496C425C4AD971A50F05FA1A67B9E39CA60C355EEEEBF8214A84A5"),
        ("NXP MIFARE Ultralight AES (second key)", "04A31232241C90",
         "057595DCC601CA7E21341F1F978FA134F0204D87A33749C56DDB4ABD6F1F26194341DB10093B34C42F524A30DCC5CE54"),
        ("NXP MIFARE Ultralight AES (second key)", "041BC1D2F31B90",
         "FB5CF8F1B3CC39984BCA54A50FCF47ACFDC8C969010C1F4599554AF9A8E4F2B8371524855E45AD7EE71179A660D27667"),
        ("NXP MIFARE Plus EV1", "042A2B221C5080",
         "BAC40CD88E9193C58ADA5055350C4F648EB5A7AEC4FCF9BD4CDD7B1C558DE5F59C6636F26286ED48622AAA2331D4DF1CEE23B57B94BDA631"),
    ]
}

@Suite("NXP originality signatures", .timeLimit(.minutes(2)))
struct OriginalityTests {
    @Test("every key in the table is a point of its curve")
    func tableKeysAreValid() throws {
        for key in OriginalityKey.nxp {
            _ = try ECPublicKey(curve: key.curve, hex: key.publicPoint)
            #expect(!key.source.isEmpty)
        }
        #expect(Set(OriginalityKey.nxp.map(\.name)).count == OriginalityKey.nxp.count)
    }

    @Test("every key in the table accepts real chips' signatures, and names the right key")
    func realPairs() throws {
        let verifier = OriginalityVerifier()
        for pair in RealChips.pairs {
            let verdict = verifier.verify(uid: hexBytes(pair.uid), signature: hexBytes(pair.signature))
            #expect(verdict.key?.name == pair.key, "\(pair.uid)")
        }
        // Every key of the table is exercised by at least one real chip.
        #expect(Set(RealChips.pairs.map(\.key)) == Set(OriginalityKey.nxp.map(\.name)))
    }

    @Test("an altered UID or signature is not genuine")
    func alteredPairs() throws {
        let verifier = OriginalityVerifier()
        for pair in RealChips.pairs {
            var uid = try Hex.decode(pair.uid)
            uid[uid.count - 1] ^= 0x01
            #expect(verifier.verify(uid: Bytes(uid), signature: hexBytes(pair.signature)) == .notGenuine)
            var signature = try Hex.decode(pair.signature)
            signature[3] ^= 0x10
            #expect(verifier.verify(uid: hexBytes(pair.uid), signature: Bytes(signature)) == .notGenuine)
        }
        #expect(verifier.verify(uid: hexBytes("04E10CDA993C80"), signature: Bytes([UInt8](repeating: 0, count: 32))) == .notGenuine)
        #expect(verifier.verify(uid: hexBytes("04E10CDA993C80"), signature: Bytes([1, 2, 3])) == .notGenuine)
        #expect(verifier.verify(uid: hexBytes("04E10CDA993C80"), signature: Bytes()).isGenuine == nil)
    }

    /// A virtual tag with the given signature in the in-process simulator, checked.
    func check(_ connection: String, keys: [OriginalityKey] = OriginalityKey.nxp) async throws -> OriginalityReport {
        let reader = try SimulatorConfiguration.makeReader(connection)
        let found = try await reader.poll(for: [.iso14443A, .iso15693], timeout: .seconds(2))
        let target = try #require(found)
        let tag = try await NFCTag.connect(to: target, on: reader)
        return await OriginalityVerifier(keys: keys).check(tag)
    }

    @Test("a virtual NTAG215 presenting a real chip's UID and signature reads as genuine; the stand-in does not")
    func virtualNTAG() async throws {
        let pair = RealChips.pairs[0]
        let genuine = try await check("sim:ntag215?uid=\(pair.uid)&signature=\(pair.signature)")
        #expect(genuine.verdict.key?.name == "NXP NTAG21x")
        #expect(genuine.signature == (hexBytes(pair.signature)))
        let counterfeit = try await check("sim:ntag215?uid=\(pair.uid)")
        #expect(counterfeit.verdict == .notGenuine)
        // A real signature copied onto another UID (a cloned sticker) is refused.
        let cloned = try await check("sim:ntag215?uid=04E10CDA993C81&signature=\(pair.signature)")
        #expect(cloned.verdict == .notGenuine)
    }

    @Test("a virtual SLIX2 answers READ SIGNATURE: a real ICODE pair is genuine, the stand-in is not")
    func virtualSLIX2() async throws {
        let pair = RealChips.pairs[6]
        let genuine = try await check("sim:slix2?uid=\(pair.uid)&signature=\(pair.signature)")
        #expect(genuine.verdict.key?.name == "NXP ICODE SLIX2/DNA")
        let counterfeit = try await check("sim:slix2?uid=\(pair.uid)")
        #expect(counterfeit.verdict == .notGenuine)
    }

    @Test("tags signed by a key made by openssl are genuine under that key only", OpenSSLTestKey.tool.trait)
    func testKeySignedTags() async throws {
        let testKey = try await OpenSSLTestKey.generate(curve: "secp128r1")
        let point = Hex.encode(testKey.publicPoint, uppercase: true)
        let key = OriginalityKey(name: "test maker", curve: .secp128r1, publicPoint: point, source: "generated by the test")
        let uid: [UInt8] = [0x04, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66]
        let signature = try ECDSA.rawSignature(der: Bytes(try await testKey.signDER(uid)), curve: .secp128r1)
        let connection = "sim:ultralight?uid=\(Hex.encode(uid))&signature=\(Hex.encode(signature))"
        #expect(try await check(connection, keys: [key]).verdict == .genuine(key))
        #expect(try await check(connection).verdict == .notGenuine)
    }

    @Test("a tag without READ_SIG, or of another platform, has no signature")
    func noSignature() async throws {
        #expect(try await check("sim:classic1k").verdict.isGenuine == nil)
    }

    @Test("the signature survives the tag file", OpenSSLTestKey.tool.trait)
    func tagFileKeepsSignature() async throws {
        let pair = RealChips.pairs[0]
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("sig-\(UUID().uuidString).json").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        _ = try await check("sim:ntag213?file=\(path)&uid=\(pair.uid)&signature=\(pair.signature)")
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.contains(pair.signature.lowercased()) || text.contains(pair.signature))
        #expect(try await check("sim:?file=\(path)").verdict.key?.name == "NXP NTAG21x")
    }
}

@Suite("Read_Sig on ISO-DEP chips", .timeLimit(.minutes(1)))
struct ISODEPSignatureTests {
    func check(_ connection: String, keys: [OriginalityKey] = OriginalityKey.nxp) async throws -> OriginalityReport {
        let reader = try SimulatorConfiguration.makeReader(connection)
        let target = try #require(try await reader.poll(for: [.iso14443A], timeout: .seconds(2)))
        return await OriginalityVerifier(keys: keys).check(try await NFCTag.connect(to: target, on: reader))
    }

    @Test("a virtual Type 4 tag answering Read_Sig with a real NTAG 424 DNA pair is genuine; another UID, or no Read_Sig, is not")
    func type4ReadSig() async throws {
        let pair = try #require(RealChips.pairs.first { $0.key == "NXP NTAG 424 DNA" })
        let genuine = try await check("sim:type4?uid=\(pair.uid)&signature=\(pair.signature)")
        #expect(genuine.verdict.key?.name == "NXP NTAG 424 DNA")
        #expect(genuine.signature?.count == 56)
        #expect(try await check("sim:type4").verdict.isGenuine == nil)
    }

    @Test("a chip whose model no key of the table covers (a Type 4 tag) with a signature no key accepts is unverified, never counterfeit; an NTAG 424 DNA with one is not genuine")
    func unverifiedWithoutKey() async throws {
        let pair = try #require(RealChips.pairs.first { $0.key == "NXP NTAG 424 DNA" })
        let type4 = try await check("sim:type4?uid=0463474AA26A81&signature=\(pair.signature)").verdict
        #expect(type4 == .unverified("no key in the table for the NFC Forum Type 4 tag"))
        #expect(type4.isGenuine == nil)
        #expect(type4.summary == "unverified (no key in the table for the NFC Forum Type 4 tag)")
        #expect(OriginalityKey.nxp.filter { $0.covers(model: "NTAG 424 DNA") }.count == 2)
        #expect(OriginalityKey.nxp.contains { $0.covers(model: "NTAG 413 DNA") })
        #expect(OriginalityKey.nxp.contains { $0.covers(model: "MIFARE DESFire EV2 XL") })
        #expect(!OriginalityKey.nxp.contains { $0.covers(model: "MIFARE Plus 2K") })
    }

    @Test("a virtual NTAG 424 DNA given a real chip's UID and Read_Sig signature is genuine (NXP NTAG 424 DNA key); another UID or the stand-in is not")
    func ntag424ReadSig() async throws {
        let pair = try #require(RealChips.pairs.first { $0.key == "NXP NTAG 424 DNA" })
        let genuine = try await check("sim:ntag424?uid=\(pair.uid)&signature=\(pair.signature)")
        #expect(genuine.verdict.key?.name == "NXP NTAG 424 DNA")
        #expect(try await check("sim:ntag424?uid=0463474AA26A81&signature=\(pair.signature)").verdict == .notGenuine)
        #expect(try await check("sim:ntag424").verdict == .notGenuine)
    }

    @Test("Read_Sig's APDU and answers: 90 3C 00 00 01 00 00; a tag without one answers 6E 00 (class not supported)")
    func readSigFraming() throws {
        let apdu = NXPNativeCommand.readSignatureAPDU
        #expect(apdu.instructionClass == 0x90 && apdu.instructionCode == 0x3C && apdu.data == [0x00])
        let tag = Type4VirtualTag(uid: [0x04, 1, 2, 3, 4, 5, 6])
        #expect(tag.respond(toAPDU: [0x90, 0x3C, 0x00, 0x00, 0x01, 0x00, 0x00]) == [0x6E, 0x00])
        tag.originalitySignature = [UInt8](repeating: 7, count: 56)
        #expect(tag.respond(toAPDU: [0x90, 0x3C, 0x00, 0x00, 0x01, 0x00, 0x00]) == [UInt8](repeating: 7, count: 56) + [0x91, 0x90])
        #expect(Type4VirtualTag(state: tag.tagState)?.originalitySignature == [UInt8](repeating: 7, count: 56))
    }

    @Test("virtual DESFire EV2 and EV3 answer Read_Sig: real chips' pairs are genuine under NXP's EV2 and EV3 keys; another UID or the stand-in is not; an EV1 has no Read_Sig")
    func desfireReadSig() async throws {
        for (model, key) in [("desfire-ev2", "NXP MIFARE DESFire EV2"), ("desfire-ev3", "NXP MIFARE DESFire EV3")] {
            let pair = try #require(RealChips.pairs.first { $0.key == key })
            let genuine = try await check("sim:\(model)?uid=\(pair.uid)&signature=\(pair.signature)")
            #expect(genuine.verdict.key?.name == key, "\(model): \(genuine.verdict)")
            var other = hexBytes(pair.uid).array
            other[6] ^= 0x01
            #expect(try await check("sim:\(model)?uid=\(Hex.encode(other))&signature=\(pair.signature)").verdict == .notGenuine)
            #expect(try await check("sim:\(model)").verdict == .notGenuine)
        }
        #expect(try await check("sim:desfire-ev1").verdict.isGenuine == nil)
    }

    @Test("a virtual Ultralight AES answers READ_SIG with 48 bytes: real chips' pairs are genuine under both NXP Ultralight AES keys; another UID or the zero stand-in is not genuine")
    func ultralightAESReadSig() async throws {
        for key in ["NXP MIFARE Ultralight AES", "NXP MIFARE Ultralight AES (second key)"] {
            let pair = try #require(RealChips.pairs.first { $0.key == key })
            let genuine = try await check("sim:ultralight-aes?uid=\(pair.uid)&signature=\(pair.signature)")
            #expect(genuine.verdict.key?.name == key, "\(genuine.verdict)")
            #expect(genuine.signature == hexBytes(pair.signature))
            var other = hexBytes(pair.uid).array
            other[6] ^= 0x01
            #expect(try await check("sim:ultralight-aes?uid=\(Hex.encode(other))&signature=\(pair.signature)").verdict == .notGenuine)
        }
        let blank = try await check("sim:ultralight-aes")
        #expect(blank.verdict == .notGenuine && blank.signature?.count == 48)
        #expect(throws: NFCReaderDeviceError.self) { _ = try SimulatorConfiguration.makeReader("sim:ultralight-aes?signature=\(RealChips.pairs[0].signature)") }
    }

    @Test("a virtual Ultralight AES signed by a prime192v1 key made by openssl is genuine under that key only; the signature and counters survive the tag file", OpenSSLTestKey.tool.trait)
    func ultralightAESTestKey() async throws {
        let testKey = try await OpenSSLTestKey.generate(curve: "prime192v1")
        let key = OriginalityKey(name: "test maker", curve: .secp192r1, publicPoint: Hex.encode(testKey.publicPoint, uppercase: true), source: "generated by the test")
        let uid: [UInt8] = [0x04, 0x41, 0x45, 0x53, 0x19, 0x20, 0x01]
        let signature = try ECDSA.rawSignature(der: Bytes(try await testKey.signDER(uid)), curve: .secp192r1)
        #expect(signature.count == 48)
        let connection = "sim:ultralight-aes?uid=\(Hex.encode(uid))&signature=\(Hex.encode(signature))"
        #expect(try await check(connection, keys: [key]).verdict == .genuine(key))
        #expect(try await check(connection).verdict == .notGenuine)
        let tag = UltralightAESTag(uid: uid)
        tag.originalitySignature = signature.array
        #expect(tag.respond(to: [0xA5, 0x01, 0x05, 0x00, 0x00, 0x00]) == .ack)
        let restored = try #require(UltralightAESTag(state: tag.tagState))
        #expect(restored.originalitySignature == signature.array && restored.counters == [0, 5, 0])
    }

    @Test("a virtual DESFire EV3 signed by a secp224r1 key made by openssl is genuine under that key only; the signature survives the tag file", OpenSSLTestKey.tool.trait)
    func desfireTestKey() async throws {
        let testKey = try await OpenSSLTestKey.generate(curve: "secp224r1")
        let key = OriginalityKey(name: "test maker", curve: .secp224r1, publicPoint: Hex.encode(testKey.publicPoint, uppercase: true), source: "generated by the test")
        let uid: [UInt8] = [0x04, 0x44, 0x46, 0x45, 0x56, 0x33, 0x01]
        let signature = try ECDSA.rawSignature(der: Bytes(try await testKey.signDER(uid)), curve: .secp224r1)
        let connection = "sim:desfire-ev3?uid=\(Hex.encode(uid))&signature=\(Hex.encode(signature))"
        #expect(try await check(connection, keys: [key]).verdict == .genuine(key))
        #expect(try await check(connection).verdict == .notGenuine)
        let tag = DESFireVirtualTag(uid: uid, generation: .ev3)
        tag.originalitySignature = signature.array
        let restored = try #require(DESFireVirtualTag(state: tag.tagState))
        #expect(restored.generation == .ev3 && restored.originalitySignature == signature.array)
    }
}
