import CommandLineKit
import NFCCore
import NFCTags

/// `nfctool protect`: sets an NTAG21x / Ultralight EV1 password.
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
        help: "MIFARE Ultralight C or AES: the new key, 32 hex digits (3DES: Key1 then Key2; AES-128), read from this file.")
    static let currentKeys = CommandOption.option(
        "current-keys", valueName: "file", help: "MIFARE Ultralight C or AES: the current key, when the tag is protected already.")

    static let configuration = CommandConfiguration(
        name: "protect",
        abstract: "Protect an NTAG21x or Ultralight EV1 with a password, an Ultralight C or AES with a key.",
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
            """,
        options: TagCommandSupport.readerOptions + [TagCommandSupport.timeout, TagCommandSupport.json, passwordFile,
                  currentPasswordFile, keys, currentKeys, readProtect, fromPage, TagWriteSupport.plan]
    )

    let options: TagCommandOptions
    let protection: NTAGProtection

    init(_ arguments: ParsedArguments) throws(CommandError) {
        options = try TagCommandOptions(arguments)
        let first = try arguments.value(of: Self.fromPage) { Int($0).flatMap { (3...255).contains($0) ? $0 : nil } } ?? 4
        protection = NTAGProtection(firstProtectedPage: first, readProtected: arguments.contains(Self.readProtect))
    }

    func run(_ context: CommandContext) async throws(CommandError) {
        if let newKey = try TagWriteSupport.ultralightCKey(file: options.arguments.value(of: Self.keys), option: Self.keys) {
            try await protectUltralightC(newKey, context)
            return
        }
        guard let new = try TagWriteSupport.password(
            file: options.arguments.value(of: Self.passwordFile), option: Self.passwordFile,
            environment: context.environment, variable: "NFCTOOL_PASSWORD")
        else {
            throw .usage("no password given: use --password-file FILE or set NFCTOOL_PASSWORD (never on the command line)")
        }
        let current = try TagWriteSupport.password(
            file: options.arguments.value(of: Self.currentPasswordFile), option: Self.currentPasswordFile,
            environment: context.environment, variable: nil)
        let protection = protection
        try await TagWriteOperation.run(
            "protect", options, password: current, context,
            body: { tag, reader, planning in
                let type2 = try TagWriteSupport.type2(tag, for: "a password")
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
                ProtectReport(
                    uid: TagWriteOperation.uid(tag), model: tag.identity.model, protected: true,
                    firstProtectedPage: protection.firstProtectedPage, readProtected: protection.readProtected)
            },
            sentence: { tag, _ in
                let what = protection.readProtected ? "read and write" : "write"
                return "Protected \(tag.identity.model) \(TagWriteSupport.spacedHex(tag.identifier)): pages \(protection.firstProtectedPage) on need the password to \(what)."
            })
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
                do {
                    try await TagWriteSupport.write(planning: planning) {
                        if type2.isUltralightAES {
                            try await type2.protectUltralightAES(with: newAESKey, protection: aesProtection)
                        } else {
                            try await type2.protectUltralightC(with: newKey, protection: protection)
                        }
                    }
                } catch let error as NFCTagError where planning && error.code == .authenticationFailed {
                    // The new key was never written when planning: its check after the planned
                    // writes fails. A refusal before any write is the current key's: an error.
                    guard let planner = reader as? PlanningReader, await !planner.writes.isEmpty else { throw error }
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
    var readProtected: Bool?
}
