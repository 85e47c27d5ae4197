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
        var name: [UInt8]?
        for candidate in [DESFireLight.ndefDFName, DESFireLight.factoryDFName] {
            let select = ISO7816APDU(unchecked: 0x00, Type4Command.select, Type4Command.selectByNameP1, 0x0C, data: Bytes(candidate))
            if let answer = try? await iso.sendCommand(apdu: select), answer.1 == 0x90, answer.2 == 0x00 {
                name = candidate
                break
            }
        }
        guard let name else { return nil }
        var files: [File] = []
        for file in DESFireLight.File.allCases {
            let apdu = ISO7816APDU(unchecked: NTAG424.wrappedClass, NTAG424.Command.getFileSettings, 0x00, 0x00, data: [file.rawValue], expectedResponseLength: 256)
            guard let answer = try? await iso.sendCommand(apdu: apdu), answer.1 == NTAG424.statusPrefix, answer.2 == NXPNativeStatus.ok.rawValue,
                  let settings = try? DESFireLightFileSettings(parsing: answer.0.array)
            else { continue }
            let rights = settings.accessRights
            let kind = [0x00: "standard data", 0x02: "value", 0x04: "cyclic record", 0x05: "Transaction MAC"][settings.fileType] ?? "?"
            files.append(File(
                number: Int(file.rawValue), kind: kind, size: settings.dataFileSize, commMode: settings.commMode.description,
                read: rights.read.description, write: rights.write.description, readWrite: rights.readWrite.description, change: rights.change.description))
        }
        return DESFireLightInfo(dfName: Hex.encode(name, uppercase: true), renamedForType4: name == DESFireLight.ndefDFName, files: files)
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
