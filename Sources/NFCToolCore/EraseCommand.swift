import NFCCore
import NFCTags

/// `nfctool erase`: empties the NDEF message of a formatted tag.
struct EraseCommand: ToolCommand {
    static let configuration = CommandConfiguration(
        name: "erase",
        abstract: "Empty the NDEF message of a tag (it stays formatted).",
        discussion: """
            Leaves an NDEF-formatted tag holding an empty message, as a new tag comes: this is \
            'format --force' on a tag that already holds NDEF (Type 2: the NDEF TLV's length \
            set to 0, one page write). A tag without NDEF exits 4, a read-only one 5; nothing \
            else is changed. --plan lists the writes and sends none.

            Examples:
              nfctool erase --device sim:ntag215
              nfctool erase --plan
            """,
        options: [TagCommandSupport.device, TagCommandSupport.timeout, TagCommandSupport.json,
                  TagWriteSupport.passwordFile, TagWriteSupport.plan, TagWriteSupport.dryRun]
    )

    let arguments: ParsedArguments
    let seconds: Double
    let printsJSON: Bool
    let planning: Bool

    init(_ arguments: ParsedArguments) throws(CommandError) {
        self.arguments = arguments
        seconds = try TagCommandSupport.timeoutSeconds(arguments)
        printsJSON = arguments.contains(TagCommandSupport.json)
        planning = TagWriteSupport.isPlan(arguments)
    }

    func run(_ context: CommandContext) async throws(CommandError) {
        let password = try TagWriteSupport.password(arguments, context)
        let connection = TagCommandSupport.connection(arguments, context.environment)
        let ((tag, capacity, planned), reader) = try await TagWriteSupport.withLabelledTag(connection: connection, seconds: seconds, planning: planning) {
            (found, _, planner) async throws(CommandError) -> (NFCTag, Int, [PlannedWrite]?) in
            let tag = TagWriteSupport.tag(found, password: password)
            let query = try await TagWriteSupport.query(tag)
            switch query.status {
            case .notSupported:
                throw CommandError("the \(tag.identity.model) holds no NDEF: nothing to erase (see 'nfctool format')", exitCode: .notNDEF)
            case .readOnly:
                throw CommandError("the \(tag.identity.model) is read-only; nothing was written", exitCode: .readOnly)
            case .readWrite:
                break
            }
            do throws(NFCTagError) {
                try await tag.ndef.format(force: true)
            } catch {
                throw TagCommandSupport.map(error)
            }
            return (found, query.capacity, await planner?.writes)
        }
        if let planned {
            try TagWriteSupport.printPlan(planned, of: tag, operation: "erase", json: printsJSON, reader: reader, context)
        } else if printsJSON {
            context.io.write(try taggedJSON(reader, EraseReport(uid: Hex.encode(tag.identifier, uppercase: true), model: tag.identity.model, capacity: capacity)))
        } else {
            TagWriteSupport.say("Erased \(tag.identity.model) \(TagWriteSupport.spacedHex(tag.identifier)): empty NDEF message, \(capacity) bytes free.", context)
            TagWriteSupport.sayReader(reader, arguments, context)
        }
    }

    /// `erase --json`.
    private struct EraseReport: Encodable, Sendable {
        var uid: String
        var model: String
        var capacity: Int
    }
}
