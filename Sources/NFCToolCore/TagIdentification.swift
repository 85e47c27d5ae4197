import Foundation
import NFCCore
import NFCTags

/// What `scan` and `info` both report about a tag before anything else: where it was found and
/// what it is. Each report encodes these keys at its own top level.
struct TagIdentification: Sendable {
    /// The connection string of the reader.
    var reader: String
    /// The reader's name, where it has one.
    var readerName: String?
    /// How the tag answered, e.g. `ISO 14443-3 A`.
    var technology: String
    /// The UID (IDm on FeliCa) in upper-case hex.
    var uid: String
    /// ISO 14443-A: ATQA as nfc-list shows it (NTAG `0044`; a Jewel's SENS_RES), SAK, ATS.
    var atqa: String?, sak: String?, ats: String?
    /// FeliCa: PMm and the current system code.
    var pmm: String?, systemCode: String?
    /// The chip model and platform, and its memory where known.
    var model: String, platform: String, memoryBytes: Int?

    /// A tag found as `target` on `reader`, identified as `identity`; `technology` defaults to
    /// the target's modulation.
    init(reader: String, target: TargetInfo, identity: ChipIdentity) {
        self.reader = reader
        technology = target.modulation.rawValue
        uid = Hex.encode(target.identifier, uppercase: true)
        model = identity.model
        platform = identity.platform.rawValue
        memoryBytes = identity.memoryBytes
        switch target {
        case .iso14443A(let a):
            atqa = String(format: "%04X", a.atqaValue)
            sak = Hex.encode([a.sak], uppercase: true)
            ats = a.ats.isEmpty ? nil : Hex.encode(a.ats, uppercase: true)
        case .felica(let f):
            pmm = Hex.encode(f.pmm, uppercase: true)
            systemCode = f.systemCode.map { String(format: "%04X", $0) }
        case .jewel(let j):
            // SENS_RES, as libnfc's nfc-list shows it ("ATQA (SENS_RES)").
            atqa = Hex.encode(j.sensRes, uppercase: true)
        default: break
        }
    }

    /// A tag known only by its UID and identity; the caller fills in the rest.
    init(reader: String, uid: Bytes, identity: ChipIdentity) {
        (self.reader, technology, self.uid) = (reader, "", Hex.encode(uid, uppercase: true))
        (model, platform, memoryBytes) = (identity.model, identity.platform.rawValue, identity.memoryBytes)
    }

    private enum CodingKeys: String, CodingKey {
        case reader, readerName, technology, uid, atqa, sak, ats, pmm, systemCode, model, platform, memoryBytes
    }

    /// Writes the keys into the report's own object: absent values as null when `nulls`
    /// (`info`: every key always there), else left out (`scan`).
    func encode(to encoder: any Encoder, nulls: Bool) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        func put<T: Encodable>(_ value: T?, _ key: CodingKeys) throws {
            if nulls { try container.encode(value, forKey: key) } else { try container.encodeIfPresent(value, forKey: key) }
        }
        try container.encode(reader, forKey: .reader)
        try put(readerName, .readerName)
        try container.encode(technology, forKey: .technology)
        try container.encode(uid, forKey: .uid)
        try put(atqa, .atqa)
        try put(sak, .sak)
        try put(ats, .ats)
        try put(pmm, .pmm)
        try put(systemCode, .systemCode)
        try container.encode(model, forKey: .model)
        try container.encode(platform, forKey: .platform)
        try put(memoryBytes, .memoryBytes)
    }
}
