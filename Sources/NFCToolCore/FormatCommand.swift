import CommandLineKit
import NFCCore
import NFCTags

/// `nfctool format`: initialises a blank tag for NDEF.
struct FormatCommand: TagCommand {
    static let force = CommandOption.flag("force", help: "Empty a tag that already holds an NDEF message instead of refusing.")

    static let configuration = CommandConfiguration(
        name: "format",
        abstract: "Format a blank tag for NDEF, holding an empty message.",
        discussion: """
            Writes the platform's NDEF structures (Type 2 capability container and TLV area, \
            Type 3 attribute block, Type 5 CC, the MIFARE Classic MAD and NFC sectors). A tag \
            that already holds data is left alone (exit 11) unless --force is given; then its \
            message is emptied. A Type 2 capability container is one-time programmable: one \
            that no write can turn into the NDEF CC the tag needs (CC3 F0 refuses reading for \
            good) exits 10, nothing written; otherwise format asks first, as lock does, and \
            without a terminal it needs --yes (else exit 64). An NTAG213/215/216 mirror is \
            turned off. --plan lists the writes, marking the one-time programmable ones, and \
            sends none.

            Examples:
              nfctool format --device sim:ultralight
              nfctool format --force --yes
              nfctool format --plan --json
            """,
        options: TagCommandSupport.readerOptions + [TagCommandSupport.timeout, TagCommandSupport.json, force, TagWriteSupport.yes,
                  TagWriteSupport.passwordFile, TagWriteSupport.plan]
    )

    let options: TagCommandOptions

    func run(_ context: CommandContext) async throws(CommandError) {
        let confirmed = try TagWriteSupport.confirmation("format writes the tag's one-time programmable capability container", options, context)
        let password = try options.password(context)
        let forced = options.arguments.contains(Self.force)
        try await TagWriteOperation.run(
            "format", options, password: password, context,
            body: { tag, _, planning in
                if !planning {
                    try context.confirm(Self.warning(tag), confirmed: confirmed)
                }
                do {
                    try await tag.ndef.format(force: forced)
                } catch let error as NFCTagError where error.code == .alreadyFormatted {
                    throw CommandError("\(error.reason); nothing was written (add --force to empty it)", exitCode: .holdsData)
                }
                return try await tag.ndef.queryNDEFStatus()
            },
            report: { tag, query in TagCapacityReport(tag, capacity: query.capacity) },
            sentence: { tag, query in
                "Formatted \(tag.identity.model) \(TagWriteSupport.spacedHex(tag.identifier)) for NDEF: an empty message, \(query.capacity) bytes free."
            })
    }

    /// What is said before formatting: the tag, and that the capability container is for good.
    static func warning(_ tag: NFCTag) -> String {
        "formatting the \(tag.identity.model) with UID \(TagWriteSupport.spacedHex(tag.identifier)) writes its capability container, which is one-time programmable: this cannot be undone."
    }
}
