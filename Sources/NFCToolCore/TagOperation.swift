import NFCCore
import NFCTags

/// The options every tag command shares, read and checked once, in the command's `init`:
/// `--timeout`, `--json`, `--plan`/`--dry-run`; `--device` is resolved in ``connection(_:)``
/// (it needs the environment).
struct TagCommandOptions: Sendable {
    /// The parsed command line, for the command's own options.
    let arguments: ParsedArguments
    /// How long to wait for a tag (`--timeout`, 0 < s ≤ 86400, default 10).
    let seconds: Double
    /// `--json`.
    let printsJSON: Bool
    /// `--plan` or `--dry-run`: writes are held back and listed.
    let planning: Bool

    /// Reads and checks the shared options.
    /// - Throws: ``CommandError`` (usage) for a bad `--timeout`.
    init(_ arguments: ParsedArguments) throws(CommandError) {
        self.arguments = arguments
        seconds = try TagCommandSupport.timeoutSeconds(arguments)
        printsJSON = arguments.contains(TagCommandSupport.json)
        planning = TagWriteSupport.isPlan(arguments)
    }

    /// The reader: `--device`, else `NFCTOOL_DEVICE`, else libnfc's default device.
    func connection(_ environment: [String: String]) -> String {
        TagCommandSupport.connection(arguments, environment)
    }
}

/// How a command that changes a tag runs, once for all of them (erase, format, lock, protect,
/// unprotect): open the reader, wait for the tag, connect it (behind a ``PlanningReader`` for
/// `--plan`), do the operation, and print the plan, the JSON report or the sentence, naming the
/// reader when the command line did not.
enum TagWriteOperation {
    /// Runs `operation` (its name in the plan's title) and prints its outcome.
    /// - Parameters:
    ///   - body: the operation on the connected tag (with its password applied) and the reader;
    ///     returns what the report needs.
    ///   - report: the JSON object of a done operation (the reader is added).
    ///   - sentence: the human line of a done operation.
    static func run<Outcome: Sendable, Report: Encodable & Sendable>(
        _ operation: String, _ options: TagCommandOptions, password: NTAGPassword?, _ context: CommandContext,
        body: (NFCTag, any NFCReader, Bool) async throws(CommandError) -> Outcome,
        report: (NFCTag, Outcome) -> Report,
        sentence: (NFCTag, Outcome) -> String
    ) async throws(CommandError) {
        let planning = options.planning
        let ((tag, outcome, planned), reader) = try await TagWriteSupport.withLabelledTag(
            connection: options.connection(context.environment), seconds: options.seconds, planning: planning
        ) { (found, reader, planner) async throws(CommandError) -> (NFCTag, Outcome, [PlannedWrite]?) in
            let tag = TagWriteSupport.tag(found, password: password)
            let outcome = try await body(tag, reader, planning)
            return (found, outcome, await planner?.writes)
        }
        if let planned {
            try TagWriteSupport.printPlan(planned, of: tag, operation: operation, json: options.printsJSON, reader: reader, context)
        } else if options.printsJSON {
            context.io.write(try taggedJSON(reader, report(tag, outcome)))
        } else {
            TagWriteSupport.say(sentence(tag, outcome), context)
            TagWriteSupport.sayReader(reader, options.arguments, context)
        }
    }

    /// `UID` in upper-case hex, as the reports print it.
    static func uid(_ tag: NFCTag) -> String { Hex.encode(tag.identifier, uppercase: true) }
}
