import NFCCore
import NFCTags

/// `nfctool format`: initialises a blank tag for NDEF.
struct FormatCommand: ToolCommand {
    static let force = CommandOption.flag("force", help: "Empty a tag that already holds an NDEF message instead of refusing.")

    static let configuration = CommandConfiguration(
        name: "format",
        abstract: "Format a blank tag for NDEF, holding an empty message.",
        discussion: """
            Writes the platform's NDEF structures (Type 2 capability container and TLV area, \
            Type 3 attribute block, Type 5 CC, the MIFARE Classic MAD and NFC sectors). A tag \
            that already holds data is left alone (exit 11) unless --force is given; then its \
            message is emptied. --plan lists the writes, marking the one-time programmable \
            ones, and sends none.

            Examples:
              nfctool format --device sim:ultralight
              nfctool format --force
              nfctool format --plan --json
            """,
        options: [TagCommandSupport.device, TagCommandSupport.timeout, TagCommandSupport.json, force,
                  TagWriteSupport.passwordFile, TagWriteSupport.plan, TagWriteSupport.dryRun]
    )

    let arguments: ParsedArguments
    let seconds: Double
    let printsJSON: Bool
    let forced: Bool
    let planning: Bool

    init(_ arguments: ParsedArguments) throws(CommandError) {
        self.arguments = arguments
        seconds = try TagCommandSupport.timeoutSeconds(arguments)
        printsJSON = arguments.contains(TagCommandSupport.json)
        forced = arguments.contains(Self.force)
        planning = TagWriteSupport.isPlan(arguments)
    }

    func run(_ context: CommandContext) async throws(CommandError) {
        let password = try TagWriteSupport.password(arguments, context)
        let connection = TagCommandSupport.connection(arguments, context.environment)
        let forced = forced
        let ((tag, query, planned), reader) = try await TagWriteSupport.withLabelledTag(connection: connection, seconds: seconds, planning: planning) {
            (found, _, planner) async throws(CommandError) -> (NFCTag, NDEFQuery, [PlannedWrite]?) in
            let tag = TagWriteSupport.tag(found, password: password)
            do throws(NFCTagError) {
                try await tag.ndef.format(force: forced)
            } catch {
                if error.code == .alreadyFormatted {
                    throw CommandError("\(error.reason); nothing was written (add --force to empty it)", exitCode: .holdsData)
                }
                throw TagCommandSupport.map(error)
            }
            return (found, try await TagWriteSupport.query(tag), await planner?.writes)
        }
        if let planned {
            try TagWriteSupport.printPlan(planned, of: tag, operation: "format", json: printsJSON, reader: reader, context)
        } else if printsJSON {
            context.io.write(try taggedJSON(reader, FormatReport(
                uid: Hex.encode(tag.identifier, uppercase: true), model: tag.identity.model, capacity: query.capacity)))
        } else {
            TagWriteSupport.say("Formatted \(tag.identity.model) \(TagWriteSupport.spacedHex(tag.identifier)) for NDEF: an empty message, \(query.capacity) bytes free.", context)
            TagWriteSupport.sayReader(reader, arguments, context)
        }
    }

    /// `format --json`.
    private struct FormatReport: Encodable, Sendable {
        var uid: String
        var model: String
        var capacity: Int
    }
}
