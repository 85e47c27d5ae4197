import CommandLineKit
import NFCCore
import NFCTags

/// `nfctool protect` on an ST25TV02K / ST25TV512: options → one library call
/// (``ISO15693Tag/st25tvProtect(_:password:current:)``) → report.
extension ProtectCommand {
    /// The options only other chips take, refused on an ST25TV02K before anything is sent.
    static let st25tvForeign: [CommandOption] = [fromPage, fromBlock, areaPassword, sixtyFourBit, lockPassword, privacy]

    /// `--area` and `--read-protect` as an ST25TV02K protection.
    func st25tvProtection() throws(CommandError) -> ST25TVProtection {
        let arguments = options.arguments
        if let given = Self.st25tvForeign.first(where: { arguments.contains($0) || arguments.value(of: $0) != nil }) {
            throw .usage("\(given.synopsis) is not for an ST25TV02K (it takes --area 1|2 and --read-protect)")
        }
        let area = try arguments.value(of: Self.area) { Int($0).flatMap { (1...2).contains($0) ? $0 : nil } } ?? 1
        do throws(NFCTagError) {
            return try ST25TVProtection(area: area, readProtected: arguments.contains(Self.readProtect))
        } catch {
            throw .usage(error.reason)
        }
    }

    /// Protects `vicinity`, an ST25TV02K, with the password texts given (8 or 16 hex digits).
    static func protectST25TV(
        _ vicinity: ISO15693Tag, new newText: (text: String, source: String), current currentText: (text: String, source: String)?,
        protection: ST25TVProtection, planning: Bool
    ) async throws {
        let new = try st25tvPassword(newText)
        let current = try currentText.map { text throws(CommandError) in try st25tvPassword(text) }
        try await TagWriteSupport.write(planning: planning) {
            try await vicinity.st25tvProtect(protection, password: new, current: current)
        }
    }

    /// An ST25TV02K area password from a password file's text.
    static func st25tvPassword(_ given: (text: String, source: String)) throws(CommandError) -> ST25TVAreaPassword {
        do throws(NFCTagError) { return try ST25TVAreaPassword(hex: given.text) } catch { throw .usage("\(given.source): \(error.reason)") }
    }

    /// The JSON report of an ST25TV02K protect.
    static func st25tvReport(_ tag: NFCTag, _ protection: ST25TVProtection) -> ProtectReport {
        ProtectReport(
            uid: TagWriteOperation.uid(tag), model: tag.identity.model, protected: true,
            firstProtectedBlock: ST25TVRegister.firstBlock(ofArea: protection.area, blockCount: tag.identity.blockCount),
            readProtected: protection.readProtected)
    }

    /// The sentence of an ST25TV02K protect.
    static func st25tvSentence(_ tag: NFCTag, _ protection: ST25TVProtection) -> String {
        let what = protection.readProtected ? "read and write" : "write"
        return "Protected \(tag.identity.model) \(TagWriteSupport.spacedHex(tag.identifier)): area \(protection.area) needs password \(protection.passwordNumber) to \(what) (configuration password 3 changed too)."
    }
}
