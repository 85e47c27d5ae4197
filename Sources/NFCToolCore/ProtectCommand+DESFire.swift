import CommandLineKit
import NFCCore
import NFCTags

extension ProtectCommand {
    /// `--keys FILE` holding DESFire keys (anything but a bare 32-digit Ultralight key: typed
    /// lines, `picc aes …`, `application 3k3des …`): changes the DESFire's PICC master key and/or
    /// the NDEF application's key 0 (``DESFireTag/changeKeys(_:)``), from the keys
    /// `--current-keys FILE` holds (the factory DES keys for the roles it does not name).
    /// Keys are never in arguments, output or traces.
    func protectDESFire(keyText: String, path: String, _ context: CommandContext) async throws(CommandError) {
        let foreign: [CommandOption] = [Self.readProtect, Self.fromPage, Self.fromBlock, Self.sixtyFourBit, Self.lockPassword, Self.privacy, Self.passwordFile]
        if let given = foreign.first(where: { options.arguments.contains($0) || options.arguments.value(of: $0) != nil }) {
            throw .usage("\(given.synopsis) is not for a MIFARE DESFire: --keys FILE changes its PICC master key and NDEF application key, nothing else")
        }
        let new: DESFireFormatOptions.KeyFile
        do { new = try DESFireFormatOptions.keys(fromText: keyText) } catch { throw .usage("\(Self.keys.synopsis) '\(path)': \(error.reason)") }
        var current = DESFireFormatOptions.KeyFile()
        if let currentPath = options.arguments.value(of: Self.currentKeys) {
            let text = try TagWriteSupport.keyFileText(currentPath, what: "key file")
            do { current = try DESFireFormatOptions.keys(fromText: text) } catch { throw .usage("\(Self.currentKeys.synopsis) '\(currentPath)': \(error.reason)") }
        }
        let change = DESFireKeyChange(
            currentPICCKey: current.picc ?? .factoryDES, currentApplicationKey: current.application ?? .factoryDES,
            newPICCKey: new.picc, newApplicationKey: new.application, piccKeyVersion: new.piccVersion, applicationKeyVersion: new.applicationVersion)
        let confirmed = try TagWriteSupport.confirmation("changing a DESFire key leaves it open only to the new key (lose it and the card is lost) and cannot be undone", options, context)
        try await TagWriteOperation.run(
            "protect", options, password: nil, context,
            body: { tag, _, planning in
                guard case .miFare(let miFare) = tag, let desfire = miFare.desfire else {
                    throw CommandError(
                        "a key file naming DESFire keys (picc, application) is for a MIFARE DESFire; this is a \(tag.identity.model) (an Ultralight C or AES key is 32 bare hex digits)",
                        exitCode: .unsupported)
                }
                if !planning { try context.confirm(Self.desfireWarning(tag, change), confirmed: confirmed) }
                var planned = change
                planned.planning = planning
                do throws(DESFireError) {
                    return try await desfire.changeKeys(planned)
                } catch {
                    // A cut keeps its own reason (old or new key); the rest as the NDEF operations report them.
                    throw error.code == .transport ? NFCTagError(error.tagError.code, error.reason) : error.tagError
                }
            },
            report: { (tag, outcome: DESFireKeyChange.Outcome) in DESFireKeysReport(uid: TagWriteOperation.uid(tag), model: tag.identity.model, piccKey: outcome.picc, applicationKey: outcome.application) },
            sentence: { (tag, outcome: DESFireKeyChange.Outcome) in
                func said(_ step: DESFireKeyChange.Step, _ what: String) -> String? {
                    switch step {
                    case .unchanged: nil
                    case .changed: "\(what) changed"
                    case .alreadyChanged: "\(what) was already the new one"
                    }
                }
                let steps = [said(outcome.application, "NDEF application key"), said(outcome.picc, "PICC master key")].compactMap { $0 }
                return "Protected \(tag.identity.model) \(TagWriteSupport.spacedHex(tag.identifier)): " + steps.joined(separator: "; ") + "."
            })
    }

    /// What is said before changing the keys: the card, the keys, and that only the new key opens them.
    static func desfireWarning(_ tag: NFCTag, _ change: DESFireKeyChange) -> String {
        let keys = [change.newApplicationKey.map { "the NDEF application key becomes \($0.type.rawValue.uppercased())" },
                    change.newPICCKey.map { "the PICC master key becomes \($0.type.rawValue.uppercased())" }].compactMap { $0 }
        return "On the \(tag.identity.model) with UID \(TagWriteSupport.spacedHex(tag.identifier)), \(keys.joined(separator: " and ")): only the new key opens it from now on; keep the key file."
    }

    /// `protect --json` on a DESFire: what became of each key.
    struct DESFireKeysReport: Encodable, Sendable {
        var uid: String
        var model: String
        var piccKey: DESFireKeyChange.Step
        var applicationKey: DESFireKeyChange.Step
    }
}
