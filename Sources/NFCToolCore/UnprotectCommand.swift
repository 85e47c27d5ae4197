import CommandLineKit
import NFCCore
import NFCTags

/// `nfctool unprotect`: removes an NTAG21x / Ultralight EV1 password, an Ultralight C's key
/// protection, or an ICODE SLIX2 / SLIX-S page protection.
struct UnprotectCommand: TagCommand {
    static let passwordFile = CommandOption.option(
        "password-file", valueName: "file",
        help: "The current password PWD[:PACK] in hex, read from this file (or set NFCTOOL_PASSWORD).")

    static let configurationPasswordFile = CommandOption.option(
        "configuration-password-file", valueName: "file",
        help: "ST25TV02K: the configuration password (password 3, 8 hex digits), when it is not the first 8 digits of the area's password (another area was protected later with another password).")

    static let privacy = CommandOption.flag(
        "privacy", help: "ICODE SLIX2/SLIX-S/SLIX-L: leave privacy mode with the privacy password (8 hex digits from --password-file or NFCTOOL_PASSWORD), sent unaddressed: the tag answers no poll until then.")

    static let area = CommandOption.option(
        "area", valueName: "n", help: "ST25DV: the area to open, 1–4 (default 1); ST25TV02K: 1 or 2.")

    static let configuration = CommandConfiguration(
        name: "unprotect",
        abstract: "Remove the password of an NTAG21x, Ultralight EV1, ICODE SLIX2/SLIX-S, NTAG 5, ST25DV or ST25TV02K, or the key protection of an Ultralight C or AES.",
        discussion: """
            Needs the current password (--password-file or NFCTOOL_PASSWORD; never in \
            arguments). AUTH0 is cleared first, so the tag is open from the first write on; then \
            PROT and AUTHLIM are cleared and the password set back to the factory FFFFFFFF. A \
            wrong password exits 9 with nothing written. --plan lists the writes and sends none.

            A MIFARE Ultralight C needs its 3DES key (--keys FILE): AUTH0 is set to 30h first, \
            then AUTH1 cleared and the key set back to the factory key. A wrong key exits 9 \
            with nothing written. A MIFARE Ultralight AES needs its AES key (--keys FILE): \
            AUTH0 is set to 3Ch first, then PROT cleared and the key set back to 16 zero bytes.

            Examples:
              NFCTOOL_PASSWORD=12345678:ABCD nfctool unprotect
              nfctool unprotect --password-file pwd.txt --device pn532_uart:/dev/ttyUSB0
              nfctool unprotect --keys ulc.key

            An NXP ICODE SLIX2 or SLIX-S needs its write password (and its read password when \
            blocks are read-protected: READ:WRITE as 8:8 hex digits): PROTECT PAGE makes every \
            protected page public, then the passwords are set back to 00000000. A wrong \
            password exits 9 with nothing written. A 64-bit-mode chip's pages need both \
            passwords: when PROTECT PAGE is refused after the write password alone, the read \
            password is given and PROTECT PAGE sent again. A protected page whose protection \
            condition is locked (protect --lock-protection) can never be made public: the \
            protection status is read first and unprotect exits 5 before anything is written.

            A tag in privacy mode (protect --privacy) answers no poll, so no command finds it. \
            --privacy sends GET RANDOM NUMBER and SET PASSWORD with the privacy password to the \
            field without polling first, then waits for the tag to answer a poll again. Only \
            readers that can send a frame to no card found do it (the simulator; a PC/SC \
            reader reports no card and exits 10). A wrong password exits 9: the tag stays \
            hidden and answers nothing more until it leaves the field. --plan lists the two \
            commands and sends nothing.

              nfctool unprotect --privacy --password-file privacy.pwd

            An ST25DV needs its 64-bit password (16 hex digits): area 1 is opened (RFA1SS 00) \
            first, then passwords 1 and 0 are set back to the factory zeros. --area N opens \
            area 2, 3 or 4 instead; its password goes back to zeros only when no other area \
            uses it, and the configuration password only when no area is protected any more. \
            The areas' bounds stay. Another area still protected afterwards is named; without \
            --area that is exit 9 (the tag is not open).

            An ST25TV02K or ST25TV512 needs its area password: 8 hex digits with two areas, 16 \
            with one (the area 1 attribute's MEM_ORG bit, read first), its first 8 digits \
            being the configuration password protect set. PRESENT PASSWORD 3 opens the \
            configuration, WRITE CONFIGURATION clears the area's protection bits first, then \
            the area password (and password 3, once no area is protected) goes back to the \
            factory zeros. --area 2 opens area 2 (two areas only). Both passwords are presented \
            before anything is written: a refused one exits 9 with nothing written. Password 3 \
            is the first 8 digits of the area password protected last; when the areas' \
            passwords differ, give it with --configuration-password-file. A configuration \
            locked for good (LOCK_CFG) is refused with nothing written (exit 5).
            """,
        options: TagCommandSupport.readerOptions + [TagCommandSupport.timeout, TagCommandSupport.json, passwordFile,
                  TagWriteSupport.ultralightCKeyFile, configurationPasswordFile, privacy, area, TagWriteSupport.plan]
    )

    let options: TagCommandOptions

    /// How the password file of `tag`'s chip is written (said when the file given is malformed;
    /// the message never repeats the file's text).
    static func passwordFormat(of tag: NFCTag) -> String {
        if case .iso15693(let vicinity) = tag {
            if vicinity.icodeVariant != nil {
                return "an ICODE chip's password is 8 hex digits (the write password), or READ:WRITE as 8:8 hex digits"
            }
            if vicinity.hasST25DVPasswords { return "an ST25DV password is 16 hex digits (64 bits)" }
            if vicinity.hasST25TVConfiguration {
                return "an ST25TV02K area password is 8 hex digits with two areas, 16 with one (its first 8 the configuration password)"
            }
        }
        return "a password is 8 hex digits, optionally followed by ':' and a 4-digit PACK"
    }

    func run(_ context: CommandContext) async throws(CommandError) {
        if options.arguments.contains(Self.privacy) {
            try await leavePrivacy(context)
            return
        }
        let text = try TagWriteSupport.passwordText(
            file: options.arguments.value(of: Self.passwordFile), option: Self.passwordFile,
            environment: context.environment, variable: "NFCTOOL_PASSWORD")
        let icode = text.flatMap { try? ICodePasswords(hex: $0.text) }
        let st25 = text.flatMap { try? ST25Password(hex: $0.text) }
        let current = text.flatMap { try? NTAGPassword(hex: $0.text) }
        let key = try options.ultralightCKey()
        let area = try options.arguments.value(of: Self.area) { Int($0).flatMap { (1...4).contains($0) ? $0 : nil } }
        let st25tv = text.flatMap { try? ST25TVAreaPassword(hex: $0.text) }
        let configurationText = try TagWriteSupport.passwordText(
            file: options.arguments.value(of: Self.configurationPasswordFile), option: Self.configurationPasswordFile,
            environment: context.environment, variable: nil)
        let configurationPassword = try configurationText.map { given throws(CommandError) -> ST25TVPassword in
            guard let password = try? ST25TVAreaPassword(hex: given.text), !password.isSixtyFourBit else {
                throw .usage("\(given.source): the ST25TV02K configuration password is 8 hex digits")
            }
            return password.configuration
        }
        // A file no chip's format reads is refused once the chip is known, in that chip's words.
        let malformed = text.flatMap { given in current == nil && icode == nil && st25 == nil && st25tv == nil ? given.source : nil }
        if area != nil && st25tv == nil {
            throw .usage("--area is for ST25DV areas (16 hex digits) and ST25TV02K areas (8 or 16 hex digits)")
        }
        try await TagWriteOperation.run(
            "unprotect", options, password: current, ultralightCKey: key, context,
            body: { tag, _, planning in
                if configurationPassword != nil {
                    guard case .iso15693(let vicinity) = tag, vicinity.hasST25TVConfiguration else {
                        throw CommandError.usage("--configuration-password-file is for an ST25TV02K; this is a \(tag.identity.model)")
                    }
                }
                if let malformed { throw CommandError.usage("\(malformed): \(Self.passwordFormat(of: tag))") }
                if case .iso15693(let vicinity) = tag, vicinity.icodeVariant != nil {
                    guard let icode else {
                        throw CommandError.usage("an ICODE chip needs its password: --password-file FILE or NFCTOOL_PASSWORD (8 hex digits, or READ:WRITE)")
                    }
                    try await TagWriteSupport.write(planning: planning) { try await vicinity.icodeUnprotect(current: icode) }
                    return []
                }
                if case .iso15693(let vicinity) = tag, vicinity.hasST25DVPasswords {
                    guard let st25 else {
                        throw CommandError.usage("an ST25DV needs its password: --password-file FILE or NFCTOOL_PASSWORD (16 hex digits)")
                    }
                    let others = try await TagWriteSupport.write(planning: planning) { try await vicinity.st25Unprotect(area: area ?? 1, current: st25) }
                    return try Self.stillProtected(others ?? [], opened: area ?? 1, areaGiven: area != nil, tag)
                }
                if case .iso15693(let vicinity) = tag, vicinity.hasST25TVConfiguration {
                    guard let st25tv else {
                        throw CommandError.usage("an ST25TV02K needs its area password: --password-file FILE or NFCTOOL_PASSWORD (8 hex digits, 16 with one area)")
                    }
                    let others = try await TagWriteSupport.write(planning: planning) {
                        try await vicinity.st25tvUnprotect(area: area ?? 1, current: st25tv, configuration: configurationPassword)
                    }
                    return try Self.stillProtected(others ?? [], opened: area ?? 1, areaGiven: area != nil, tag)
                }
                if let area {
                    throw CommandError.usage("--area \(area) is for ST25DV and ST25TV02K areas; this is a \(tag.identity.model)")
                }
                if st25 != nil {
                    throw CommandError("a 16-digit password is for an ST25DV or a single-area ST25TV02K; this is a \(tag.identity.model)", exitCode: .unsupported)
                }
                let type2 = try TagWriteSupport.type2(tag, for: "a password", password: true)
                if type2.isUltralightAES {
                    try await TagWriteSupport.write(planning: planning) { try await type2.unprotectUltralightAES() }
                } else if type2.isUltralightC {
                    try await TagWriteSupport.write(planning: planning) { try await type2.unprotectUltralightC() }
                } else {
                    try await TagWriteSupport.write(planning: planning) { try await type2.removePassword() }
                }
                return []
            },
            report: { (tag, others: [Int]) in
                ProtectReport(
                    uid: TagWriteOperation.uid(tag), model: tag.identity.model, protected: !others.isEmpty,
                    stillProtectedAreas: others.isEmpty ? nil : others)
            },
            sentence: { (tag, others: [Int]) in
                let chip = "\(tag.identity.model) \(TagWriteSupport.spacedHex(tag.identifier))"
                guard !others.isEmpty else { return "Unprotected \(chip): no password or key is needed any more." }
                return "Unprotected area \(area ?? 1) of the \(chip): \(Self.areas(others)) still need\(others.count == 1 ? "s" : "") a password to write."
            })
    }

    /// "area 2", "areas 2 and 3".
    static func areas(_ numbers: [Int]) -> String {
        let names = numbers.map(String.init)
        return names.count == 1 ? "area \(names[0])" : "areas \(names.dropLast().joined(separator: ", ")) and \(names[names.count - 1])"
    }

    /// The ST25 areas `others` still protected after area `opened` was opened: with `--area`
    /// given they are reported (exit 0, the sentence and JSON name them); without it the user
    /// asked for the tag to be open, so it is an error (exit 9) naming them and what to run.
    static func stillProtected(_ others: [Int], opened: Int, areaGiven: Bool, _ tag: NFCTag) throws(CommandError) -> [Int] {
        guard !others.isEmpty, !areaGiven else { return others }
        let need = others.count == 1 ? "needs" : "need"
        throw CommandError(
            "area \(opened) of the \(tag.identity.model) is open, but \(areas(others)) still \(need) a password to write: "
                + "unprotect \(others.count == 1 ? "it" : "each") with --area and \(others.count == 1 ? "its" : "their") password",
            exitCode: .authenticationFailed)
    }

    /// `--privacy`: ``ICodePrivacy/leave(_:through:timeout:)`` on the reader, then a poll for the
    /// tag that answers again.
    private func leavePrivacy(_ context: CommandContext) async throws(CommandError) {
        guard let text = try TagWriteSupport.passwordText(
            file: options.arguments.value(of: Self.passwordFile), option: Self.passwordFile,
            environment: context.environment, variable: "NFCTOOL_PASSWORD")
        else {
            throw .usage("--privacy needs the privacy password: --password-file FILE or NFCTOOL_PASSWORD (8 hex digits)")
        }
        let password: ICodePassword
        do throws(NFCTagError) { password = try ICodePassword(hex: text.text) } catch { throw .usage("\(text.source): \(error.reason)") }
        if options.planning {
            let steps = ICodePrivacy.plannedSteps
            if options.printsJSON {
                context.io.write(try toolJSON(PrivacyPlan(operation: "unprotect --privacy", written: false, commands: steps)))
            } else {
                context.io.write("Plan for unprotect --privacy: \(steps.count) commands to the field, unaddressed; nothing was sent.\n"
                    + steps.enumerated().map { "  \($0.offset + 1). \($0.element)\n" }.joined())
            }
            return
        }
        let device = options.device(context.environment)
        let connection = device.connection
        let seconds = options.seconds
        let (report, label) = try await TagCommandSupport.withReader(connection, trace: options.trace, context) {
            (reader) async throws(CommandError) -> (ProtectReport, ReaderLabel) in
            do throws(NFCTagError) {
                try await ICodePrivacy.leave(password, through: reader, timeout: .seconds(1))
            } catch where error.code == .connectionLost {
                throw .noTag("\(error.reason) on \(connection); nothing was sent after it")
            } catch {
                throw TagCommandSupport.map(error)
            }
            let target = try await TagCommandSupport.waitForTarget(reader, connection, seconds: seconds)
            do {
                let tag = try await NFCTag.connect(to: target, on: reader)
                return (ProtectReport(uid: TagWriteOperation.uid(tag), model: tag.identity.model, protected: false, privacy: false),
                        await ReaderLabel(reader, origin: device.origin))
            } catch {
                throw TagOperation.commandError(error)
            }
        }
        if options.printsJSON {
            context.io.write(try taggedJSON(label, report))
        } else {
            context.io.printLine("Left privacy mode: \(report.model) \(report.uid) answers polls again.")
        }
    }

    /// `unprotect --privacy --plan --json`.
    private struct PrivacyPlan: Encodable, Sendable {
        var operation: String
        var written: Bool
        var commands: [String]
    }
}
