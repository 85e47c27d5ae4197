import NFCCore
import NFCTags

/// What the commands that change a tag share: `--yes`, `--plan`/`--dry-run`, passwords read from
/// a file or the environment (never from the command line), the confirmation of irreversible
/// steps, and the printing of a plan.
enum TagWriteSupport {
    /// `--yes`: confirms an irreversible step without asking.
    static let yes = CommandOption.flag(
        "yes", short: "y", help: "Do the irreversible step without asking (required when standard input is not a terminal).")
    /// `--plan`.
    static let plan = CommandOption.flag(
        "plan", help: "Print the pages or blocks that would be written, with their bytes; write nothing.")
    /// `--dry-run`, the same as `--plan`.
    static let dryRun = CommandOption.flag("dry-run", help: "The same as --plan.")
    /// `--password-file`.
    static let passwordFile = CommandOption.option(
        "password-file", valueName: "file",
        help: "NTAG21x password PWD[:PACK] in hex (8[+4] digits), read from this file (or set NFCTOOL_PASSWORD).")

    /// Whether `--plan` or `--dry-run` was given.
    static func isPlan(_ arguments: ParsedArguments) -> Bool {
        arguments.contains(plan) || arguments.contains(dryRun)
    }

    /// Reads an NTAG password from `path`, else from `environment[variable]` when `variable` is
    /// given; `nil` when neither is there. The password never appears in an error.
    /// - Throws: ``CommandError`` (usage) when the file cannot be read or the text is not
    ///   `PWD[:PACK]` in hex.
    static func password(
        file path: String?, option: CommandOption, environment: [String: String], variable: String?
    ) throws(CommandError) -> NTAGPassword? {
        let text: String
        let source: String
        if let path {
            let bytes: [UInt8]
            do {
                bytes = try readFileBytes(path, what: "password file")
            } catch {
                throw .usage(error.message)
            }
            text = String(decoding: bytes, as: UTF8.self).trimmingWhitespace
            source = "\(option.synopsis) '\(path)'"
        } else if let variable, let value = environment[variable] {
            text = value.trimmingWhitespace
            source = variable
        } else {
            return nil
        }
        do {
            return try NTAGPassword(hex: text)
        } catch {
            throw .usage("\(source): \(error.reason)")
        }
    }

    /// The password of `--password-file`, else of `NFCTOOL_PASSWORD`; nil when neither is given.
    static func password(_ arguments: ParsedArguments, _ context: CommandContext) throws(CommandError) -> NTAGPassword? {
        try password(
            file: arguments.value(of: passwordFile), option: passwordFile, environment: context.environment,
            variable: "NFCTOOL_PASSWORD")
    }

    /// Asks before an irreversible step: goes on with `--yes`; else refuses (exit 64) when
    /// standard input is not a terminal, and asks on standard error when it is.
    /// - Throws: ``CommandError`` usage without `--yes` and no terminal; failure when the answer is
    ///   not yes (nothing was done).
    static func confirm(_ warning: String, confirmed: Bool, _ context: CommandContext) throws(CommandError) {
        if confirmed { return }
        guard context.io.isStandardInputTerminal else {
            throw .usage("\(warning) Add --yes to confirm (standard input is not a terminal, so nobody can be asked).")
        }
        context.io.write((warning + " Type 'yes' to go on:").wrapped(to: HelpFormatter.screenWidth) + " ", to: .standardError)
        let answer = context.io.readStandardInputLine()?.trimmingWhitespace.lowercased()
        guard answer == "yes" || answer == "y" else {
            throw .failure("not confirmed; nothing was written")
        }
    }

    /// The tag with `password` set, for the Type 2 operations that need it; other tags as they
    /// are.
    static func tag(_ tag: NFCTag, password: NTAGPassword?) -> NFCTag {
        guard let password, case .miFare(var miFare) = tag else { return tag }
        miFare.password = password
        return .miFare(miFare)
    }

    /// The Type 2 platform of `tag`, or an ``ExitCode/unsupported`` error naming `what`.
    static func type2(_ tag: NFCTag, for what: String) throws(CommandError) -> Type2Tag {
        guard case .miFare(let miFare) = tag, let type2 = miFare.type2 else {
            throw CommandError("\(what) needs an NTAG21x or MIFARE Ultralight EV1; this is a \(tag.identity.model)", exitCode: .unsupported)
        }
        return type2
    }

    /// Prints `text` and a newline on standard output, wrapped to 80 columns.
    static func say(_ text: String, _ context: CommandContext) {
        context.io.write(text.wrapped(to: HelpFormatter.screenWidth) + "\n")
    }

    /// `04 53 49 4D 00 00 01`.
    static func spacedHex(_ bytes: some Collection<UInt8>) -> String {
        Hex.encode(Array(bytes), uppercase: true, separator: " ")
    }

    /// What `--plan` prints: one line per held-back write, irreversible ones marked, or a JSON
    /// object.
    static func printPlan(
        _ writes: [PlannedWrite], of tag: NFCTag, operation: String, json: Bool, reader: ReaderLabel, _ context: CommandContext
    ) {
        let steps = writes.map { PlanStep($0, profile: Type2ChipProfile.named(tag.identity.model)) }
        if json {
            context.io.write(taggedJSON(reader, PlanOutput(
                operation: operation, uid: spacedHex(tag.identifier).replacingOccurrences(of: " ", with: ""),
                model: tag.identity.model, written: false, writes: steps)))
            return
        }
        let count = writes.count
        var text = "Plan for \(operation) on \(tag.identity.model) \(spacedHex(tag.identifier)): \(count) write\(count == 1 ? "" : "s"); nothing was sent."
            .wrapped(to: HelpFormatter.screenWidth) + "\n"
        for step in steps {
            text += "  \(step.location.padding(toLength: 16, withPad: " ", startingAt: 0)) \(step.data)\n"
            if let note = step.irreversible {
                text += "IRREVERSIBLE: \(note)".wrapped(to: HelpFormatter.screenWidth, indent: 6) + "\n"
            } else if let note = step.note {
                text += note.wrapped(to: HelpFormatter.screenWidth, indent: 6) + "\n"
            }
        }
        let irreversible = steps.filter { $0.irreversible != nil }.count
        if irreversible > 0 {
            text += "\(irreversible) of these cannot be undone.\n"
        }
        context.io.write(text)
    }

    /// The JSON of a plan.
    private struct PlanOutput: Encodable, Sendable {
        var operation: String
        var uid: String
        var model: String
        var written: Bool
        var writes: [PlanStep]
    }
}

/// One held-back write, described in its technology's words.
struct PlanStep: Encodable, Sendable, Hashable {
    /// Its technology's name.
    var technology: String
    /// Where it writes: `page 4`, `block 12`, `offset 0x0002`.
    var location: String
    /// The bytes written, spaced hex (a password is not shown).
    var data: String
    /// Why it cannot be undone, when it cannot.
    var irreversible: String?
    /// What the step is, when that is worth saying.
    var note: String?

    /// Describes `write`; `profile` names a Type 2 chip's lock and configuration pages.
    init(_ write: PlannedWrite, profile: Type2ChipProfile?) {
        technology = write.technology.rawValue
        let c = write.command.array
        func hex(_ bytes: ArraySlice<UInt8>) -> String { TagWriteSupport.spacedHex(bytes) }
        switch write.technology {
        case .type2:
            let page = Int(c[1])
            location = "page \(page) (0x\(Hex.encode([c[1]], uppercase: true)))"
            data = hex(c.dropFirst(2))
            if page == 2 {
                irreversible = "static lock bytes (one-time programmable)"
            } else if page == 3 {
                irreversible = "capability container (one-time programmable bits)"
            } else if let profile {
                if page == profile.dynamicLockPage {
                    irreversible = "dynamic lock bytes (one-time programmable)"
                } else if page == profile.accessPage, c.count > 2, c[2] & Type2Configuration.configurationLockBit != 0 {
                    irreversible = "ACCESS with CFGLCK: the configuration is frozen for good"
                } else if page == profile.accessPage {
                    note = "CFG1 (ACCESS: PROT, AUTHLIM)"
                } else if page == profile.configurationPage {
                    note = "CFG0 (AUTH0: first protected page)"
                } else if page == profile.passwordPage || page == profile.packPage {
                    data = "(password, not shown)"
                    note = page == profile.passwordPage ? "PWD" : "PACK"
                }
            }
        case .classic:
            let block = Int(c[1])
            location = "block \(block)"
            data = hex(c.dropFirst(2))
            let isTrailer = block < 128 ? block % 4 == 3 : block % 16 == 15
            if isTrailer {
                // Trailer access bits C1 C2 C3 (MF1S50 8.7): 000, 010, 100, 110 and 111 leave the
                // access bits unwritable for good.
                let c1 = (c[2 + 7] >> 7) & 1, c2 = (c[2 + 8] >> 3) & 1, c3 = (c[2 + 8] >> 7) & 1
                let bits = (c1 << 2) | (c2 << 1) | c3
                if [0b000, 0b010, 0b100, 0b110, 0b111].contains(bits) {
                    irreversible = "sector trailer whose access bits can never be changed again"
                } else {
                    note = "sector trailer (keys and access bits)"
                }
            }
        case .type3:
            var blocks: [Int] = []
            var index = 9
            if index < c.count {
                index += 1 + 2 * Int(c[index])
                if index < c.count {
                    let count = Int(c[index])
                    index += 1
                    for _ in 0..<count where index + 1 < c.count {
                        if c[index] & 0x80 != 0 {
                            blocks.append(Int(c[index + 1]))
                            index += 2
                        } else {
                            blocks.append(index + 2 < c.count ? Int(c[index + 1]) | Int(c[index + 2]) << 8 : -1)
                            index += 3
                        }
                    }
                }
            }
            location = "block" + (blocks.count == 1 ? " " : "s ") + blocks.map { "\($0) (0x\(Hex.encode([UInt8(truncatingIfNeeded: $0)], uppercase: true)))" }.joined(separator: ",")
            data = hex(c[min(index, c.count)...])
            if blocks.contains(0x88) {
                irreversible = "FeliCa Lite-S MC (memory configuration can make blocks read-only for good)"
            }
        case .type4:
            location = "offset 0x" + Hex.encode([c[2], c[3]], uppercase: true)
            data = hex(c.dropFirst(5))
            note = "UPDATE BINARY of the selected file"
        case .type5:
            let addressed = c[0] & 0x20 != 0
            let start = 2 + (addressed ? 8 : 0)
            let extended = [0x31, 0x32, 0x34].contains(c[1])
            var block = -1
            if extended, start + 1 < c.count { block = Int(c[start]) | Int(c[start + 1]) << 8 }
            if !extended, start < c.count { block = Int(c[start]) }
            let dataStart = min(start + (extended ? 2 : 1) + ([0x24, 0x34].contains(c[1]) ? (extended ? 2 : 1) : 0), c.count)
            switch c[1] {
            case 0x22, 0x32:
                location = "block \(block)"
                data = "LOCK BLOCK"
                irreversible = "the block is locked for good (ISO 15693 LOCK BLOCK)"
            case 0x27, 0x29:
                location = c[1] == 0x27 ? "AFI" : "DSFID"
                data = hex(c[min(start, c.count)...])
            case 0x28, 0x2A:
                location = c[1] == 0x28 ? "AFI" : "DSFID"
                data = "LOCK"
                irreversible = "locked for good (ISO 15693 LOCK \(location))"
            default:
                location = "block \(block)"
                data = hex(c[dataStart...])
            }
        }
    }
}

extension String {
    /// Without leading and trailing spaces, tabs and newlines.
    var trimmingWhitespace: String {
        var scalars = Substring(self)
        while let first = scalars.first, first.isWhitespace { scalars.removeFirst() }
        while let last = scalars.last, last.isWhitespace { scalars.removeLast() }
        return String(scalars)
    }
}

extension TagWriteSupport {
    /// ``TagCommandSupport/withTag(connection:seconds:wrapping:_:)``, with a ``PlanningReader``
    /// in front of the real reader when `planning`: `body` gets it, to read the held-back writes.
    static func withTag<T: Sendable>(
        connection: String, seconds: Double, planning: Bool,
        _ body: (NFCTag, any NFCReader, PlanningReader?) async throws(CommandError) -> T
    ) async throws(CommandError) -> T {
        try await TagCommandSupport.withTag(
            connection: connection, seconds: seconds,
            wrapping: { reader in planning ? await PlanningReader(reader) : reader }
        ) { (tag, reader) async throws(CommandError) -> T in
            try await body(tag, reader, reader as? PlanningReader)
        }
    }

    /// ``withTag(connection:seconds:planning:_:)``, also returning which reader was used (for
    /// the JSON's `reader` and `readerName`).
    static func withLabelledTag<T: Sendable>(
        connection: String, seconds: Double, planning: Bool,
        _ body: (NFCTag, any NFCReader, PlanningReader?) async throws(CommandError) -> T
    ) async throws(CommandError) -> (T, ReaderLabel) {
        try await withTag(connection: connection, seconds: seconds, planning: planning) {
            (tag, reader, planner) async throws(CommandError) -> (T, ReaderLabel) in
            (try await body(tag, reader, planner), await ReaderLabel(reader))
        }
    }

    /// The NDEF state of `tag`, as a command error with its exit status on failure.
    static func query(_ tag: NFCTag) async throws(CommandError) -> NDEFQuery {
        do {
            return try await tag.ndef.queryNDEFStatus()
        } catch {
            throw TagCommandSupport.map(error)
        }
    }
}
