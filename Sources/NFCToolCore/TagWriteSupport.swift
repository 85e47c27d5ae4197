import CommandLineKit
import NFCCore
import NFCTags

/// What the commands that change a tag share: `--yes`, `--plan`/`--dry-run`, passwords read from
/// a file or the environment (never from the command line), the confirmation of irreversible
/// steps, and the printing of a plan.
enum TagWriteSupport {
    /// `--yes`: confirms an irreversible step without asking.
    static let yes = CommandOption.flag(
        "yes", short: "y", help: "Do the irreversible step without asking (required when standard input is not a terminal).")
    /// `--plan`, alias `--dry-run`.
    static let plan = CommandOption.flag(
        "plan", help: "Print the pages or blocks that would be written, with their bytes; write nothing.",
        aliases: ["dry-run"])
    /// `--password-file`.
    static let passwordFile = CommandOption.option(
        "password-file", valueName: "file",
        help: "NTAG21x password PWD[:PACK] in hex (8[+4] digits), read from this file (or set NFCTOOL_PASSWORD).")

    /// The confirmation rule of the irreversible commands (`lock`, `format`): `--plan` needs
    /// none; `--yes` confirms; without it, standard input must be a terminal (checked here,
    /// before any reader is opened: exit 64) and the command asks at the tag
    /// (``CommandContext/confirm(_:confirmed:)``, "yes" only).
    /// - Parameter what: what the step does and whether it can be undone: the usage error's
    ///   first sentence, without its full stop.
    /// - Returns: whether `--yes` was given.
    static func confirmation(_ what: String, _ options: TagCommandOptions, _ context: CommandContext) throws(CommandError) -> Bool {
        let confirmed = options.arguments.contains(yes)
        if !options.planning && !confirmed && !context.io.isStandardInputTerminal {
            throw .usage("\(what). Add --yes to confirm (standard input is not a terminal, so nobody can be asked).")
        }
        return confirmed
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
            text = try keyFileText(path, what: "password file").trimmingWhitespace
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

    /// The text of a password file (or of the environment variable) and where it came from,
    /// not yet parsed: NTAG and ICODE passwords are written differently. Nil when neither is given.
    /// - Throws: ``CommandError`` (usage) when the file cannot be read.
    static func passwordText(
        file path: String?, option: CommandOption, environment: [String: String], variable: String?
    ) throws(CommandError) -> (text: String, source: String)? {
        if let path {
            return (try keyFileText(path, what: "password file").trimmingWhitespace, "\(option.synopsis) '\(path)'")
        } else if let variable, let value = environment[variable] {
            return (value.trimmingWhitespace, variable)
        }
        return nil
    }

    /// An NTAG password from ``passwordText(file:option:environment:variable:)``'s answer.
    /// - Throws: ``CommandError`` (usage) naming the source, never the text.
    static func ntagPassword(_ given: (text: String, source: String)) throws(CommandError) -> NTAGPassword {
        do {
            return try NTAGPassword(hex: given.text)
        } catch {
            throw .usage("\(given.source): \(error.reason)")
        }
    }

    /// An ST25DV password (16 hex digits) from ``passwordText(file:option:environment:variable:)``'s answer.
    /// - Throws: ``CommandError`` (usage) naming the source, never the text.
    static func st25Password(_ given: (text: String, source: String)) throws(CommandError) -> ST25Password {
        do {
            return try ST25Password(hex: given.text)
        } catch {
            throw .usage("\(given.source): \(error.reason)")
        }
    }

    /// The password of `--password-file`, else of `NFCTOOL_PASSWORD`; nil when neither is given.
    static func password(_ arguments: ParsedArguments, _ context: CommandContext) throws(CommandError) -> NTAGPassword? {
        try password(
            file: arguments.value(of: passwordFile), option: passwordFile, environment: context.environment,
            variable: "NFCTOOL_PASSWORD")
    }

    /// The text of a key or password file (``readFileText(_:what:limit:)``, at most
    /// ``InputLimits/keyFile`` bytes): a file that cannot be read is a usage error (64), one too
    /// large or not UTF-8 a data error (65).
    static func keyFileText(_ path: String, what: String) throws(CommandError) -> String {
        do {
            return try readFileText(path, what: what, limit: InputLimits.keyFile)
        } catch {
            throw error.exitCode == .dataError ? error : .usage(error.message)
        }
    }

    /// `--keys`: a MIFARE Ultralight C 3DES or Ultralight AES key file (16 bytes either way).
    static let ultralightCKeyFile = CommandOption.option(
        "keys", valueName: "file",
        help: "MIFARE Ultralight C or AES: the key, 32 hex digits (3DES: Key1 then Key2; AES-128), read from this file.")

    /// Reads an Ultralight C key from `path`; nil when no path is given. The key never appears
    /// in an error.
    /// - Throws: ``CommandError`` (usage) when the file cannot be read or is not a key.
    static func ultralightCKey(file path: String?, option: CommandOption) throws(CommandError) -> UltralightCKey? {
        guard let path else { return nil }
        let text = try keyFileText(path, what: "key file")
        do {
            return try UltralightCKey(hex: text)
        } catch {
            throw .usage("\(option.synopsis) '\(path)': \(error.reason)")
        }
    }

    /// The tag with `password` and `ultralightCKey` set, for the Type 2 operations that need
    /// them; other tags as they are. The 16 bytes of a `--keys` file are the 3DES key of an
    /// Ultralight C and the AES key of an Ultralight AES: the chip identified decides which.
    static func tag(_ tag: NFCTag, password: NTAGPassword?, ultralightCKey: UltralightCKey? = nil) -> NFCTag {
        guard password != nil || ultralightCKey != nil, case .miFare(var miFare) = tag else { return tag }
        miFare.password = password
        miFare.ultralightCKey = ultralightCKey
        miFare.ultralightAESKey = ultralightCKey.flatMap { try? UltralightAESKey(bytes: $0.bytes) }
        return .miFare(miFare)
    }

    /// The Type 2 platform of `tag`, or an ``ExitCode/unsupported`` error naming `what`; for a
    /// `password` on a Type 5 tag, the error names the Type 5 chips whose passwords NFCKit sets.
    static func type2(_ tag: NFCTag, for what: String, password: Bool = false) throws(CommandError) -> Type2Tag {
        guard case .miFare(let miFare) = tag, let type2 = miFare.type2 else {
            if password, case .iso15693 = tag {
                throw CommandError(
                    "\(what) on a Type 5 tag is set with 'nfctool protect' and removed with 'nfctool unprotect' on an ICODE SLIX2, "
                        + "SLIX-S, NTAG 5, ST25DV or ST25TV02K only, and read and write take none (unprotect such a tag first); "
                        + "this chip is the Type 5 \(tag.identity.model): nothing was sent",
                    exitCode: .unsupported)
            }
            throw CommandError("\(what) needs an NTAG21x or MIFARE Ultralight EV1; this chip is a \(tag.identity.model)", exitCode: .unsupported)
        }
        return type2
    }

    /// After a change to a tag, names the reader that made it when the command line did not
    /// (`NFCTOOL_DEVICE` or libnfc's default device chose it), where a mix-up is possible:
    /// `Reader: ACS ACR122U PICC Interface (acr122_usb:001:004), libnfc's default device.`
    static func sayReader(_ reader: ReaderLabel, _ context: CommandContext) {
        let chosen: String
        switch reader.origin {
        case .commandLine: return
        case .environment: chosen = "from NFCTOOL_DEVICE"
        case .libnfcDefault: chosen = "libnfc's default device"
        }
        let name = reader.name.map { "\($0) (\(reader.connection))" } ?? reader.connection
        context.io.printLine("Reader: \(name), \(chosen).")
    }

    /// `04 53 49 4D 00 00 01`.
    static func spacedHex(_ bytes: some Collection<UInt8>) -> String {
        Hex.encode(Array(bytes), uppercase: true, separator: " ")
    }

    /// What `--plan` prints: one line per held-back write, irreversible ones marked, or a JSON
    /// object.
    static func printPlan(
        _ writes: [PlannedWrite], of tag: NFCTag, operation: String, json: Bool, reader: ReaderLabel, _ context: CommandContext
    ) throws(CommandError) {
        let steps = writes.map { PlannedWriteDescription(
            $0, profile: Type2ChipProfile.named(tag.identity.model), ultralightC: tag.identity.family == .ultralightC,
            ultralightAES: tag.identity.family == .ultralightAES) }
        if json {
            context.io.write(try taggedJSON(reader, PlanOutput(
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
        var writes: [PlannedWriteDescription]
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
    /// Refuses a tag whose NDEF cannot take a write: ``ExitCode/notNDEF`` with `the <model>
    /// <noNDEF>`, ``ExitCode/readOnly`` for a read-only one (`is read-only; <readOnly>`).
    static func requireWritable(
        _ query: NDEFQuery, _ tag: NFCTag, noNDEF: String, readOnly: String = "nothing was written"
    ) throws(CommandError) {
        switch query.status {
        case .notSupported:
            throw CommandError("the \(tag.identity.model) \(noNDEF)", exitCode: .notNDEF)
        case .readOnly:
            throw CommandError("the \(tag.identity.model) is read-only; \(readOnly)", exitCode: .readOnly)
        case .readWrite:
            break
        }
    }

    /// Runs a write whose read-back cannot succeed under `--plan` (the writes were held back):
    /// when `planning`, an error with one of `codes` is passed over.
    /// - Returns: what `body` returns; nil when an error was passed over.
    @discardableResult
    static func write<Result>(
        planning: Bool, passing codes: Set<NFCTagError.Code> = [.verificationFailed],
        _ body: () async throws -> Result
    ) async throws -> Result? {
        do {
            return try await body()
        } catch let error as NFCTagError where planning && codes.contains(error.code) {
            return nil
        }
    }
}
