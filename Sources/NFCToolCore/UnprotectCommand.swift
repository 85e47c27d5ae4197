import CommandLineKit
import NFCCore
import NFCTags

/// `nfctool unprotect`: removes an NTAG21x / Ultralight EV1 password.
struct UnprotectCommand: TagCommand {
    static let passwordFile = CommandOption.option(
        "password-file", valueName: "file",
        help: "The current password PWD[:PACK] in hex, read from this file (or set NFCTOOL_PASSWORD).")

    static let configuration = CommandConfiguration(
        name: "unprotect",
        abstract: "Remove the password of an NTAG21x or Ultralight EV1.",
        discussion: """
            Needs the current password (--password-file or NFCTOOL_PASSWORD; never in \
            arguments). AUTH0 is cleared first, so the tag is open from the first write on; then \
            PROT and AUTHLIM are cleared and the password set back to the factory FFFFFFFF. A \
            wrong password exits 9 with nothing written. --plan lists the writes and sends none.

            Examples:
              NFCTOOL_PASSWORD=12345678:ABCD nfctool unprotect
              nfctool unprotect --password-file pwd.txt --device pn532_uart:/dev/ttyUSB0
            """,
        options: TagCommandSupport.readerOptions + [TagCommandSupport.timeout, TagCommandSupport.json, passwordFile,
                  TagWriteSupport.plan]
    )

    let options: TagCommandOptions

    func run(_ context: CommandContext) async throws(CommandError) {
        let current = try TagWriteSupport.password(
            file: options.arguments.value(of: Self.passwordFile), option: Self.passwordFile,
            environment: context.environment, variable: "NFCTOOL_PASSWORD")
        try await TagWriteOperation.run(
            "unprotect", options, password: current, context,
            body: { tag, _, planning in
                let type2 = try TagWriteSupport.type2(tag, for: "a password")
                try await TagWriteSupport.write(planning: planning) { try await type2.removePassword() }
            },
            report: { tag, _ in ProtectReport(uid: TagWriteOperation.uid(tag), model: tag.identity.model, protected: false) },
            sentence: { tag, _ in
                "Unprotected \(tag.identity.model) \(TagWriteSupport.spacedHex(tag.identifier)): no password is needed any more."
            })
    }
}
