import CommandLineKit
import Foundation
import NDEF
import NFCCore
import NFCTags

/// `nfctool write`: writes an NDEF message to a tag, checked first and read back after.
struct WriteCommand: ToolCommand {
    static let ndef = CommandOption.option("ndef", valueName: "file", help: "Write this NDEF message: raw bytes or hex text ('-' for standard input).")
    static let noVerify = CommandOption.flag("no-verify", help: "Do not read the message back after writing it.")
    static let lock = CommandOption.flag("lock", help: "Make the tag read-only for good after a verified write (asks, or needs --yes).")
    static let format = CommandOption.flag("format", help: "Format a blank tag for NDEF first (a formatted tag is left as it is; asks, or needs --yes: a Type 2 tag's capability container is one-time programmable).")

    static let configuration = CommandConfiguration(
        name: "write",
        abstract: "Write an NDEF message to a tag.",
        discussion: """
            The message is built from the record options of 'nfctool ndef encode' (records in \
            the order given) or read with --ndef. Nothing is written unless the tag holds NDEF, \
            is writable and the message fits (exit 6 says by how many bytes it is too big). The \
            message is read back afterwards (--no-verify to skip). --plan lists the pages or \
            blocks that would be written, irreversible ones marked, and sends no write command.

            A password-protected NTAG21x needs its password: --password-file FILE or \
            NFCTOOL_PASSWORD, 8 hex digits (PWD), optionally ':' and 4 more (PACK). A \
            protected MIFARE Ultralight C or AES needs its 3DES or AES key: --keys FILE, 32 hex \
            digits.

            On an NTAG213/215/216, a --url may hold {mirror:uid}, {mirror:counter} or \
            {mirror:uid}x{mirror:counter}: the chip then shows its UID (14 hex digits) and/or \
            its tap counter (6) there on every read. The position is checked (inside user \
            memory, from page 4) before anything is written; see docs/genuine-and-dynamic.md. \
            A write without a placeholder turns a mirror that is on off (CFG0), after its \
            checks and before the message is written: --plan shows that step.

            Examples:
              nfctool write --url https://example.com/t/42
              nfctool write --text Hello --lang en --url https://example.com
              nfctool write --ndef message.ndef --device pn532_uart:/dev/ttyUSB0
              nfctool write --url https://example.com --lock --yes
              nfctool write --url https://example.com --plan
              nfctool write --url 'https://ex.io/t?u={mirror:uid}x{mirror:counter}'
            """,
        options: TagCommandSupport.readerOptions + [TagCommandSupport.timeout, TagCommandSupport.json]
            + RecordOptions.all
            + [ndef, noVerify, lock, TagWriteSupport.yes, format, TagWriteSupport.passwordFile, TagWriteSupport.ultralightCKeyFile,
               TagWriteSupport.plan]
    )

    let options: TagCommandOptions
    var arguments: ParsedArguments { options.arguments }
    var planning: Bool { options.planning }
    let ndefPath: String?
    let verifies: Bool
    let locks: Bool
    let confirmed: Bool
    let formats: Bool

    init(_ arguments: ParsedArguments) throws(CommandError) {
        options = try TagCommandOptions(arguments)
        ndefPath = arguments.value(of: Self.ndef)
        verifies = !arguments.contains(Self.noVerify)
        locks = arguments.contains(Self.lock)
        confirmed = arguments.contains(TagWriteSupport.yes)
        formats = arguments.contains(Self.format)
        let hasRecords = arguments.occurrences.contains { RecordOptions.starters.contains($0.option) }
        if ndefPath != nil && hasRecords {
            throw .usage("give the message either with --ndef or with record options, not both")
        }
        if ndefPath == nil && !hasRecords {
            throw .usage("no message given: add --ndef FILE or record options such as --url, --text, --mime, --json-file")
        }
        if locks && !verifies {
            throw .usage("--lock needs the read-back: it cannot be used with --no-verify")
        }
    }

    func run(_ context: CommandContext) async throws(CommandError) {
        let mirror = ndefPath == nil ? try MirrorSupport.plan(arguments.occurrences, context) : nil
        let message: NDEFMessage
        if let mirror { message = mirror.message } else { message = try buildMessage(context) }
        let encodedLength: Int
        do {
            encodedLength = try message.encoded().count
        } catch {
            throw .usage("cannot encode the message: \(error)")
        }
        let password = try options.password(context)
        let ultralightCKey = try options.ultralightCKey()
        if locks && !planning && !confirmed && !context.io.isStandardInputTerminal {
            throw .usage("--lock makes the tag read-only for good. Add --yes to confirm (standard input is not a terminal, so nobody can be asked).")
        }
        if formats && !planning && !confirmed && !context.io.isStandardInputTerminal {
            throw .usage("--format writes a blank tag's capability container, which on Type 2 tags is one-time programmable. Add --yes to confirm (standard input is not a terminal, so nobody can be asked).")
        }
        let (planning, verifies, formats, locks, confirmed) = (planning, verifies && !planning, formats, locks, confirmed)
        let ((report, planned), reader) = try await TagOperation(options, context).run(
            password: password, ultralightCKey: ultralightCKey, planning: planning, alone: true
        ) {
            tag, reader in
            let query = try await tag.ndef.queryNDEFStatus()
            let formatting = formats && query.status == .notSupported
            // Every check comes before the first write: the format's CC is one-time programmable
            // on Type 2, and the message is not written to a tag that cannot be locked after it.
            if mirror != nil { try TagWriteSupport.type2(tag, for: "mirroring the UID or counter").checkMirror() }
            if locks {
                do throws(NFCTagError) {
                    try await tag.ndef.checkLockable()
                } catch {
                    throw CommandError.tag(
                        error, message: "\(error.reason)\(error.reason.contains("nothing was sent") || error.reason.contains("not changed") || error.reason.contains("nothing was written") ? "" : "; nothing was written")")
                }
                if !planning { try context.confirm("After writing, \(LockCommand.warning(tag))", confirmed: confirmed) }
            }
            let steps = WriteSteps(
                message: message, encodedLength: encodedLength, mirror: mirror, formats: formats, formatting: formatting, query: query)
            var formattedFirst = false
            if formatting && !planning {
                if let (rehearsal, _) = await tag.rehearsal() {
                    // The format and the write on a PlanningReader: every check, on the tag as the
                    // format will leave it, with nothing sent.
                    _ = try await steps.run(on: rehearsal, verify: false, formattedFirst: false)
                } else {
                    // This platform's reads do not see planned writes: the message's checks come
                    // after the format, and a failed one says that the tag was formatted.
                    formattedFirst = true
                }
                // Asked on a terminal (without one, --yes was required above), after the checks.
                try context.confirm(FormatCommand.warning(tag), confirmed: confirmed)
            }
            let capacity = try await steps.run(on: tag, verify: verifies, formattedFirst: formattedFirst)
            if locks {
                do {
                    try await LockCommand.lock(tag, planning: planning)
                } catch let error as NFCTagError where !planning {
                    // What only the lock itself finds (keys, write access, the tag leaving): the
                    // message is on the tag by now, and the error says so.
                    throw CommandError.tag(
                        error, message: "the message was written\(verifies ? " and verified" : ""), but locking the tag failed: \(error.reason)")
                }
                if !planning { try await LockCommand.requireReadOnly(after: tag, on: reader, password: password, key: ultralightCKey) }
            }
            let report = WriteReport(
                uid: Hex.encode(tag.identifier, uppercase: true), model: tag.identity.model, bytes: encodedLength,
                records: message.records.count, capacity: capacity, formatted: formatting, verified: verifies,
                locked: locks, tag: tag)
            return (report, await (reader as? PlanningReader)?.writes)
        }
        try TagWriteOperation.printOutcome("write", options, context, tag: report.tag, planned: planned, reader: reader) {
            (report, report.text)
        }
    }

    /// The format (when `formatting`), the NDEF checks and the write, on the tag or on its
    /// rehearsal (``NFCTag/rehearsal()``).
    private struct WriteSteps: Sendable {
        var message: NDEFMessage
        var encodedLength: Int
        var mirror: MirrorSupport.Plan?
        var formats: Bool
        var formatting: Bool
        var query: NDEFQuery

        /// Runs them; returns the capacity. With `formattedFirst`, a failed check says that
        /// the format was written.
        func run(on tag: NFCTag, verify: Bool, formattedFirst: Bool) async throws -> Int {
            var query = query
            if formatting {
                try await tag.ndef.format(force: false)
                query = try await tag.ndef.queryNDEFStatus()
            }
            let written = formattedFirst ? "the tag was formatted for NDEF (an empty message), but the message was not written" : "nothing was written"
            try TagWriteSupport.requireWritable(
                query, tag, noNDEF: "holds no NDEF\(formats ? "" : " (a blank tag: add --format)"); \(written)",
                readOnly: written)
            if encodedLength > query.capacity {
                let over = encodedLength - query.capacity
                throw CommandError(
                    "the message of \(encodedLength) bytes is too big by \(over) byte\(over == 1 ? "" : "s"): the \(tag.identity.model) holds at most \(query.capacity); \(written)",
                    exitCode: .capacityExceeded)
            }
            if let mirror {
                let type2 = try TagWriteSupport.type2(tag, for: "mirroring the UID or counter")
                try await type2.writeNDEF(message, mirror: mirror.mirror, at: mirror.offset, verify: verify)
            } else {
                try await tag.ndef.writeNDEF(message, verify: verify)
            }
            return query.capacity
        }
    }

    /// The message from `--ndef` or the record options.
    private func buildMessage(_ context: CommandContext) throws(CommandError) -> NDEFMessage {
        try Self.message(ndefPath: ndefPath, arguments: arguments, context)
    }

    /// The message from `--ndef FILE` (raw or hex, '-' for standard input) or else from the
    /// record options of `arguments`; shared with `emulate`.
    static func message(ndefPath: String?, arguments: ParsedArguments, _ context: CommandContext) throws(CommandError) -> NDEFMessage {
        guard let ndefPath else {
            return NDEFMessage(records: try RecordOptions.records(arguments.occurrences, context))
        }
        let raw = ndefPath == "-" ? try context.io.readStandardInput(limit: InputLimits.ndefMessage)
            : try readFileBytes(ndefPath, what: "NDEF file", limit: InputLimits.ndefMessage)
        let bytes = NDEFDecodeCommand.hexOrRaw(raw)
        do {
            return try NDEFMessage(bytes: bytes)
        } catch {
            throw .ndef("'\(ndefPath)' is not a valid NDEF message: \(error)", error)
        }
    }

    /// What a write did.
    private struct WriteReport: Encodable, Sendable {
        var uid: String
        var model: String
        var bytes: Int
        var records: Int
        var capacity: Int
        var formatted: Bool
        var verified: Bool
        var locked: Bool
        var tag: NFCTag

        private enum CodingKeys: String, CodingKey {
            case uid, model, bytes, records, capacity, formatted, verified, locked
        }

        var text: String {
            var lines: [String] = []
            if formatted { lines.append("Formatted the \(model) for NDEF.") }
            lines.append("Wrote \(bytes) bytes (\(records) record\(records == 1 ? "" : "s")) to \(model) \(TagWriteSupport.spacedHex(tag.identifier)), capacity \(capacity) bytes.")
            lines.append(verified ? "Verified: the message read back is the one written." : "Not verified (--no-verify).")
            if locked { lines.append("Locked: the tag is now read-only for good.") }
            return lines.joined(separator: "\n")
        }
    }
}
