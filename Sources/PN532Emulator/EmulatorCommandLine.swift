public import VirtualTags
import Foundation
import NFCCore
import NFCTags

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

    /// The UID of tag `index` of a stack: `first` plus `index`, counting in the bytes after the
    /// first (as `sim:` stacks do).
    public static func uid(_ first: [UInt8], plus index: Int) -> [UInt8] {
        var value = first
        var carry = index
        var i = value.count - 1
        while carry > 0, i >= 1 {
            let sum = Int(value[i]) + carry
            value[i] = UInt8(sum & 0xFF)
            carry = sum >> 8
            i -= 1
        }
        return value
    }
}

/// The `pn532-emulator` command line, parsed and validated apart from running it.
public struct EmulatorCommandLine: Sendable, Hashable {
    /// One `--tag MODEL[:FILE]`.
    public struct TagSpecification: Sendable, Hashable {
        /// The model, e.g. `ntag215`.
        public var model: TagModel
        /// A tag file, when given (a directory of `<UID>.json` files for a `MODEL*N` stack).
        public var file: String?
        /// Whether ``file`` names a directory (one file per tag of a stack, named by UID).
        public var isDirectory = false
    }

    /// The tags, in stack order.
    public var tags: [TagSpecification] = []
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
    /// `-h` / `--help`.
    public var wantsHelp = false

    /// The help text.
    public static let help = """
        OVERVIEW: Emulates a PN532 NFC reader (HSU frames, UM0701-02) on a pseudo-terminal, with
        virtual tags in its field, so libnfc (pn532_uart:/dev/pts/N) and nfcpy can talk to them.

        USAGE: pn532-emulator --tag <model>[:<file>] [--tag ...] [--link <path>] [--trace <file>]
                              [--control <fifo>] [--delay-model none|datasheet]
                              [--leave-after <n>] [--leave-during <n>]
                              [--rf-error-on <n>[,<n>...]] [--hand-out deselect|never] [--uid <hex>]
                              [--external-reader <procedure>] [--reader-log <file>]

        OPTIONS:
          --tag <model>[:<file>]  A tag in the field; several make a stack presented one after
                                  another (UIDs count up). With a tag file, the tag is loaded
                                  from it (created when missing) and saved after every change.
                                  <model>*<n>[:<dir>] adds a stack of n tags, each in its own
                                  file <dir>/<uid>.json when a directory is given.
                                  Models: \(EmulatedTagModels.knownNames).
          --link <path>           Also make <path> a symbolic link to the pty.
          --trace <file>          Log every frame and control event with a timestamp.
          --control <fifo>        Read control commands from <fifo>; '-' for standard input.
                                  Default: standard input unless it is a terminal (so that
                                  'pn532-emulator ... &' runs in the background unstopped).
          --delay-model <model>   none (default) or datasheet: answer as slowly as a real PN532
                                  at 115200 baud with real tags.
          --leave-after <n>       The tag leaves the field after the n-th command sent to it.
          --leave-during <n>      The tag acts on the n-th command (a write is done) but leaves
                                  the field before its answer: the host sees a timeout.
          --rf-error-on <n,...>   The answers to these commands (1-based) are lost to RF errors.
          --uid <hex>             The first tag's UID (default: the model's); a stack counts up.
          --hand-out <when>       deselect: a tag the host deselects leaves the field and the
                                  next of the stack comes (an operator swapping stickers);
                                  never (default): only the 'next' control command does it.
          --external-reader <procedure>
                                  A virtual external reader (a phone) that comes once when the
                                  host enters target mode (TgInitAsTarget as an ISO 14443-4
                                  PICC), runs the procedure, then leaves the field:
                                  type4-read (the NFC Forum Type 4 NDEF read procedure) or
                                  type4-write:<hex> (the update procedure writing that NDEF
                                  message), or script:<file> (one hex C-APDU a line, sent in
                                  order whatever the answers). Without --tag, the field
                                  holds no tag.
          --reader-log <file>     Log the external reader's APDUs and outcome (read <hex>,
                                  wrote <n> bytes, ran <n> commands, refused <step> <sw>,
                                  failed <reason>).
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
                // MODEL*N: a stack of N tags of the model; its ':' part is then a directory.
                let nameAndCount = (parts.first ?? "").split(separator: "*", maxSplits: 1).map(String.init)
                guard let name = nameAndCount.first, let model = EmulatedTagModels.named(name) else {
                    throw UsageError(description: "unknown tag model '\(text)' (known: \(EmulatedTagModels.knownNames))")
                }
                var count = 1
                if nameAndCount.count == 2 {
                    guard let n = Int(nameAndCount[1]), (1...10_000).contains(n) else {
                        throw UsageError(description: "a stack is MODEL*N with N from 1 to 10000, got '\(parts[0])'")
                    }
                    count = n
                }
                let file = parts.count > 1 ? parts[1] : nil
                if file != nil && TagModel.named(model.name) == nil {
                    throw UsageError(description: "model \(model.name) has no tag file support yet; drop ':\(parts[1])'")
                }
                for _ in 0..<count {
                    result.tags.append(TagSpecification(model: model, file: file, isDirectory: nameAndCount.count == 2))
                }
            case "--uid":
                let text = try value(argument)
                guard let uid = try? Hex.decode(text), (4...10).contains(uid.count) else {
                    throw UsageError(description: "--uid needs 4 to 10 bytes of hex, got '\(text)'")
                }
                result.firstUID = uid
            case "--hand-out":
                let text = try value(argument)
                switch text {
                case "deselect": result.handsOutOnDeselect = true
                case "never": result.handsOutOnDeselect = false
                default: throw UsageError(description: "--hand-out is 'deselect' or 'never', got '\(text)'")
                }
            case "--leave-after":
                let text = try value(argument)
                guard let count = Int(text), count > 0 else { throw UsageError(description: "--leave-after needs a positive number, got '\(text)'") }
                result.faultPlan.leaveAfterCommand = count
            case "--leave-during":
                let text = try value(argument)
                guard let count = Int(text), count > 0 else { throw UsageError(description: "--leave-during needs a positive number, got '\(text)'") }
                result.faultPlan.leaveDuringCommand = count
            case "--rf-error-on":
                let text = try value(argument)
                let numbers = text.split(separator: ",").map { Int($0) }
                guard !numbers.isEmpty, numbers.allSatisfy({ ($0 ?? 0) > 0 }) else {
                    throw UsageError(description: "--rf-error-on needs positive numbers separated by commas, got '\(text)'")
                }
                result.faultPlan.rfErrorOnCommands.formUnion(numbers.compactMap { $0 })
            case "--external-reader":
                let text = try value(argument)
                guard let procedure = ExternalReaderProcedure(argument: text) else {
                    throw UsageError(description: "--external-reader is 'type4-read', 'type4-write:<hex NDEF message>' or 'script:<file of hex APDUs>', got '\(text)'")
                }
                result.externalReader = procedure
            case "--reader-log": result.readerLogPath = try value(argument)
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
        if !result.wantsHelp && result.tags.isEmpty && result.externalReader == nil {
            throw UsageError(description: "give at least one --tag (or an --external-reader)")
        }
        return result
    }

    /// Makes the tags the command line names, in a field: from tag files when they exist
    /// (created from the model when not), saved after every change.
    /// - Throws: ``VirtualTags/TagFileError`` when a tag file cannot be read or written, or holds
    ///   another model.
    public func makeField() throws(TagFileError) -> TagField {
        var made: [any VirtualTag] = []
        var files: [(any PersistentVirtualTag, TagFile)] = []
        for (index, specification) in tags.enumerated() {
            // Tag i of the stack gets the model's default UID plus i: every UID differs.
            let model = specification.model
            if let firstUID, firstUID.count != model.defaultUID.count {
                throw TagFileError(.invalidState, "--uid has \(firstUID.count) bytes; \(model.name) needs \(model.defaultUID.count)")
            }
            let uid = EmulatedTagModels.uid(firstUID ?? model.defaultUID, plus: index)
            guard let named = specification.file else {
                made.append(model.make(uid, TagModelOptions()))
                continue
            }
            var path = named
            if specification.isDirectory {
                do {
                    try FileManager.default.createDirectory(atPath: named, withIntermediateDirectories: true)
                } catch {
                    throw TagFileError(.invalidState, "cannot create the tag directory \(named): \(error.localizedDescription)")
                }
                // As `sim:…?dir=` names them: the lower-case hex UID.
                path = (named.hasSuffix("/") ? named : named + "/") + Hex.encode(uid) + ".json"
            }
            let file = TagFile(path: path)
            let tag: any VirtualTag
            if file.exists {
                tag = try file.loadTag()
                if let state = (tag as? any PersistentVirtualTag)?.tagState, state.model != model.name {
                    throw TagFileError(.invalidState, "tag file \(path) holds a \(state.model), not a \(model.name)")
                }
            } else {
                tag = model.make(uid, TagModelOptions())
                if let persistent = tag as? any PersistentVirtualTag { try file.save(persistent.tagState) }
            }
            made.append(tag)
            if let persistent = tag as? any PersistentVirtualTag { files.append((persistent, file)) }
        }
        let field = VirtualField(tags: made, faultPlan: faultPlan)
        for (tag, file) in files { field.persist(tag, in: file) }
        let tagField = TagField(field: field)
        tagField.handsOutOnDeselect = handsOutOnDeselect
        return tagField
    }
}
