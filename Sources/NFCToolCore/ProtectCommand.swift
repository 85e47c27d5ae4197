import CommandLineKit
import NFCCore
import NFCTags

/// `nfctool protect`: sets an NTAG21x / Ultralight EV1 password, an Ultralight C key, or the
/// passwords and page protection of an ICODE SLIX2 / SLIX-S (privacy on those and the SLIX-L).
struct ProtectCommand: ToolCommand {
    static let passwordFile = CommandOption.option(
        "password-file", valueName: "file",
        help: "The new password PWD[:PACK] in hex (8[+4] digits), read from this file (or set NFCTOOL_PASSWORD).")
    static let currentPasswordFile = CommandOption.option(
        "current-password-file", valueName: "file", help: "The current password, when the tag is protected already (to change it).")
    static let readProtect = CommandOption.flag("read-protect", help: "Reading needs the password too (phones then cannot read the tag).")
    static let fromPage = CommandOption.option("from-page", valueName: "n", help: "The first protected page (AUTH0; default 4, the whole NDEF area).")
    static let keys = CommandOption.option(
        "keys", valueName: "file",
        help: "MIFARE Ultralight C or AES: the new key, 32 hex digits (3DES: Key1 then Key2; AES-128); MIFARE DESFire: the new keys as format --keys reads them ('picc aes …', 'application …', optionally 'version N'). Read from this file.")
    static let currentKeys = CommandOption.option(
        "current-keys", valueName: "file", help: "MIFARE Ultralight C or AES: the current key, when the tag is protected already; MIFARE DESFire: the current keys (default: the factory DES keys).")
    static let fromBlock = CommandOption.option(
        "from-block", valueName: "n",
        help: "ICODE SLIX2/SLIX-S: the first protected block (default 0, the whole memory; a SLIX-S protects whole pages of 4 blocks). ST25DV --area 2–4: where the area begins (a multiple of 8).")
    static let area = CommandOption.option(
        "area", valueName: "n", help: "ST25DV: the area to protect, 1–4 (default 1, all of the memory as delivered); areas 2–4 take --read-protect and --from-block (needed while the area holds no block, as delivered). ST25TV02K: 1 or 2 (two areas only).")
    static let areaPassword = CommandOption.option(
        "area-password", valueName: "n", help: "ST25DV: the RF password, 1–3, that guards the area (default the area's number; 3 for area 4).")
    static let lockPassword = CommandOption.flag(
        "lock-password", help: "ICODE: LOCK PASSWORD on the passwords set, so they can never change (irreversible: needs --yes).")
    static let sixtyFourBit = CommandOption.flag(
        "64-bit", help: "ICODE SLIX2/SLIX-S: 64-bit password mode, read and write password together (irreversible: needs --yes).")
    static let lockProtection = CommandOption.flag(
        "lock-protection",
        help: "ICODE SLIX2/SLIX-S, NTAG 5: LOCK PAGE PROTECTION CONDITION after PROTECT PAGE, so the protection (and the SLIX2's pointer) can never change and unprotect is refused (irreversible: needs --yes).")
    static let privacy = CommandOption.flag(
        "privacy", help: "ICODE SLIX2/SLIX-S/SLIX-L: set the privacy password from the file and ENABLE PRIVACY (the tag then hides: needs --yes).")

    static let password = CommandOption.option(
        "password", valueName: "id",
        help: "ICODE: change only this password to the one of --password-file: read, write, privacy, destroy or eas-afi (the current one from --current-password-file, else 00000000).")
    static let eas = CommandOption.option(
        "eas", valueName: "on|off|lock", help: "ICODE: SET EAS, RESET EAS, or LOCK EAS (irreversible: needs --yes); --password-file gives the EAS/AFI password first when EAS is protected.")
    static let easID = CommandOption.option(
        "eas-id", valueName: "hex4", help: "ICODE SLIX2/SLIX-S/SLIX-L: WRITE EAS ID, the 16-bit EAS ID EAS ALARM selects by (4 hex digits); frozen by --eas lock; --password-file gives the EAS/AFI password first when EAS is protected.")
    static let protectEAS = CommandOption.flag(
        "protect-eas", help: "ICODE: the EAS commands need the EAS/AFI password (of --password-file) from now on (irreversible: needs --yes).")
    static let protectAFI = CommandOption.flag(
        "protect-afi", help: "ICODE: WRITE AFI and LOCK AFI need the EAS/AFI password (of --password-file) from now on (irreversible: needs --yes).")
    static let destroy = CommandOption.flag(
        "destroy", help: "ICODE SLIX2/SLIX-S/SLIX-L: DESTROY with the destroy password of --password-file; the tag never answers again (needs --yes; try --plan first).")

    static let configuration = CommandConfiguration(
        name: "protect",
        abstract: "Password-protect an NTAG21x, Ultralight EV1, ICODE SLIX2/SLIX-S, NTAG 5, ST25DV or ST25TV02K; key an Ultralight C or AES; change a DESFire's keys.",
        discussion: """
            Writes need the password from then on (reads too with --read-protect). Passwords \
            never go in arguments: the new one comes from --password-file or NFCTOOL_PASSWORD, \
            the current one from --current-password-file. The capability container is not \
            touched, so phones still read an unprotected NDEF area. --plan lists the writes \
            (the password pages without their bytes) and sends none.

            A MIFARE Ultralight C is protected with a 3DES key instead (--keys FILE; the \
            current one, if any, from --current-keys FILE): AUTH0 (--from-page) and AUTH1 \
            (--read-protect) are written after the key, so an interrupted protect leaves the \
            tag open or protected by the old or the new key, never by a half-written one.
            A MIFARE Ultralight AES takes an AES-128 key from --keys the same way (its \
            DataProtKey; --read-protect sets PROT); one with secure messaging on is refused.

            Examples:
              NFCTOOL_PASSWORD=12345678:ABCD nfctool protect
              nfctool protect --password-file new.pwd --current-password-file old.pwd
              nfctool protect --password-file pwd.txt --read-protect --from-page 16
              nfctool protect --keys ulc.key --read-protect

            A MIFARE DESFire formatted as NXP AN11004 describes takes a key file of typed \
            lines instead (as format --keys reads it: 'picc aes' and 32 hex digits, \
            'application 2k3des' and 32, optionally 'version N'): its PICC master key (of any \
            type: DES to AES included) and/or the NDEF application's key 0 (within the \
            application's key family, fixed when it was created) change by ChangeKey, from \
            the keys --current-keys FILE holds (default: the factory DES keys), each then \
            confirmed by authenticating with the new key. Losing the new key cannot be \
            undone, so it asks first (--yes). A refused current key exits 9, nothing written; \
            a run cut inside ChangeKey leaves the old or the new key, and running it again \
            with the same files finishes it. --plan lists every command, no key bytes.

              nfctool protect --keys new.keys --current-keys old.keys --yes

            An NXP ICODE SLIX2 or SLIX-S takes its passwords from the same files: 8 hex digits \
            (the write password; with --read-protect also the read password) or READ:WRITE as \
            8:8 digits; the current ones default to the factory 00000000. The write (and read) \
            password is given with SET PASSWORD (XOR the chip's random number), changed with \
            WRITE PASSWORD, and PROTECT PAGE protects the memory from --from-block on. \
            --64-bit and --lock-password cannot be undone and ask for --yes, as does \
            --lock-protection: LOCK PAGE PROTECTION CONDITION after PROTECT PAGE (SLIX2 and \
            NTAG 5: the protection pointer; SLIX-S: each protected page), so the protection \
            never changes again and unprotect is refused (exit 5). --privacy sets the \
            privacy password (SLIX2, SLIX-S, SLIX-L) and hides the tag with ENABLE PRIVACY: it \
            answers nothing until that password is given again, so it asks for --yes as well. \
            A wrong current password exits 9; the chip then answers nothing until it leaves the \
            field, and nothing was written.

              nfctool protect --password-file icode.pwd --read-protect
              nfctool protect --password-file new.pwd --from-block 8

            An ST25DV takes a 64-bit password, 16 hex digits (the current one, by default the \
            factory 0000000000000000, from --current-password-file): PRESENT PASSWORD opens the \
            configuration and area 1 sessions, WRITE CONFIGURATION makes area 1 (all of the \
            memory as delivered) writable only with password 1, then WRITE PASSWORD sets \
            passwords 1 and 0 to the new one. Area 1 is always readable. A wrong current \
            password exits 9 with nothing written. --area 2, 3 or 4 protects another area \
            instead, behind RF password 2, 3 and 3 (--area-password N to choose), reads \
            too with --read-protect; --from-block N (a multiple of 8) makes the area begin \
            there by moving the end of the area before it (ENDA), after the area's protection \
            is written. The area's password, if not set yet, is the factory zeros. The \
            configuration password always becomes the new one: use one password for all areas.

              nfctool protect --password-file st25.pwd --area 2 --from-block 64 --read-protect

            An ST25TV02K or ST25TV512 takes 8 hex digits with two user areas (on the 02K blocks \
            0–31 and 32–63) or 16 with one (the area 1 attribute's MEM_ORG bit, read first, decides; \
            the current password, by default the factory zeros, from --current-password-file). \
            PRESENT PASSWORD 3 checks the configuration password first (a wrong one exits 9, \
            nothing written); the area password (1, or 2 with --area 2) becomes the new one \
            (WRITE PASSWORD after PRESENT PASSWORD; 64 bits as two halves); then WRITE \
            CONFIGURATION sets the area's protection bits (write, or read and write with \
            --read-protect, area 1 included) and password 3 becomes the first 8 digits. A \
            configuration locked for good (LOCK_CFG) is refused with nothing written (exit 5). \
            A run cut anywhere leaves the area open or behind a password you hold; running it \
            again with the same files finishes it. Nothing here is irreversible.

              nfctool protect --password-file tv.pwd --area 2 --read-protect

            Other ICODE passwords and settings: --password ID changes only that password \
            (read, write, privacy, destroy, eas-afi; with --lock-password it is locked after). \
            --eas on|off|lock sets, resets or locks the EAS mode (LOCK EAS freezes the EAS \
            ID too), --eas-id HEX4 writes the EAS ID (WRITE EAS ID; SLIX-S, SLIX-L, SLIX2; \
            info shows it and the EAS mode), --protect-eas and \
            --protect-afi put the EAS commands or WRITE/LOCK AFI behind the EAS/AFI password \
            (PASSWORD PROTECT EAS/AFI); the password file then holds the EAS/AFI password. \
            --destroy sends DESTROY with the destroy password of the file: the tag never \
            answers again, so it asks for --yes and --plan shows it without sending it.

              nfctool protect --password eas-afi --password-file eas.pwd --protect-afi -y
              nfctool protect --destroy --password-file destroy.pwd --plan
            """,
        options: TagCommandSupport.readerOptions + [TagCommandSupport.timeout, TagCommandSupport.json, passwordFile,
                  currentPasswordFile, keys, currentKeys, readProtect, fromPage, fromBlock, area, areaPassword, sixtyFourBit, lockPassword, lockProtection, privacy, password, eas,
                  easID, protectEAS, protectAFI, destroy,
                  TagWriteSupport.yes, TagWriteSupport.plan]
    )

    let options: TagCommandOptions
    let protection: NTAGProtection
    let icodeProtection: ICodeProtection
    /// `--privacy`.
    let hides: Bool
    /// `--password`, `--eas`, `--eas-id`, `--protect-eas`, `--protect-afi`, `--destroy` (with
    /// `--lock-password` when `--password` is given).
    let settings: ICodeSettings

    init(_ arguments: ParsedArguments) throws(CommandError) {
        options = try TagCommandOptions(arguments)
        let first = try arguments.value(of: Self.fromPage) { Int($0).flatMap { (3...255).contains($0) ? $0 : nil } } ?? 4
        protection = NTAGProtection(firstProtectedPage: first, readProtected: arguments.contains(Self.readProtect))
        let firstBlock = try arguments.value(of: Self.fromBlock) { Int($0).flatMap { (0...65535).contains($0) ? $0 : nil } } ?? 0
        icodeProtection = ICodeProtection(
            readProtected: arguments.contains(Self.readProtect), firstProtectedBlock: firstBlock,
            sixtyFourBit: arguments.contains(Self.sixtyFourBit), lockPasswords: arguments.contains(Self.lockPassword),
            lockCondition: arguments.contains(Self.lockProtection))
        hides = arguments.contains(Self.privacy)
        let identifier = try arguments.value(of: Self.password) { (name: String) -> ICodePasswordIdentifier? in
            ["read": .read, "write": .write, "privacy": .privacy, "destroy": .destroy, "eas-afi": .easAFI][name]
        }
        settings = ICodeSettings(
            password: identifier, lockPassword: identifier != nil && arguments.contains(Self.lockPassword),
            eas: try arguments.value(of: Self.eas) { ICodeSettings.EASChange(rawValue: $0) },
            protectEAS: arguments.contains(Self.protectEAS), protectAFI: arguments.contains(Self.protectAFI),
            destroy: arguments.contains(Self.destroy),
            easID: try arguments.value(of: Self.easID) { $0.utf8.count == 4 ? UInt16($0, radix: 16) : nil })
        if settings.destroy && (settings != ICodeSettings(destroy: true) || hides || icodeProtection != ICodeProtection(firstProtectedBlock: firstBlock)) {
            throw .usage("--destroy goes alone (with --password-file): nothing is left to change afterwards")
        }
        if !settings.isEmpty && (hides || icodeProtection.readProtected || icodeProtection.sixtyFourBit || icodeProtection.lockCondition
            || arguments.value(of: Self.fromBlock) != nil) {
            throw .usage("--password, --eas, --eas-id, --protect-eas, --protect-afi and --destroy do not go with page protection or --privacy; run protect twice")
        }
        if hides && icodeProtection.lockCondition {
            throw .usage("--lock-protection locks page protection, which --privacy does not set; run protect twice")
        }
    }

    /// Whether an option only an ICODE chip takes was given.
    private var asksICode: Bool {
        hides || icodeProtection.isIrreversible || options.arguments.value(of: Self.fromBlock) != nil || !settings.isEmpty
    }

    func run(_ context: CommandContext) async throws(CommandError) {
        if let path = options.arguments.value(of: Self.keys), case let text = try TagWriteSupport.keyFileText(path, what: "key file"),
           (try? UltralightCKey(hex: text)) == nil {
            try await protectDESFire(keyText: text, path: path, context)
            return
        }
        if let newKey = try TagWriteSupport.ultralightCKey(file: options.arguments.value(of: Self.keys), option: Self.keys) {
            try await protectUltralightC(newKey, context)
            return
        }
        let given = try TagWriteSupport.passwordText(
            file: options.arguments.value(of: Self.passwordFile), option: Self.passwordFile,
            environment: context.environment, variable: "NFCTOOL_PASSWORD")
        if !settings.isEmpty {
            try await applyICodeSettings(given, context)
            return
        }
        guard let newText = given else {
            throw .usage("no password given: use --password-file FILE or set NFCTOOL_PASSWORD (never on the command line)")
        }
        let currentText = try TagWriteSupport.passwordText(
            file: options.arguments.value(of: Self.currentPasswordFile), option: Self.currentPasswordFile,
            environment: context.environment, variable: nil)
        if let newST25 = try? ST25Password(hex: newText.text) {
            let current = try currentText.map { text throws(CommandError) in try TagWriteSupport.st25Password(text) } ?? .factoryDefault
            try await protectST25(newST25, current: current, texts: (newText, currentText), context)
            return
        }
        if options.arguments.value(of: Self.areaPassword) != nil {
            throw .usage("\(Self.areaPassword.synopsis) is for an ST25DV's areas, whose password is 16 hex digits")
        }
        let newICode = try? ICodePasswords(hex: newText.text)
        // Parsed as ICODE passwords only when the tag turns out to be an ICODE chip: an NTAG
        // password with its PACK is no ICODE password and must not be refused up front.
        let icodeCurrent = { () throws(CommandError) -> ICodePasswords in
            guard let text = currentText else { return .factoryDefault }
            do throws(NFCTagError) { return try ICodePasswords(hex: text.text) } catch { throw CommandError.usage("\(text.source): \(error.reason)") }
        }
        let currentIsICodeOnly = currentText.map { (try? NTAGPassword(hex: $0.text)) == nil && (try? ICodePasswords(hex: $0.text)) != nil } ?? false
        if asksICode || currentIsICodeOnly || (try? NTAGPassword(hex: newText.text)) == nil {
            guard let newICode else {
                throw .usage("\(newText.source): a password is 8 hex digits (NTAG: optionally ':' and a 4-digit PACK; ICODE: or READ:WRITE as 8:8 digits)")
            }
            try await protectICode(newICode, current: try icodeCurrent(), context)
            return
        }
        let new = try TagWriteSupport.ntagPassword(newText)
        let current = try currentText.map { text throws(CommandError) in try TagWriteSupport.ntagPassword(text) }
        let protection = protection
        try await TagWriteOperation.run(
            "protect", options, password: current, context,
            body: { tag, reader, planning in
                if case .iso15693(let vicinity) = tag, vicinity.hasST25TVConfiguration {
                    try await Self.protectST25TV(vicinity, new: newText, current: currentText, protection: try st25tvProtection(), planning: planning)
                    return
                }
                if let area = options.arguments.value(of: Self.area) {
                    throw CommandError.usage("--area \(area) is for ST25DV and ST25TV02K areas; this is a \(tag.identity.model)")
                }
                if case .iso15693(let vicinity) = tag, vicinity.icodeVariant != nil {
                    guard let newICode else { throw CommandError.usage("ICODE passwords are 8 hex digits, or READ:WRITE as 8:8 digits") }
                    try refuseFromPageOnICode()
                    try await Self.protectICode(vicinity, newICode, current: try icodeCurrent(),
                                                protection: icodeProtection, hides: false, planning: planning)
                    return
                }
                if case .iso15693(let vicinity) = tag, vicinity.hasST25DVPasswords {
                    throw CommandError.usage("an ST25DV password is 16 hex digits (64 bits)")
                }
                let type2 = try TagWriteSupport.type2(tag, for: "a password", password: true)
                if type2.isUltralightC {
                    throw CommandError.usage("a MIFARE Ultralight C is protected with a 3DES key: --keys FILE")
                }
                do {
                    try await TagWriteSupport.write(planning: planning) {
                        try await type2.setPassword(new, protection: protection)
                    }
                } catch let error as NFCTagError where planning && error.code == .authenticationFailed {
                    // When planning, the new password was never written, so its check after the
                    // planned writes may fail. A refusal before any write was planned is the
                    // current password's (--current-password-file): an error, as without --plan.
                    guard let planner = reader as? PlanningReader, await !planner.writes.isEmpty else { throw error }
                }
            },
            report: { tag, _ in
                if case .iso15693(let vicinity) = tag, vicinity.hasST25TVConfiguration, let st25tv = try? st25tvProtection() {
                    return Self.st25tvReport(tag, st25tv)
                }
                if case .iso15693 = tag { return Self.icodeReport(tag, icodeProtection, hides: false) }
                return ProtectReport(
                    uid: TagWriteOperation.uid(tag), model: tag.identity.model, protected: true,
                    firstProtectedPage: protection.firstProtectedPage, readProtected: protection.readProtected)
            },
            sentence: { tag, _ in
                if case .iso15693(let vicinity) = tag, vicinity.hasST25TVConfiguration, let st25tv = try? st25tvProtection() {
                    return Self.st25tvSentence(tag, st25tv)
                }
                if case .iso15693 = tag { return Self.icodeSentence(tag, icodeProtection, hides: false) }
                let what = protection.readProtected ? "read and write" : "write"
                return "Protected \(tag.identity.model) \(TagWriteSupport.spacedHex(tag.identifier)): pages \(protection.firstProtectedPage) on need the password to \(what)."
            })
    }

    /// `--from-page` counts NTAG pages; on an ICODE chip it would be ignored, so it is refused
    /// (before anything is sent) in favour of `--from-block`.
    private func refuseFromPageOnICode() throws(CommandError) {
        if options.arguments.value(of: Self.fromPage) != nil {
            throw .usage("--from-page counts NTAG/Ultralight pages; an ICODE chip takes --from-block N (its first protected block)")
        }
    }

    /// The ST25DV path (a 16-digit password): one area protected behind the password
    /// (``ISO15693Tag/st25Protect(_:password:current:)``; `--area`, `--area-password`,
    /// `--read-protect` and `--from-block` for areas 2–4). The options of other chips, and what
    /// area 1 cannot take, are refused before anything is sent.
    private func protectST25(
        _ new: ST25Password, current: ST25Password, texts: (new: (text: String, source: String), current: (text: String, source: String)?),
        _ context: CommandContext
    ) async throws(CommandError) {
        let foreign: [CommandOption] = [Self.fromPage, Self.sixtyFourBit, Self.lockPassword, Self.lockProtection, Self.privacy]
        if let given = foreign.first(where: { options.arguments.contains($0) || options.arguments.value(of: $0) != nil }) {
            throw .usage("\(given.synopsis) is not for an ST25DV (16 hex digits protect an ST25DV area; other chips take 8)")
        }
        let arguments = options.arguments
        let area = try arguments.value(of: Self.area) { Int($0).flatMap { (1...4).contains($0) ? $0 : nil } } ?? 1
        let number = try arguments.value(of: Self.areaPassword) { UInt8($0).flatMap { (1...3).contains($0) ? $0 : nil } }
        let first = try arguments.value(of: Self.fromBlock) { Int($0) }
        // Checked on an ST25DV only: an ST25TV02K with one area takes 16 digits too, and its
        // options (st25tvProtection) are checked when the chip is known.
        let checked: Result<ST25AreaProtection, CommandError>
        do throws(NFCTagError) {
            checked = .success(try ST25AreaProtection(area: area, passwordNumber: number, readProtected: arguments.contains(Self.readProtect), firstBlock: first))
        } catch {
            checked = .failure(.usage("\(error.reason) (--area, --area-password, --read-protect, --from-block)"))
        }
        let protection = try? checked.get()
        try await TagWriteOperation.run(
            "protect", options, password: nil, context,
            body: { tag, _, planning in
                if case .iso15693(let vicinity) = tag, vicinity.hasST25TVConfiguration {
                    try await Self.protectST25TV(vicinity, new: texts.new, current: texts.current, protection: try st25tvProtection(), planning: planning)
                    return nil
                }
                let protection = try checked.get()
                guard case .iso15693(let vicinity) = tag, vicinity.hasST25DVPasswords else {
                    throw CommandError(
                        "a 16-digit password is for an ST25DV's areas; this is a \(tag.identity.model) (NTAG and ICODE passwords are 8 digits)",
                        exitCode: .unsupported)
                }
                return try await TagWriteSupport.write(planning: planning) { try await vicinity.st25Protect(protection, password: new, current: current) }
            },
            report: { (tag, firstBlock: Int?) in
                if let st25tv = try? st25tvProtection(), case .iso15693(let vicinity) = tag, vicinity.hasST25TVConfiguration {
                    return Self.st25tvReport(tag, st25tv)
                }
                return ProtectReport(
                    uid: TagWriteOperation.uid(tag), model: tag.identity.model, protected: true, firstProtectedBlock: firstBlock ?? protection?.firstBlock ?? 0,
                    readProtected: protection?.readProtected ?? false)
            },
            sentence: { tag, _ in
                if let st25tv = try? st25tvProtection(), case .iso15693(let vicinity) = tag, vicinity.hasST25TVConfiguration {
                    return Self.st25tvSentence(tag, st25tv)
                }
                let what = protection?.readProtected == true ? "read and write" : "write"
                return "Protected \(tag.identity.model) \(TagWriteSupport.spacedHex(tag.identifier)): area \(protection?.area ?? 1) needs password \(protection?.passwordNumber ?? 1) to \(what) (configuration password changed too)."
            })
    }

    /// The ICODE path: passwords and page protection (SLIX2, SLIX-S), or privacy (`--privacy`).
    private func protectICode(_ new: ICodePasswords, current: ICodePasswords, _ context: CommandContext) async throws(CommandError) {
        try refuseFromPageOnICode()
        let protection = icodeProtection
        let hides = hides
        var confirmed = false
        if hides || protection.isIrreversible {
            let what = hides ? "--privacy hides the tag until its privacy password is given" : "--64-bit, --lock-password and --lock-protection change the chip"
            confirmed = try TagWriteSupport.confirmation(what, options, context)
        }
        try await TagWriteOperation.run(
            "protect", options, password: nil, context,
            body: { tag, _, planning in
                guard case .iso15693(let vicinity) = tag, vicinity.icodeVariant != nil else {
                    throw CommandError(
                        "--privacy, --64-bit, --lock-password, --lock-protection, --from-block and READ:WRITE passwords are for NXP ICODE chips; this is a \(tag.identity.model)",
                        exitCode: .unsupported)
                }
                if (hides || protection.isIrreversible) && !planning {
                    try context.confirm(Self.icodeWarning(tag, protection, hides: hides), confirmed: confirmed)
                }
                try await Self.protectICode(vicinity, new, current: current, protection: protection, hides: hides, planning: planning)
            },
            report: { tag, _ in Self.icodeReport(tag, protection, hides: hides) },
            sentence: { tag, _ in Self.icodeSentence(tag, protection, hides: hides) })
    }

    /// Runs the ICODE protection on `vicinity` (``ISO15693Tag/icodeProtect(passwords:current:protection:)``,
    /// or the privacy password and ENABLE PRIVACY).
    static func protectICode(
        _ vicinity: ISO15693Tag, _ new: ICodePasswords, current: ICodePasswords, protection: ICodeProtection, hides: Bool, planning: Bool
    ) async throws {
        try await TagWriteSupport.write(planning: planning) {
            if hides {
                guard vicinity.icodeVariant?.hasPrivacy == true else {
                    throw NFCTagError(.notSupported, "the \(vicinity.identity.model) has no privacy mode")
                }
                try await vicinity.icodeSetPassword(.privacy, current.write)
                if new.write != current.write {
                    try await vicinity.icodeWritePassword(.privacy, new.write)
                }
                try await vicinity.icodeEnablePrivacy(new.write)
            } else {
                try await vicinity.icodeProtect(passwords: new, current: current, protection: protection)
            }
        }
    }

    /// `--password`, `--eas`, `--protect-eas`, `--protect-afi`, `--destroy`:
    /// ``ISO15693Tag/icodeApply(_:password:current:)``.
    private func applyICodeSettings(_ given: (text: String, source: String)?, _ context: CommandContext) async throws(CommandError) {
        let settings = settings
        let password = try given.map { text throws(CommandError) -> ICodePassword in
            do throws(NFCTagError) { return try ICodePassword(hex: text.text) } catch { throw CommandError.usage("\(text.source): \(error.reason)") }
        }
        if password == nil && (settings.password != nil || settings.destroy || settings.protectEAS || settings.protectAFI) {
            throw .usage("no password given: use --password-file FILE or set NFCTOOL_PASSWORD (never on the command line)")
        }
        let currentText = try TagWriteSupport.passwordText(
            file: options.arguments.value(of: Self.currentPasswordFile), option: Self.currentPasswordFile,
            environment: context.environment, variable: nil)
        let current = try currentText.map { text throws(CommandError) -> ICodePassword in
            do throws(NFCTagError) { return try ICodePassword(hex: text.text) } catch { throw CommandError.usage("\(text.source): \(error.reason)") }
        } ?? .factoryDefault
        var confirmed = false
        if settings.isIrreversible {
            confirmed = try TagWriteSupport.confirmation(
                settings.destroy ? "--destroy silences the tag for good" : "--lock-password, --eas lock, --protect-eas and --protect-afi change the chip",
                options, context)
        }
        try await TagWriteOperation.run(
            "protect", options, password: nil, context,
            body: { tag, _, planning in
                guard case .iso15693(let vicinity) = tag, vicinity.icodeVariant != nil else {
                    throw CommandError(
                        "--password, --eas, --eas-id, --protect-eas, --protect-afi and --destroy are for NXP ICODE chips; this is a \(tag.identity.model)",
                        exitCode: .unsupported)
                }
                if settings.isIrreversible && !planning {
                    try context.confirm(Self.settingsWarning(tag, settings), confirmed: confirmed)
                }
                try await TagWriteSupport.write(planning: planning) {
                    try await vicinity.icodeApply(settings, password: password, current: current)
                }
            },
            report: { tag, _ in
                ProtectReport(uid: TagWriteOperation.uid(tag), model: tag.identity.model, protected: true, destroyed: settings.destroy ? true : nil)
            },
            sentence: { tag, _ in
                let chip = "\(tag.identity.model) \(TagWriteSupport.spacedHex(tag.identifier))"
                if settings.destroy { return "Destroyed \(chip): it answers nothing any more." }
                var done: [String] = []
                if let identifier = settings.password { done.append("\(identifier) password changed" + (settings.lockPassword ? " and locked" : "")) }
                if let easID = settings.easID { done.append("EAS ID \(Hex.number(easID, width: 4))") }
                if let eas = settings.eas { done.append("EAS \(eas.rawValue == "lock" ? "locked" : eas.rawValue)") }
                if settings.protectEAS { done.append("EAS behind the EAS/AFI password") }
                if settings.protectAFI { done.append("AFI behind the EAS/AFI password") }
                return "\(chip): " + done.joined(separator: "; ") + "."
            })
    }

    static func settingsWarning(_ tag: NFCTag, _ settings: ICodeSettings) -> String {
        let chip = "\(tag.identity.model) \(TagWriteSupport.spacedHex(tag.identifier))"
        if settings.destroy { return "DESTROY: the \(chip) will never answer again, to any reader. This cannot be undone." }
        var steps: [String] = []
        if settings.lockPassword, let identifier = settings.password { steps.append("the \(identifier) password will be locked for good") }
        if settings.eas == .lock { steps.append("the EAS mode will be locked as it is") }
        if settings.protectEAS { steps.append("EAS will need the EAS/AFI password for good") }
        if settings.protectAFI { steps.append("WRITE AFI and LOCK AFI will need the EAS/AFI password for good") }
        return "On the \(chip), " + steps.joined(separator: " and ") + "."
    }

    static func icodeWarning(_ tag: NFCTag, _ protection: ICodeProtection, hides: Bool) -> String {
        let chip = "\(tag.identity.model) \(TagWriteSupport.spacedHex(tag.identifier))"
        if hides { return "The \(chip) will answer nothing (no inventory, no read) until its privacy password is given again." }
        var steps: [String] = []
        if protection.sixtyFourBit { steps.append("64-bit password mode cannot be turned off") }
        if protection.lockPasswords { steps.append("the passwords will be locked for good") }
        if protection.lockCondition { steps.append("the page protection will be locked for good (unprotect will be refused)") }
        return "On the \(chip), " + steps.joined(separator: " and ") + "."
    }

    /// Where the protection really starts on `tag`'s chip (a SLIX-S rounds down to its page).
    static func icodeProtectedFrom(_ tag: NFCTag, _ protection: ICodeProtection) -> Int {
        guard case .iso15693(let vicinity) = tag, let variant = vicinity.icodeVariant else { return protection.firstProtectedBlock }
        return protection.protectedFrom(on: variant)
    }

    static func icodeReport(_ tag: NFCTag, _ protection: ICodeProtection, hides: Bool) -> ProtectReport {
        ProtectReport(
            uid: TagWriteOperation.uid(tag), model: tag.identity.model, protected: true,
            firstProtectedBlock: hides ? nil : icodeProtectedFrom(tag, protection), readProtected: hides ? nil : protection.readProtected,
            privacy: hides ? true : nil, sixtyFourBit: protection.sixtyFourBit ? true : nil, passwordsLocked: protection.lockPasswords ? true : nil,
            conditionLocked: !hides && protection.lockCondition ? true : nil)
    }

    static func icodeSentence(_ tag: NFCTag, _ protection: ICodeProtection, hides: Bool) -> String {
        let chip = "\(tag.identity.model) \(TagWriteSupport.spacedHex(tag.identifier))"
        if hides { return "Privacy enabled on \(chip): it answers nothing until its privacy password is given." }
        let what = protection.readProtected ? "read and write" : "write"
        let from = icodeProtectedFrom(tag, protection)
        let rounded = from == protection.firstProtectedBlock
            ? "" : " (block \(protection.firstProtectedBlock) rounded down to the start of its page of \(ICodeVariant.blocksPerPage) blocks)"
        let locked = protection.lockCondition ? "; the protection condition is locked (read back), so it can never change" : ""
        return "Protected \(chip): blocks \(from) on need the password to \(what)\(rounded)\(locked)."
    }

    /// `--keys`: the MIFARE Ultralight C path (``Type2Tag/protectUltralightC(with:protection:)``)
    /// and the Ultralight AES one (``Type2Tag/protectUltralightAES(with:protection:)``).
    private func protectUltralightC(_ newKey: UltralightCKey, _ context: CommandContext) async throws(CommandError) {
        let current = try TagWriteSupport.ultralightCKey(file: options.arguments.value(of: Self.currentKeys), option: Self.currentKeys)
        let protection = UltralightCProtection(
            firstProtectedPage: self.protection.firstProtectedPage, readProtected: self.protection.readProtected)
        let aesProtection = UltralightAESProtection(
            firstProtectedPage: self.protection.firstProtectedPage, readProtected: self.protection.readProtected)
        let newAESKey = try? UltralightAESKey(bytes: newKey.bytes)
        try await TagWriteOperation.run(
            "protect", options, password: nil, ultralightCKey: current, context,
            body: { tag, reader, planning in
                let type2 = try TagWriteSupport.type2(tag, for: "a key")
                guard type2.isUltralightC || type2.isUltralightAES, let newAESKey else {
                    throw CommandError(
                        "--keys protects a MIFARE Ultralight C or AES; this is a \(tag.identity.model) (use --password-file)", exitCode: .unsupported)
                }
                let pages = type2.isUltralightAES ? UltralightAESMemory.totalPages : UltralightCMemory.totalPages
                guard protection.firstProtectedPage < pages else {
                    throw CommandError.usage("--from-page: a \(tag.identity.model) has pages 3…\(pages - 1)")
                }
                // A plan leaves out the check with the new key afterwards: that key was never
                // written, and a failed AUTHENTICATE counts toward an Ultralight AES's AUTH_LIM.
                try await TagWriteSupport.write(planning: planning) {
                    if type2.isUltralightAES {
                        try await type2.protectUltralightAES(with: newAESKey, protection: aesProtection, verify: !planning)
                    } else {
                        try await type2.protectUltralightC(with: newKey, protection: protection, verify: !planning)
                    }
                }
            },
            report: { tag, _ in
                ProtectReport(
                    uid: TagWriteOperation.uid(tag), model: tag.identity.model, protected: true,
                    firstProtectedPage: protection.firstProtectedPage, readProtected: protection.readProtected)
            },
            sentence: { tag, _ in
                let what = protection.readProtected ? "read and write" : "write"
                let kind = tag.identity.family == .ultralightAES ? "AES" : "3DES"
                return "Protected \(tag.identity.model) \(TagWriteSupport.spacedHex(tag.identifier)): pages \(protection.firstProtectedPage) on need the \(kind) key to \(what)."
            })
    }
}

/// `protect --json` and `unprotect --json`.
struct ProtectReport: Encodable, Sendable {
    var uid: String
    var model: String
    var protected: Bool
    var firstProtectedPage: Int?
    /// ICODE: the first protected block.
    var firstProtectedBlock: Int?
    var readProtected: Bool?
    /// ICODE: privacy mode enabled.
    var privacy: Bool?
    /// ICODE: 64-bit password mode.
    var sixtyFourBit: Bool?
    /// ICODE: passwords locked.
    var passwordsLocked: Bool?
    /// ICODE: the page protection condition locked (LOCK PAGE PROTECTION CONDITION), read back.
    var conditionLocked: Bool?
    /// ICODE: DESTROY taken.
    var destroyed: Bool?
    /// ST25 `unprotect --area`: the other areas that still need a password to write.
    var stillProtectedAreas: [Int]?
}
