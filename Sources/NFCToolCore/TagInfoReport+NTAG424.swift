import NFCCore
import NFCTags

/// What `info` shows of an NTAG 424 DNA: each file's settings (GetFileSettings, plain, before
/// any authentication) and its SDM configuration.
struct NTAG424Info: Encodable, Sendable, Hashable {
    /// One file's settings.
    struct File: Encodable, Sendable, Hashable {
        var number: Int
        var name: String
        var size: Int
        var commMode: String
        var read: String, write: String, readWrite: String, change: String
        var sdm: SDM?
    }

    /// SDM: what is mirrored, under which keys, where.
    struct SDM: Encodable, Sendable, Hashable {
        var options: String
        var mirrorsUID: Bool
        var mirrorsReadCounter: Bool
        var encryptedPICCData: Bool
        var encryptedFileData: Bool
        var metaRead: String, fileRead: String, counterRetrieval: String
        /// The offsets present, in the datasheet's order.
        var offsets: [Offset]
        struct Offset: Encodable, Sendable, Hashable { var name: String; var value: Int }
    }

    var files: [File]
    /// What the chip enforces on the NDEF file for a plain write (no authentication): nil when
    /// write or read-write access is free, else the access needed (`key 0`, `never`). The CC's
    /// write access byte can say `00` (granted) while this says otherwise: the chip decides.
    var ndefWriteNeeds: String?

    private enum CodingKeys: String, CodingKey { case files }

    /// Reads the settings of the three files; nil when the chip does not answer as an NTAG 424 DNA.
    static func read(_ iso: ISO7816Tag) async -> NTAG424Info? {
        var chip = NTAG424Tag(iso)
        guard (try? await chip.selectApplication()) != nil else { return nil }
        var files: [File] = []
        var ndefWriteNeeds: String?
        for file in NTAG424.File.allCases {
            guard let settings = try? await chip.getFileSettings(file) else { return files.isEmpty ? nil : NTAG424Info(files: files) }
            let name = ["CC", "NDEF", "proprietary"][Int(file.rawValue) - 1]
            let sdm = settings.sdm.map { sdm in
                SDM(
                    options: Hex.encode([sdm.optionsByte], uppercase: true), mirrorsUID: sdm.mirrorsUID, mirrorsReadCounter: sdm.mirrorsReadCounter,
                    encryptedPICCData: sdm.hasEncryptedPICCData, encryptedFileData: sdm.encryptsFileData, metaRead: sdm.metaRead.description,
                    fileRead: sdm.fileRead.description, counterRetrieval: sdm.counterRetrieval.description,
                    offsets: sdm.namedOffsets.map { SDM.Offset(name: $0.name, value: $0.value) })
            }
            let rights = settings.accessRights
            if file == .ndef, !rights.write.isFree, !rights.readWrite.isFree { ndefWriteNeeds = rights.write.description }
            files.append(File(
                number: Int(file.rawValue), name: name, size: settings.fileSize, commMode: settings.commMode.description,
                read: rights.read.description, write: rights.write.description, readWrite: rights.readWrite.description,
                change: rights.change.description, sdm: sdm))
        }
        return NTAG424Info(files: files, ndefWriteNeeds: ndefWriteNeeds)
    }

    /// The lines `info` prints.
    var lines: [String] {
        var lines = ["  NTAG 424 DNA files:"]
        for file in files {
            func short(_ access: String) -> String { access.replacingOccurrences(of: "key ", with: "") }
            lines.append(
                "    \(String(format: "%02X", file.number)) \(file.name), \(file.size) B, \(file.commMode): read \(short(file.read)), write \(short(file.write)), rw \(short(file.readWrite)), change \(short(file.change))")
            if let sdm = file.sdm {
                let what = [sdm.mirrorsUID ? "UID" : nil, sdm.mirrorsReadCounter ? "counter" : nil].compactMap { $0 }.joined(separator: "+")
                lines.append("       SDM \(sdm.options): \(what) \(sdm.encryptedPICCData ? "encrypted, \(sdm.metaRead)" : "plain"); MAC \(sdm.fileRead); counter \(sdm.counterRetrieval)")
                let offsets = sdm.offsets.map { "\($0.name) \($0.value)" }.joined(separator: ", ")
                if !offsets.isEmpty { lines.append("       \(offsets)") }
            }
        }
        return lines
    }
}
