public import NFCCrypto

/// A chip maker's public key for originality signatures: the point, its curve, the chips that
/// carry signatures under it, and where it is published.
public struct OriginalityKey: Sendable, Hashable {
    /// How the chip's UID becomes the signed message.
    public enum MessageOrder: String, Sendable, Hashable {
        /// The UID as the reader reports it, first byte first (ISO 14443-A: `04 …`).
        case uid
        /// The UID least significant byte first, as ISO 15693 sends it on the air (`… 04 E0`):
        /// ICODE chips sign that order.
        case reversedUID
    }

    /// A short name for people and JSON: `NXP NTAG21x`.
    public let name: String
    /// The curve.
    public let curve: EllipticCurve
    /// The public point, uncompressed, in hex.
    public let publicPoint: String
    /// How the UID is turned into the signed message.
    public let messageOrder: MessageOrder
    /// Where the key is published (application note, datasheet, public source code).
    public let source: String
    /// The chip models (``NFCTags/ChipIdentity/model`` prefixes, `NTAG21`, `MIFARE DESFire EV2`)
    /// whose signatures this key checks: a chip whose model no key of the table covers is
    /// unverified when no key accepts its signature, never counterfeit.
    public let models: [String]

    /// Creates a table entry.
    public init(
        name: String, curve: EllipticCurve, publicPoint: String, messageOrder: MessageOrder = .uid, models: [String] = [], source: String
    ) {
        self.name = name
        self.curve = curve
        self.publicPoint = publicPoint
        self.messageOrder = messageOrder
        self.models = models
        self.source = source
    }

    /// Whether this key checks the signatures of chips named `model`.
    public func covers(model: String) -> Bool {
        models.contains { model.hasPrefix($0) }
    }

    /// The signed message for a chip with `uid` (as the reader reports it).
    public func message(uid: [UInt8]) -> [UInt8] {
        messageOrder == .uid ? uid : uid.reversed()
    }
}

extension OriginalityKey {
    /// NXP's originality signature keys: one table, each key with where it is published. A key
    /// enters this table only with a public source; the test suite checks each against real
    /// (UID, signature) pairs read from chips (Proxmark3's `tools/recover_pk.py` self-tests, which
    /// recover each key from such pairs).
    public static let nxp: [OriginalityKey] = [
        OriginalityKey(
            name: "NXP NTAG21x", curve: .secp128r1,
            publicPoint: "04494E1A386D3D3CFE3DC10E5DE68A499B1C202DB5B132393E89ED19FE5BE8BC61", models: ["NTAG21"],
            source: "NXP AN11350 (NTAG 21x Originality Signature Validation); Proxmark3 client/src/crypto/originality.c"),
        OriginalityKey(
            name: "NXP MIFARE Ultralight EV1", curve: .secp128r1,
            publicPoint: "0490933BDCD6E99B4E255E3DA55389A827564E11718E017292FAF23226A96614B8", models: ["MIFARE Ultralight EV1"],
            source: "NXP AN11341 (MIFARE Ultralight EV1 Originality Signature Validation); Proxmark3 client/src/crypto/originality.c"),
        // MIFARE Ultralight AES: a 48-byte signature (READ_SIG `3C 00`) on secp192r1 over the
        // 7-byte UID, unhashed, as Proxmark3's `hf mfu info` reads and checks it. Both keys are
        // checked against the real chips' pairs of Proxmark3's tools/recover_pk.py self-tests.
        OriginalityKey(
            name: "NXP MIFARE Ultralight AES", curve: .secp192r1,
            publicPoint: "0453BF8C49B7BD9FE3207A91513B9C1D238ECAB07186B772104AB535F7D3AE63CF7C7F3DD0D169DA3E99E43C6399621A86",
            models: ["MIFARE Ultralight AES"],
            source: "Proxmark3 client/src/crypto/originality.c (\"NXP Ultralight AES\", citing NXP AN13452, MIFARE Ultralight AES features and hints), recovered in tools/recover_pk.py from MIFARE Ultralight AES chips"),
        OriginalityKey(
            name: "NXP MIFARE Ultralight AES (second key)", curve: .secp192r1,
            publicPoint: "04DC34DAA903F2726A6225B11C692AF6AB4396575CA12810CBBCE3F781A097B3833B50AB364A70D9C2B641A728A599AE74",
            models: ["MIFARE Ultralight AES"],
            source: "Proxmark3 client/src/crypto/originality.c (\"NXP Ultralight AES (alt key)\", taken from NXP TagInfo), recovered in tools/recover_pk.py from MIFARE Ultralight AES chips (\"Vingcard alt key\")"),
        OriginalityKey(
            name: "NXP MIFARE Classic EV1", curve: .secp128r1,
            publicPoint: "044F6D3F294DEA5737F0F46FFEE88A356EED95695DD7E0C27A591E6F6F65962BAF", models: ["MIFARE Classic EV1"],
            source: "Proxmark3 client/src/crypto/originality.c (\"NXP MIFARE Classic MFC1C14_x\"), recovered in tools/recover_pk.py from MIFARE Classic EV1 chips"),
        OriginalityKey(
            name: "NXP ICODE SLIX2/DNA", curve: .secp128r1,
            publicPoint: "048878A2A2D3EEC336B4F261A082BD71F9BE11C4E2E896648B32EFA59CEA6E59F0", messageOrder: .reversedUID,
            // "ICODE DNA" also prefixes the chip table's "ICODE DNA or NTAG 5" (type indicator 11b, memory not told).
            models: ["ICODE SLIX2", "ICODE DNA", "NXP ICODE (SLIX family"],
            source: "Proxmark3 client/src/cmdhf15.c and crypto/originality.c (\"NXP ICODE DNA, ICODE SLIX2\"); the UID is signed least significant byte first (tools/recover_pk.py)"),
        OriginalityKey(
            name: "NXP NTAG 424 DNA", curve: .secp224r1,
            publicPoint: "048A9B380AF2EE1B98DC417FECC263F8449C7625CECE82D9B916C992DA209D68422B81EC20B65A66B5102A61596AF3379200599316A00A1410",
            models: ["NTAG 424 DNA", "MIFARE DESFire EV2", "MIFARE DESFire Light"],
            source: "NXP AN12196 (NTAG 424 DNA and NTAG 424 DNA TagTamper features and hints), 8.2 asymmetric originality check; Proxmark3 client/src/crypto/originality.c"),
        OriginalityKey(
            name: "NXP MIFARE DESFire EV2", curve: .secp224r1,
            publicPoint: "04B304DC4C615F5326FE9383DDEC9AA892DF3A57FA7FFB3276192BC0EAA252ED45A865E3B093A3D0DCE5BE29E92F1392CE7DE321E3E5C52B3A",
            models: ["MIFARE DESFire EV2", "NTAG 424 DNA", "MIFARE DESFire Light"],
            source: "Proxmark3 client/src/crypto/originality.c (\"NTAG424DNA, NTAG424DNATT, DESFire EV2, DESFire Light EV2\"), recovered in tools/recover_pk.py from DESFire EV2 chips"),
        OriginalityKey(
            name: "NXP MIFARE DESFire EV3", curve: .secp224r1,
            publicPoint: "041DB46C145D0A36539C6544BD6D9B0AA62FF91EC48CBC6ABAE36E0089A46F0D08C8A715EA40A63313B92E90DDC1730230E0458A33276FB743",
            models: ["MIFARE DESFire EV3"],
            source: "Proxmark3 client/src/crypto/originality.c (\"DESFire EV3\"), recovered in tools/recover_pk.py from DESFire EV3 chips"),
        OriginalityKey(
            name: "NXP MIFARE DESFire Light", curve: .secp224r1,
            publicPoint: "040E98E117AAA36457F43173DC920A8757267F44CE4EC5ADD3C54075571AEBBF7B942A9774A1D94AD02572427E5AE0A2DD36591B1FB34FCF3D",
            models: ["MIFARE DESFire Light"],
            source: "NXP AN12343 (MIFARE DESFire Light Features and Hints); Proxmark3 client/src/crypto/originality.c"),
        // The next three keys: public key values as Proxmark3's client/src/crypto/originality.c
        // (manufacturer_public_keys) lists them, secp224r1, under the names given in `source`;
        // each is checked against the real chips' pairs of Proxmark3's tools/recover_pk.py
        // self-tests. (Its "MIFARE Plus EV2" key has no published pair to check it against: not
        // in the table, so such a chip is unverified.)
        OriginalityKey(
            name: "NXP NTAG 413 DNA / MIFARE DESFire EV1", curve: .secp224r1,
            publicPoint: "04BB5D514F7050025C7D0F397310360EEC91EAF792E96FC7E0F496CB4E669D414F877B7B27901FE67C2E3B33CD39D1C797715189AC951C2ADD",
            models: ["NTAG 413 DNA", "MIFARE DESFire EV1"],
            source: "Proxmark3 client/src/crypto/originality.c (\"NTAG413DNA, DESFire EV1\")"),
        OriginalityKey(
            name: "NXP MIFARE DESFire EV2 XL", curve: .secp224r1,
            publicPoint: "04CD5D45E50B1502F0BA4656FF37669597E7E183251150F9574CC8DA56BF01C7ABE019E29FEA48F9CE22C3EA4029A765E1BC95A89543BAD1BC",
            models: ["MIFARE DESFire EV2 XL"],
            source: "Proxmark3 client/src/crypto/originality.c (\"DESFire EV2 XL\")"),
        OriginalityKey(
            name: "NXP MIFARE Plus EV1", curve: .secp224r1,
            publicPoint: "044409ADC42F91A8394066BA83D872FB1D16803734E911170412DDF8BAD1A4DADFD0416291AFE1C748253925DA39A5F39A1C557FFACD34C62E",
            models: ["MIFARE Plus EV1"],
            source: "Proxmark3 client/src/crypto/originality.c (\"MIFARE Plus EV1\")"),
    ]
}
