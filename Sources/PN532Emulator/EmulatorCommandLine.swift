public import CommandLineKit
public import VirtualTags
import NFCCore
public import NFCTags

/// The chip models the emulator hosts: the ``VirtualTags/TagModel`` registry (the one `sim:`
/// uses) without the ISO 15693 models, which a PN532 cannot talk to.
public enum EmulatedTagModels {
    /// Every model `--tag` accepts, registry first, without the ISO 15693 ones.
    public static var all: [TagModel] {
        TagModel.all.filter { model in
            if case .iso15693 = model.make(model.defaultUID, TagModelOptions()).targetInfo { return false }
            return true
        }
    }

    /// The model called `name` (case-insensitive), or nil.
    public static func named(_ name: String) -> TagModel? {
        all.first { $0.name == name.lowercased() }
    }

    /// The known names, comma separated.
    public static var knownNames: String { all.map(\.name).joined(separator: ", ") }
}

/// The `pn532-emulator` command line, declared with CommandLineKit (the parser, help and usage
/// errors nfctool uses) and parsed and validated apart from running it. `--tag` takes the
/// simulator's one grammar (``VirtualTags/SimulatorConfiguration/init(tagSpecification:)``).
public struct EmulatorCommandLine: Sendable, Hashable {
    /// The `--tag`s, in stack order.
    public var tags: [SimulatorConfiguration] = []
    /// `--link PATH`.
    public var linkPath: String?
    /// `--trace FILE`.
    public var tracePath: String?
    /// `--control FIFO` (`-`: standard input, even a terminal); when nil, standard input unless
    /// it is a terminal.
    public var controlPath: String?
    /// `--delay-model`.
    public var delayModel: PN532DelayModel = .none
    /// `--leave-after N`, `--leave-during N` and `--rf-error-on N,M`: faults injected by the field.
    public var faultPlan = FaultPlan.none
    /// `--hand-out deselect`: when the host deselects the tag (InDeselect), it leaves the field
    /// and the next tag of the stack comes, as an operator would swap stickers.
    public var handsOutOnDeselect = false
    /// `--uid HEX`: the first tag's UID (the model's default otherwise); the stack counts up.
    public var firstUID: [UInt8]?
    /// `--external-reader`: a virtual external reader that comes when the host enters target
    /// mode and runs this procedure.
    public var externalReader: ExternalReaderProcedure?
    /// `--reader-log FILE`: the external reader's log (its APDUs and the outcome).
    public var readerLogPath: String?
    /// `--replay FILE`: the field holds the tag of a reader trace, answering as recorded.
    public var replayPath: String?
    /// `-h` / `--help`.
    public var wantsHelp = false

    static let tag = TypedOption(
        .option("tag", valueName: "tag", help: """
            A tag in the field, in the simulator's grammar (docs/simulator.md): MODEL, \
            MODEL:FILE (loaded from the tag file, created when missing, saved after every \
            change), MODEL*N[:DIR] (a stack of N tags, each in DIR/<uid>.json when a directory \
            is given), MODEL[:FILE]+MODEL[:FILE] (several tags in the field together), or a \
            sim: string. Several make a stack presented one after another (UIDs count up). \
            Models: \(EmulatedTagModels.knownNames).
            """, repeatable: true),
        ValueType<SimulatorConfiguration> { text -> Result<SimulatorConfiguration, ValueTypeError> in
            do throws(NFCReaderDeviceError) {
                let configuration = try SimulatorConfiguration(tagSpecification: text)
                if let model = configuration.model, EmulatedTagModels.named(model.name) == nil {
                    return .failure(ValueTypeError("\(model.name) is an ISO 15693 tag, which a PN532 cannot talk to"))
                }
                return .success(configuration)
            } catch {
                return .failure(ValueTypeError(error.reason))
            }
        })
    static let link = CommandOption.option("link", valueName: "path", help: "Also make <path> a symbolic link to the pty.")
    static let trace = CommandOption.option("trace", valueName: "file", help: "Log every frame and control event with a timestamp.")
    static let replay = CommandOption.option(
        "replay", valueName: "file",
        help: """
            Play a reader trace (nfctool --trace FILE, docs/traces.md): the field holds the tag its \
            first poll found (UID, ATQA, SAK, ATS), which answers the trace's commands in order \
            with the recorded answers; a command that differs gets no answer, and "diverged at \
            exchange N: ..." goes to standard error and the --trace log. Not with --tag.
            """)
    static let control = CommandOption.option(
        "control", valueName: "fifo",
        help: "Read control commands from <fifo>; '-' for standard input. Default: standard input unless it is a terminal (so that 'pn532-emulator ... &' runs in the background unstopped).")
    static let delay = TypedOption(
        .option("delay-model", valueName: "model", help: "none (default) or datasheet: answer as slowly as a real PN532 at 115200 baud with real tags."),
        ValueType<PN532DelayModel>.choice)
    static let positive = ValueType<Int>.integer(in: 1...Int(Int32.max), reason: "a positive number")
    static let leaveAfter = TypedOption(
        .option("leave-after", valueName: "n", help: "The tag leaves the field after the n-th command sent to it."), positive)
    static let leaveDuring = TypedOption(
        .option("leave-during", valueName: "n", help: "The tag acts on the n-th command (a write is done) but leaves the field before its answer: the host sees a timeout."),
        positive)
    static let rfErrorOn = TypedOption(
        .option("rf-error-on", valueName: "n,...", help: "The answers to these commands (1-based) are lost to RF errors."),
        ValueType(reason: "positive numbers separated by commas") { text -> [Int]? in
            let numbers = text.split(separator: ",").map { Int($0) ?? 0 }
            return !numbers.isEmpty && numbers.allSatisfy { $0 > 0 } ? numbers : nil
        })
    static let uid = TypedOption(
        .option("uid", valueName: "hex", help: "The first tag's UID (default: the model's); a stack counts up."),
        ValueType(reason: "4 to 10 bytes of hex") { (try? Hex.decode($0)).flatMap { (4...10).contains($0.count) ? $0 : nil } })
    static let handOut = TypedOption(
        .option("hand-out", valueName: "when", help: "deselect: a tag the host deselects leaves the field and the next of the stack comes (an operator swapping stickers); never (default): only the 'next' control command does it."),
        ValueType.choice(["deselect": true, "never": false]))
    static let externalReaderOption = TypedOption(
        .option("external-reader", valueName: "procedure", help: """
            A virtual external reader (a phone) that comes once when the host enters target mode \
            (TgInitAsTarget as an ISO 14443-4 PICC), runs the procedure, then leaves the field: \
            type4-read (the NFC Forum Type 4 NDEF read procedure) or type4-write:<hex> (the \
            update procedure writing that NDEF message), or script:<file> (one hex C-APDU a \
            line, sent in order whatever the answers). Without --tag, the field holds no tag.
            """),
        ValueType(reason: "use type4-read, type4-write:<hex NDEF message> or script:<file of hex APDUs>") {
            ExternalReaderProcedure(argument: $0)
        })
    static let readerLog = CommandOption.option(
        "reader-log", valueName: "file",
        help: "Log the external reader's APDUs and outcome (read <hex>, wrote <n> bytes, ran <n> commands, refused <step> <sw>, failed <reason>).")

    /// The command line's declaration: its help, usage line and errors come from it.
    public static let configuration = CommandConfiguration(
        name: "pn532-emulator",
        abstract: "Emulates a PN532 NFC reader (HSU frames, UM0701-02) on a pseudo-terminal, with virtual tags in its field, so libnfc (pn532_uart:/dev/pts/N) and nfcpy can talk to them.",
        discussion: """
            The first line printed is the pty path. Control commands, one per line: remove, \
            present, next, status, quit; each is answered on standard output with "ok <field \
            summary>".
            """,
        options: [
            tag.option, replay, link, trace, control, delay.option, leaveAfter.option, leaveDuring.option, rfErrorOn.option,
            uid.option, handOut.option, externalReaderOption.option, readerLog,
        ]
    )

    /// The help text (without its last newline).
    public static var help: String { String(HelpFormatter(tool: configuration).helpText.dropLast()) }

    /// What a bad command line prints on standard error: `Error: …`, the usage line and where to
    /// find help.
    public static func errorText(_ error: UsageError) -> String {
        HelpFormatter(tool: configuration).errorText(.usage(error.description))
    }

    /// Why the command line is unusable.
    public struct UsageError: Error, Sendable, Hashable, CustomStringConvertible {
        /// The reason, one line.
        public var description: String
    }

    /// Parses `arguments` (without the program name).
    /// - Throws: ``UsageError`` for an unknown option, a missing or bad value (an unknown model),
    ///   no `--tag` (nor `--replay`) at all, or both.
    public static func parse(_ arguments: [String]) throws(UsageError) -> EmulatorCommandLine {
        var result = EmulatorCommandLine()
        do throws(CommandError) {
            guard case .run(let parsed) = try HelpFormatter(tool: configuration).parser.parse(arguments) else {
                result.wantsHelp = true
                return result
            }
            result.tags = try parsed.values(of: tag)
            result.linkPath = parsed.value(of: link)
            result.tracePath = parsed.value(of: trace)
            result.controlPath = parsed.value(of: control)
            result.delayModel = try parsed.value(of: delay) ?? .none
            result.faultPlan.leaveAfterCommand = try parsed.value(of: leaveAfter)
            result.faultPlan.leaveDuringCommand = try parsed.value(of: leaveDuring)
            result.faultPlan.rfErrorOnCommands = Set(try parsed.value(of: rfErrorOn) ?? [])
            result.firstUID = try parsed.value(of: uid)
            result.handsOutOnDeselect = try parsed.value(of: handOut) ?? false
            result.externalReader = try parsed.value(of: externalReaderOption)
            result.readerLogPath = parsed.value(of: readerLog)
            result.replayPath = parsed.value(of: replay)
        } catch {
            throw UsageError(description: error.message)
        }
        if result.replayPath != nil, !result.tags.isEmpty {
            throw UsageError(description: "give --tag or --replay, not both")
        }
        if result.tags.isEmpty && result.externalReader == nil && result.replayPath == nil {
            throw UsageError(description: "give at least one --tag (or an --external-reader)")
        }
        return result
    }

    /// Makes the tags the command line names, in a field: from tag files when they exist
    /// (created from the model when not), saved after every change. Tag `i` of the whole stack
    /// gets the first UID (`--uid`, else the model's) plus `i`.
    /// - Throws: ``NFCReaderDeviceError`` when a tag file cannot be read or written, or holds another
    ///   model.
    public func makeField() throws(NFCReaderDeviceError) -> TagField {
        if let replayPath {
            return TagField(field: SimulatorConfiguration.field(groups: [[(tag: try TracePlayerTag.load(path: replayPath), file: nil)]], faultPlan: faultPlan))
        }
        var groups: [[(tag: any VirtualTag, file: TagFile?)]] = []
        var made = 0
        var faults = faultPlan
        for specification in tags {
            let tags = try specification.makeTags(uidOffset: made, firstUID: firstUID)
            made += tags.count
            // A field of several tags (MODEL+MODEL) comes in together; the others one by one.
            if specification.isGroup { groups.append(tags) } else { groups += tags.map { [$0] } }
            faults.leaveAfterCommand = faults.leaveAfterCommand ?? specification.faultPlan.leaveAfterCommand
            faults.rfErrorOnCommands.formUnion(specification.faultPlan.rfErrorOnCommands)
        }
        let tagField = TagField(field: SimulatorConfiguration.field(groups: groups, faultPlan: faults))
        tagField.handsOutOnDeselect = handsOutOnDeselect || tags.contains { $0.handOutOnDeselect == true }
        return tagField
    }
}
