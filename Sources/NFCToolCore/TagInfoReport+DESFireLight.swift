import NFCCore
import NFCTags

/// What `info` shows of a MIFARE DESFire Light (JSON `desfireLight`): which DF name answers
/// (the factory one or the NDEF Tag Application's after renaming), and each file's settings
/// (GetFileSettings, plain, before any authentication).
struct DESFireLightInfo: Encodable, Sendable, Hashable {
    /// One file's settings.
    struct File: Encodable, Sendable, Hashable {
        var number: Int
        var kind: String
        var size: Int?
        var commMode: String
        var read: String, write: String, readWrite: String, change: String
    }

    /// The DF name that selects, upper-case hex.
    var dfName: String
    /// Whether the DF is renamed for NFC Forum Type 4.
    var renamedForType4: Bool
    var files: [File]

    /// Selects the DF (NDEF name first, then the factory name) and reads the six files'
    /// settings; nil when neither name selects.
    static func read(_ iso: ISO7816Tag) async -> DESFireLightInfo? {
        guard let inspection = await DESFireLightInspection.read(iso) else { return nil }
        let files = inspection.files.map { file, settings in
            let rights = settings.accessRights
            let kind = [0x00: "standard data", 0x02: "value", 0x04: "cyclic record", 0x05: "Transaction MAC"][settings.fileType] ?? "?"
            return File(
                number: Int(file.rawValue), kind: kind, size: settings.dataFileSize, commMode: settings.commMode.description,
                read: rights.read.description, write: rights.write.description, readWrite: rights.readWrite.description, change: rights.change.description)
        }
        return DESFireLightInfo(
            dfName: Hex.encode(inspection.dfName, uppercase: true), renamedForType4: inspection.dfName == DESFireLight.ndefDFName, files: files)
    }

    /// The lines `info` prints.
    var lines: [String] {
        var lines = ["  DESFire Light DF \(dfName)\(renamedForType4 ? " (renamed for Type 4)" : " (factory name: not a Type 4 tag)")"]
        for file in files {
            func short(_ access: String) -> String { access.replacingOccurrences(of: "key ", with: "") }
            let size = file.size.map { ", \($0) B" } ?? ""
            lines.append(
                "    \(String(format: "%02X", file.number)) \(file.kind)\(size), \(file.commMode): read \(short(file.read)), write \(short(file.write)), rw \(short(file.readWrite)), change \(short(file.change))")
        }
        if files.isEmpty { lines.append("    file settings not readable without authentication") }
        return lines
    }
}
