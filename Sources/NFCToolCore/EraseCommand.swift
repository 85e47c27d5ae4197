import CommandLineKit
import NFCCore
import NFCTags

/// `nfctool erase`: empties the NDEF message of a formatted tag.
struct EraseCommand: TagCommand {
    static let configuration = CommandConfiguration(
        name: "erase",
        abstract: "Empty the NDEF message of a tag (it stays formatted).",
        discussion: """
            Leaves an NDEF-formatted tag holding an empty message, as a new tag comes: this is \
            'format --force' on a tag that already holds NDEF (Type 2: the NDEF TLV's length \
            set to 0, one page write). A tag without NDEF exits 4, a read-only one 5; nothing \
            else is changed, except that an NTAG213/215/216 mirror is turned off. --plan lists \
            the writes and sends none.

            Examples:
              nfctool erase --device sim:ntag215
              nfctool erase --plan
            """,
        options: TagCommandSupport.readerOptions + [TagCommandSupport.timeout, TagCommandSupport.json,
                  TagWriteSupport.passwordFile, TagWriteSupport.plan]
    )

    let options: TagCommandOptions

    func run(_ context: CommandContext) async throws(CommandError) {
        let password = try options.password(context)
        try await TagWriteOperation.run(
            "erase", options, password: password, context,
            body: { tag, _, _ in
                let query = try await tag.ndef.queryNDEFStatus()
                try TagWriteSupport.requireWritable(query, tag, noNDEF: "holds no NDEF: nothing to erase (see 'nfctool format')")
                try await tag.ndef.format(force: true)
                return query.capacity
            },
            report: { tag, capacity in TagCapacityReport(tag, capacity: capacity) },
            sentence: { tag, capacity in
                "Erased \(tag.identity.model) \(TagWriteSupport.spacedHex(tag.identifier)): empty NDEF message, \(capacity) bytes free."
            })
    }
}
