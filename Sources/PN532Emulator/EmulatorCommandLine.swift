/// The `pn532-emulator` command line, parsed and validated apart from running it.
public struct EmulatorCommandLine: Sendable, Hashable {
    /// One `--tag MODEL[:FILE]`.
    public struct TagSpecification: Sendable, Hashable {
        /// The model's name, e.g. `ntag215`.
        public var model: BuiltInTagModel
        /// A tag file, when given.
        public var file: String?
    }

    /// The tags, in stack order.
    public var tags: [TagSpecification] = []
    /// `--link PATH`.
    public var linkPath: String?
    /// `--trace FILE`.
    public var tracePath: String?
    /// `--control FIFO`; standard input when nil.
    public var controlPath: String?
    /// `--delay-model`.
    public var delayModel: PN532DelayModel = .none
    /// `-h` / `--help`.
    public var wantsHelp = false

    /// The help text.
    public static let help = """
        OVERVIEW: Emulates a PN532 NFC reader (HSU frames, UM0701-02) on a pseudo-terminal, with
        virtual tags in its field, so libnfc (pn532_uart:/dev/pts/N) and nfcpy can talk to them.

        USAGE: pn532-emulator --tag <model> [--tag <model> ...] [--link <path>] [--trace <file>]
                              [--control <fifo>] [--delay-model none|datasheet]

        OPTIONS:
          --tag <model>           A tag in the field; several make a stack presented one after
                                  another. Models: \(BuiltInTagModel.allCases.map(\.rawValue).joined(separator: ", ")).
          --link <path>           Also make <path> a symbolic link to the pty.
          --trace <file>          Log every frame and control event with a timestamp.
          --control <fifo>        Read control commands from <fifo> instead of standard input.
          --delay-model <model>   none (default) or datasheet: answer as slowly as a real PN532
                                  at 115200 baud with real tags.
          -h, --help              Show this help.

        The first line printed is the pty path. Control commands, one per line: remove, present,
        next, status, quit; each is answered on standard output with "ok <field summary>".
        """

    /// Why the command line is unusable.
    public struct UsageError: Error, Sendable, Hashable, CustomStringConvertible {
        /// The reason, one line.
        public var description: String
    }

    /// Parses `arguments` (without the program name).
    /// - Throws: ``UsageError`` for an unknown option, a missing value, an unknown model, or no
    ///   `--tag` at all.
    public static func parse(_ arguments: [String]) throws(UsageError) -> EmulatorCommandLine {
        var result = EmulatorCommandLine()
        var index = 0
        func value(_ option: String) throws(UsageError) -> String {
            index += 1
            guard index < arguments.count else { throw UsageError(description: "missing value for '\(option)'") }
            return arguments[index]
        }
        while index < arguments.count {
            let argument = arguments[index]
            switch argument {
            case "-h", "--help": result.wantsHelp = true
            case "--tag":
                let text = try value(argument)
                let parts = text.split(separator: ":", maxSplits: 1).map(String.init)
                guard let name = parts.first, let model = BuiltInTagModel(rawValue: name.lowercased()) else {
                    throw UsageError(description: "unknown tag model '\(text)' (known: \(BuiltInTagModel.allCases.map(\.rawValue).joined(separator: ", ")))")
                }
                if parts.count > 1 {
                    throw UsageError(description: "tag files ('\(text)') need the VirtualTags model registry; the built-in models keep memory in RAM")
                }
                result.tags.append(TagSpecification(model: model, file: nil))
            case "--link": result.linkPath = try value(argument)
            case "--trace": result.tracePath = try value(argument)
            case "--control": result.controlPath = try value(argument)
            case "--delay-model":
                let text = try value(argument)
                guard let model = PN532DelayModel(rawValue: text) else {
                    throw UsageError(description: "unknown delay model '\(text)' (none, datasheet)")
                }
                result.delayModel = model
            default: throw UsageError(description: "unknown option '\(argument)'")
            }
            index += 1
        }
        if !result.wantsHelp && result.tags.isEmpty {
            throw UsageError(description: "give at least one --tag")
        }
        return result
    }
}
