import NFCCore
import NFCCrypto
import NFCTestSupport
import Testing

/// Real (UID, signature) pairs read from NXP chips and published with Proxmark3's
/// `tools/recover_pk.py` self-tests (RfidResearchGroup/proxmark3), with the NXP public keys they
/// belong to (AN11350 for NTAG21x; DESFire EV2's from the same file and Proxmark3's
/// `client/src/crypto/originality.c`).
enum PublishedPairs {
    /// NXP's NTAG21x originality key (AN11350), secp128r1.
    static let ntag21xKey = "04494E1A386D3D3CFE3DC10E5DE68A499B1C202DB5B132393E89ED19FE5BE8BC61"
    /// Two NTAG21x chips.
    static let ntag21x: [(uid: String, signature: String)] = [
        ("04E10CDA993C80", "8B76052EE42F5567BEB53238B3E3F9950707C0DCC956B5C5EFCFDB709B2D82B3"),
        ("04DB0BDA993C80", "6048EFD9417CD10F6B7F1818D471A7FE5B46868D2EABDC6307A1E0AAE139D8D0"),
    ]
    /// NXP's DESFire EV2 originality key, secp224r1.
    static let desfireEV2Key =
        "04B304DC4C615F5326FE9383DDEC9AA892DF3A57FA7FFB3276192BC0EAA252ED45A865E3B093A3D0DCE5BE29E92F1392CE7DE321E3E5C52B3A"
    /// NXP's MIFARE Ultralight AES originality key, secp192r1 (Proxmark3's originality.c,
    /// "NXP Ultralight AES"), and a chip of recover_pk.py's self-test.
    static let ultralightAESKey =
        "0453BF8C49B7BD9FE3207A91513B9C1D238ECAB07186B772104AB535F7D3AE63CF7C7F3DD0D169DA3E99E43C6399621A86"
    static let ultralightAES = (
        uid: "045E4CC2451390",
        signature: "C9BBDA1B99EB6634CDFD8E3251AC5C4742EA5FA507B8A8A8B39B19AB7340D173331589C54C56C49F0CCA6DDBAC1E492A")
    /// A DESFire EV2 chip.
    static let desfireEV2 = (
        uid: "042A41CAE45380",
        signature: "B2769F8DDB575AEA2A680ADCA8FFED4FAB81A1E9908E2B82FE0FABB697BBD9B23835C416970E75768F12902ACA491349E94E6589EAF4F508")
}

@Suite("ECDSA without hashing through libcrypto", .timeLimit(.minutes(1)))
struct ECDSATests {
    @Test("a real NTAG21x signature verifies under NXP's secp128r1 key", arguments: PublishedPairs.ntag21x)
    func realNTAG21xPair(pair: (uid: String, signature: String)) throws {
        let key = try ECPublicKey(curve: .secp128r1, hex: PublishedPairs.ntag21xKey)
        #expect(try ECDSA.verifyUnhashed(signature: hexBytes(pair.signature), message: hexBytes(pair.uid), key: key))
    }

    @Test("one bit changed in the UID, r or s makes the real NTAG21x signature fail")
    func alteredPairsFail() throws {
        let key = try ECPublicKey(curve: .secp128r1, hex: PublishedPairs.ntag21xKey)
        let pair = PublishedPairs.ntag21x[0]
        var uid = hexBytes(pair.uid).array
        uid[6] ^= 0x01
        #expect(try !ECDSA.verifyUnhashed(signature: hexBytes(pair.signature), message: Bytes(uid), key: key))
        for index in [0, 31] {
            var signature = hexBytes(pair.signature).array
            signature[index] ^= 0x80
            #expect(try !ECDSA.verifyUnhashed(signature: Bytes(signature), message: hexBytes(pair.uid), key: key))
        }
        // The other chip's signature is not this chip's.
        #expect(try !ECDSA.verifyUnhashed(
            signature: hexBytes(PublishedPairs.ntag21x[1].signature), message: hexBytes(pair.uid), key: key))
    }

    @Test("a real DESFire EV2 signature verifies under NXP's secp224r1 key, and fails altered")
    func realSecp224r1Pair() throws {
        let key = try ECPublicKey(curve: .secp224r1, hex: PublishedPairs.desfireEV2Key)
        let pair = PublishedPairs.desfireEV2
        #expect(try ECDSA.verifyUnhashed(signature: hexBytes(pair.signature), message: hexBytes(pair.uid), key: key))
        var uid = hexBytes(pair.uid).array
        uid[0] ^= 0x01
        #expect(try !ECDSA.verifyUnhashed(signature: hexBytes(pair.signature), message: Bytes(uid), key: key))
    }

    @Test("a real MIFARE Ultralight AES signature (48 bytes) verifies under NXP's secp192r1 key, and fails altered")
    func realSecp192r1Pair() throws {
        let key = try ECPublicKey(curve: .secp192r1, hex: PublishedPairs.ultralightAESKey)
        let pair = PublishedPairs.ultralightAES
        #expect(try ECDSA.verifyUnhashed(signature: hexBytes(pair.signature), message: hexBytes(pair.uid), key: key))
        var uid = hexBytes(pair.uid).array
        uid[6] ^= 0x01
        #expect(try !ECDSA.verifyUnhashed(signature: hexBytes(pair.signature), message: Bytes(uid), key: key))
        #expect(throws: CryptoError.self) { _ = try ECPublicKey(curve: .secp224r1, hex: PublishedPairs.ultralightAESKey) }
    }

    @Test("a signature of the wrong length is refused with invalidSignature")
    func wrongLength() throws {
        let key = try ECPublicKey(curve: .secp128r1, hex: PublishedPairs.ntag21xKey)
        for length in [0, 31, 33, 56] {
            #expect(throws: CryptoError.self) {
                _ = try ECDSA.verifyUnhashed(signature: Bytes([UInt8](repeating: 1, count: length)), message: [4, 1, 2], key: key)
            }
        }
    }

    @Test("an all-zero signature (r = s = 0) is not valid, and throws nothing")
    func zeroSignature() throws {
        let key = try ECPublicKey(curve: .secp128r1, hex: PublishedPairs.ntag21xKey)
        #expect(try !ECDSA.verifyUnhashed(signature: Bytes([UInt8](repeating: 0, count: 32)), message: hexBytes("04E10CDA993C80"), key: key))
    }

    @Test("a point off the curve, or of the wrong length, is not a public key")
    func invalidKeys() throws {
        var point = try Hex.decode(PublishedPairs.ntag21xKey)
        point[32] ^= 0x01
        #expect(throws: CryptoError.self) { _ = try ECPublicKey(curve: .secp128r1, point: Bytes(point)) }
        #expect(throws: CryptoError.self) { _ = try ECPublicKey(curve: .secp224r1, hex: PublishedPairs.ntag21xKey) }
        #expect(throws: CryptoError.self) { _ = try ECPublicKey(curve: .secp128r1, hex: "04zz") }
    }

    @Test("a key pair made by openssl: its signatures verify, raw and DER forms convert both ways",
          OpenSSLTestKey.tool.trait, arguments: ["secp128r1", "secp192r1", "secp224r1"])
    func opensslKeyPair(curveName: String) async throws {
        let curve = try #require(EllipticCurve(rawValue: curveName))
        let testKey = try await OpenSSLTestKey.generate(curve: curveName)
        let key = try ECPublicKey(curve: curve, point: Bytes(testKey.publicPoint))
        let uid: [UInt8] = [0x04, 0x53, 0x49, 0x4D, 0x00, 0x00, 0x01]
        let der = try await testKey.signDER(uid)
        let raw = try ECDSA.rawSignature(der: Bytes(der), curve: curve)
        #expect(raw.count == curve.signatureLength)
        #expect(try ECDSA.verifyUnhashed(signature: raw, message: Bytes(uid), key: key))
        #expect(try ECDSA.derSignature(r: raw[0..<curve.fieldLength], s: raw[curve.fieldLength..<raw.count]) == der)
        // Not NXP's key, and not another UID.
        #expect(try !ECDSA.verifyUnhashed(signature: raw, message: Bytes(uid.dropLast() + [0x02]), key: key))
    }

    @Test("DER that is not one ECDSA-Sig-Value is refused")
    func invalidDER() {
        #expect(throws: CryptoError.self) { _ = try ECDSA.rawSignature(der: [0x30, 0x03, 0x02, 0x01], curve: .secp128r1) }
        #expect(throws: CryptoError.self) { _ = try ECDSA.rawSignature(der: [], curve: .secp128r1) }
    }
}
