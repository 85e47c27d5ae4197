import CommandLineKit
import NFCCore
import NFCTags
import NFCKit

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
    /// `--trace` and `--trace-unredacted`.
    let trace: ReaderTraceOptions

    /// Reads the shared options (the parser has checked `--timeout`).
    init(_ arguments: ParsedArguments) throws(CommandError) {
        self.arguments = arguments
        seconds = try arguments.value(of: TagCommandSupport.timeoutSeconds) ?? 10
        printsJSON = arguments.contains(TagCommandSupport.json)
        planning = arguments.contains(TagWriteSupport.plan)
        trace = try ReaderTraceOptions(arguments)
    }

    /// The reader: `--device`, else `NFCTOOL_DEVICE`, else libnfc's default device.
    func connection(_ environment: [String: String]) -> String {
        device(environment).connection
    }

    /// The reader and what chose it.
    func device(_ environment: [String: String]) -> DeviceChoice {
        DeviceChoice(arguments.value(of: TagCommandSupport.device), environment)
    }

    /// The password of `--password-file`, else of `NFCTOOL_PASSWORD`; nil when neither is given.
    func password(_ context: CommandContext) throws(CommandError) -> NTAGPassword? {
        try TagWriteSupport.password(arguments, context)
    }

    /// The Ultralight C key of `--keys`, when the command has the option and it is given.
    func ultralightCKey() throws(CommandError) -> UltralightCKey? {
        try TagWriteSupport.ultralightCKey(
            file: arguments.value(of: TagWriteSupport.ultralightCKeyFile), option: TagWriteSupport.ultralightCKeyFile)
    }
}

/// A command whose options are only the shared ones (and flags it reads from them): its
/// `init` from the command line is ``TagCommandOptions``'.
protocol TagCommand: ToolCommand {
    /// Creates the command from its checked options.
    init(options: TagCommandOptions)
}

extension TagCommand {
    /// Reads and checks the shared options.
    init(_ arguments: ParsedArguments) throws(CommandError) {
        self.init(options: try TagCommandOptions(arguments))
    }
}

/// How a command that works on one tag runs, once for all of them: open the reader, wait for
/// the tag, connect it (behind a ``PlanningReader`` for `--plan`), run the command's body, map
/// what it throws to an exit status (``NFCTagError`` through ``TagCommandSupport/map(_:)``),
/// close the reader, and print the text or the JSON report.
struct TagOperation: Sendable {
    let options: TagCommandOptions
    let context: CommandContext

    init(_ options: TagCommandOptions, _ context: CommandContext) {
        self.options = options
        self.context = context
    }

    /// Runs `body` on the tag (with `password` applied, behind a ``PlanningReader`` when
    /// `planning`) and returns what it returned and which reader did it. A command that writes
    /// passes `alone`: it runs only when the tag is the only one in the field.
    /// - Throws: ``ExitCode/noReader`` when the reader cannot be opened, ``ExitCode/noTag`` when
    ///   no tag comes (or, with `alone`, more than one), and what `body` throws: a
    ///   ``CommandError`` as it is, an ``NFCTagError`` with its exit status, anything else as a
    ///   failure.
    func run<T: Sendable>(
        password: NTAGPassword? = nil, ultralightCKey: UltralightCKey? = nil, planning: Bool = false, alone: Bool = false,
        _ body: (NFCTag, any NFCReader) async throws -> T
    ) async throws(CommandError) -> (T, ReaderLabel) {
        let device = options.device(context.environment)
        let connection = device.connection
        return try await TagCommandSupport.withReader(connection, trace: options.trace, context) { (opened) async throws(CommandError) -> (T, ReaderLabel) in
            let reader: any NFCReader = planning ? await WritePlanning.reader(opened) : opened
            let target = try await TagCommandSupport.waitForTarget(reader, connection, seconds: options.seconds, alone: alone)
            do {
                // Identification leaves the tag selected (it re-selects a chip its GET_VERSION sent idle).
                let tag = try await NFCTag.connect(to: target, on: reader)
                return (try await body(TagWriteSupport.tag(tag, password: password, ultralightCKey: ultralightCKey), reader), await ReaderLabel(reader, origin: device.origin))
            } catch {
                throw Self.commandError(error)
            }
        }
    }

    /// Runs `body` and prints its report: the JSON form (with `reader` and `readerName` when
    /// `tagsReader`) under `--json`, else `text`.
    func report<Report: Encodable & Sendable>(
        password: NTAGPassword? = nil, ultralightCKey: UltralightCKey? = nil, tagsReader: Bool = true,
        _ body: (NFCTag, any NFCReader) async throws -> Report,
        text: (Report) -> String
    ) async throws(CommandError) {
        let (report, reader) = try await run(password: password, ultralightCKey: ultralightCKey, body)
        if options.printsJSON {
            context.io.write(tagsReader ? try taggedJSON(reader, report) : try toolJSON(report))
        } else {
            context.io.write(text(report))
        }
    }

    /// What a command's body threw, as a command error with its exit status.
    static func commandError(_ error: any Error) -> CommandError {
        switch error {
        case let error as CommandError: error
        case let error as NFCTagError: TagCommandSupport.map(error)
        case let error as NTAG424Error: .ntag424(error)
        default: .failure("\(error)")
        }
    }
}

/// How a command that changes a tag runs, once for all of them (erase, format, lock, protect,
/// unprotect): ``TagOperation`` with the password and `--plan`, then the plan, the JSON report
/// or the sentence, naming the reader when the command line did not.
enum TagWriteOperation {
    /// Runs `operation` (its name in the plan's title) and prints its outcome.
    /// - Parameters:
    ///   - body: the operation on the connected tag (with its password applied) and the reader;
    ///     returns what the report needs.
    ///   - report: the JSON object of a done operation (the reader is added).
    ///   - sentence: the human line of a done operation.
    static func run<Outcome: Sendable, Report: Encodable & Sendable>(
        _ operation: String, _ options: TagCommandOptions, password: NTAGPassword?, ultralightCKey: UltralightCKey? = nil,
        _ context: CommandContext, body: (NFCTag, any NFCReader, Bool) async throws -> Outcome,
        report: (NFCTag, Outcome) -> Report,
        sentence: (NFCTag, Outcome) -> String
    ) async throws(CommandError) {
        let planning = options.planning
        let ((tag, outcome, planned), reader) = try await TagOperation(options, context).run(
            password: password, ultralightCKey: ultralightCKey, planning: planning, alone: true
        ) { (tag, reader) async throws -> (NFCTag, Outcome, [PlannedWrite]?) in
            let outcome = try await body(tag, reader, planning)
            return (tag, outcome, await (reader as? PlanningReader)?.writes)
        }
        try printOutcome(operation, options, context, tag: tag, planned: planned, reader: reader) {
            (report(tag, outcome), sentence(tag, outcome))
        }
    }

    /// Prints the plan of held-back writes when there is one, else the JSON report (with the
    /// reader) or the sentence and the reader's name.
    static func printOutcome<Report: Encodable & Sendable>(
        _ operation: String, _ options: TagCommandOptions, _ context: CommandContext, tag: NFCTag, planned: [PlannedWrite]?,
        reader: ReaderLabel, _ done: () -> (Report, String)
    ) throws(CommandError) {
        if let planned {
            try TagWriteSupport.printPlan(planned, of: tag, operation: operation, json: options.printsJSON, reader: reader, context)
            return
        }
        let (report, sentence) = done()
        if options.printsJSON {
            context.io.write(try taggedJSON(reader, report))
        } else {
            context.say(sentence)
            TagWriteSupport.sayReader(reader, context)
        }
    }

    /// `UID` in upper-case hex, as the reports print it.
    static func uid(_ tag: NFCTag) -> String { Hex.encode(tag.identifier, uppercase: true) }
}

/// `erase --json` and `format --json`: the tag and the room its empty message leaves.
struct TagCapacityReport: Encodable, Sendable {
    var uid: String
    var model: String
    var capacity: Int

    init(_ tag: NFCTag, capacity: Int) {
        uid = TagWriteOperation.uid(tag)
        model = tag.identity.model
        self.capacity = capacity
    }
}

/// Two values encoded as one JSON object: the keys of both (`read --json`: the message's JSON
/// form with the tag's fields beside it).
struct MergedJSON<First: Encodable & Sendable, Second: Encodable & Sendable>: Encodable, Sendable {
    var first: First
    var second: Second

    func encode(to encoder: any Encoder) throws {
        try first.encode(to: encoder)
        try second.encode(to: encoder)
    }
}
