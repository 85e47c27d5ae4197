import CommandLineKit
import Dispatch
import Foundation
import NDEF
import NFCCore
import NFCKit
import NFCTags
import Synchronization

/// `nfctool emulate`: the reader becomes an NFC Forum Type 4 tag for external readers
/// (phones), over libnfc target mode.
struct EmulateCommand: ToolCommand {
    static let readOnly = CommandOption.flag("read-only", help: "Refuse writes: the tag announces itself read-only and answers UPDATE BINARY with 6982.")
    static let save = CommandOption.option("save", valueName: "file", help: "Save the message an external reader wrote (raw NDEF bytes) to this file.")
    static let ndef = CommandOption.option(
        "ndef", valueName: "file", help: "The message the tag holds: raw bytes or hex text ('-' for standard input).")
    static let timeout = TypedOption(
        .option("timeout", short: "t", valueName: "s", help: "How long to wait for an external reader, in seconds (default 60)."),
        .seconds(upTo: 86_400))

    /// `--device`: the simulator has no target mode, so the default is libnfc's default device.
    static let device = CommandOption.option(
        "device", short: "d", valueName: "conn",
        help: "The reader that becomes the tag: a libnfc connection string such as pn532_uart:/dev/ttyUSB0 (a PN53x: only they have target mode), or 'default' (default: $NFCTOOL_DEVICE, else libnfc's default device).")
        .completing(emulatorDeviceCompletion)
    static let configuration = CommandConfiguration(
        name: "emulate",
        abstract: "Act as an NFC Forum Type 4 tag for a phone or another reader.",
        discussion: """
            The reader goes into target mode (card emulation) and answers as an NFC Forum Type \
            4 tag holding the message, built from the record options of 'nfctool ndef encode' \
            or read with --ndef. When an external reader has come and left, what it did is \
            printed: whether it wrote, and the message it wrote (--save keeps it in a file). \
            --read-only refuses writes. Waiting for a reader ends after --timeout (exit 2).

            Only PN53x readers (PN532, PN533) driven by libnfc have target mode; other \
            readers and the simulator (sim:) fail with exit 10.

            Examples:
              nfctool emulate --url https://example.com --device pn532_uart:/dev/ttyUSB0
              nfctool emulate --text Hello --read-only --timeout 30
              nfctool emulate --ndef message.ndef --save written.ndef --json
            """,
        options: [device, timeout.option, TagCommandSupport.json]
            + RecordOptions.all
            + [ndef, readOnly, save],
        exclusions: [CommandExclusion(
            readOnly, save, message: "--save keeps what a reader wrote, and --read-only refuses every write: use one of them")]
    )

    let arguments: ParsedArguments
    let seconds: Double
    let printsJSON: Bool
    let ndefPath: String?
    let isReadOnly: Bool
    let savePath: String?

    init(_ arguments: ParsedArguments) throws(CommandError) {
        self.arguments = arguments
        seconds = try arguments.value(of: Self.timeout) ?? 60
        printsJSON = arguments.contains(TagCommandSupport.json)
        ndefPath = arguments.value(of: Self.ndef)
        isReadOnly = arguments.contains(Self.readOnly)
        savePath = arguments.value(of: Self.save)
        if savePath?.isEmpty == true { throw .usage("--save needs a file name") }
        let hasRecords = arguments.occurrences.contains { RecordOptions.starters.contains($0.option) }
        if ndefPath != nil && hasRecords {
            throw .usage("give the message either with --ndef or with record options, not both")
        }
        if ndefPath == nil && !hasRecords {
            throw .usage("no message given: add --ndef FILE or record options such as --url, --text, --mime, --json-file")
        }
    }

    func run(_ context: CommandContext) async throws(CommandError) {
        let message = try WriteCommand.message(ndefPath: ndefPath, arguments: arguments, context)
        let encoded: [UInt8]
        do {
            encoded = try message.encoded()
        } catch {
            throw .usage("cannot encode the message: \(error)")
        }
        var tag: EmulatedType4Tag
        do {
            tag = try EmulatedType4Tag(message: Bytes(encoded), readOnly: isReadOnly)
        } catch {
            throw CommandError("the message of \(encoded.count) bytes is too big: \(error)", exitCode: .capacityExceeded)
        }
        if let savePath {
            // Checked before anything is on the air: a phone's write must not be lost to a
            // path that could never be written.
            do throws(FileAccessError) {
                try FileAccess.checkWritable(savePath)
            } catch {
                throw .failure("cannot save to \(savePath): \(error): nothing was emulated")
            }
        }
        let connection = TagCommandSupport.connection(arguments.value(of: Self.device), context.environment)
        // Ctrl-C ends the session: what a reader wrote so far is still reported. Trapped before
        // the session starts (target mode may be on the air before `start` returns), so a Ctrl-C
        // at any time is an orderly stop.
        let interruption = EmulationInterruption()
        let interrupt = SignalTrap { interruption.interrupt() }
        defer { interrupt.stop() }
        let session: NFCCardSession
        do {
            session = try await NFCCardSession.start(connection: connection, timeout: .milliseconds(Int(seconds * 1000)))
        } catch {
            throw CommandError("cannot emulate a tag on '\(connection)': \(error.reason)",
                               exitCode: error.code == .unsupportedFeature ? .unsupported : .noReader)
        }
        let waiting = "Emulating an NFC Forum Type 4 tag (\(encoded.count)-byte message\(isReadOnly ? ", read-only" : "")) on \(connection); waiting for a reader..."
        context.io.write(waiting.wrapped(to: HelpFormatter.screenWidth) + "\n", to: .standardError)
        var report = EmulateReport(connection: connection, readOnly: isReadOnly)
        var ending: NFCReaderSessionError?
        interruption.attach(session)
        for await event in session.events {
            switch event {
            case .sessionStarted:
                break
            case .readerDetected:
                report.readerCame = true
                context.io.write("A reader came.\n", to: .standardError)
                // Emulation does not start by itself (as CoreNFC's CardSession).
                try? await session.startEmulation()
            case .received(let apdu):
                report.commands += 1
                let isUpdate = apdu.payload.count > 1 && apdu.payload[1] == Type4Command.updateBinary
                let answer = tag.respond(to: apdu.payload)
                if isUpdate && answer.count == 2 && answer[0] != 0x90 { report.refusedUpdates += 1 }
                try? await apdu.respond(answer)
            case .readerDeselected:
                await session.stopEmulation(status: .success)
                await session.invalidate()
            case .sessionInvalidated(let reason):
                ending = reason
            }
        }
        guard report.readerCame else {
            if let ending, ending.code != .sessionTimeout && ending.code != .userCanceled {
                throw .failure("emulation on \(connection) failed: \(ending.reason)")
            }
            if ending?.code == .userCanceled { throw .noTag("stopped before a reader came on \(connection)") }
            throw .noTag("no reader came within \(ScanCommand.format(seconds)) s on \(connection)")
        }
        try finish(&report, tag: tag, context)
    }

    private func finish(_ report: inout EmulateReport, tag: EmulatedType4Tag, _ context: CommandContext) throws(CommandError) {
        report.written = tag.wasUpdated
        report.readMessage = tag.messageWasRead
        var written: NDEFMessage?
        if tag.wasUpdated {
            guard let bytes = tag.message else {
                throw .dataError("the reader left the NDEF file inconsistent (NLEN larger than the file)")
            }
            report.bytes = bytes.count
            if let savePath {
                try writeFileBytes(bytes.array, to: savePath)
                report.saved = savePath
            }
            if !bytes.isEmpty {
                do {
                    written = try NDEFMessage(bytes: bytes.array)
                } catch {
                    throw .ndef("the reader wrote \(bytes.count) bytes that are not a valid NDEF message: \(error)", error)
                }
            }
        }
        report.message = written
        if printsJSON {
            context.io.write(try toolJSON(report))
            return
        }
        var lines = ["The reader left after \(report.commands) command\(report.commands == 1 ? "" : "s")."]
        if tag.messageWasRead { lines.append("It read the whole message.") }
        if report.refusedUpdates > 0 {
            lines.append("Refused \(report.refusedUpdates) write\(report.refusedUpdates == 1 ? "" : "s") (--read-only).")
        }
        var text = lines.map { $0.wrapped(to: HelpFormatter.screenWidth) }.joined(separator: "\n") + "\n"
        guard let bytes = tag.message, tag.wasUpdated else {
            context.io.write(text + "It wrote nothing.\n")
            return
        }
        if let written {
            text += "It wrote a \(bytes.count)-byte message\(savePath.map { ", saved to \($0)" } ?? ""):\n"
            text += NDEFDisplay.describe(written, byteCount: bytes.count)
        } else {
            text += "It wrote an empty NDEF message\(savePath.map { ", saved to \($0)" } ?? "").\n"
        }
        context.io.write(text)
    }

    /// What happened while emulating; `emulate --json` prints it.
    private struct EmulateReport: Encodable {
        var connection: String
        var readOnly: Bool
        var readerCame = false
        var commands = 0
        var refusedUpdates = 0
        var readMessage = false
        var written = false
        var bytes = 0
        var saved: String?
        var message: NDEFMessage?

        private enum CodingKeys: String, CodingKey {
            case connection, readOnly, readerCame, commands, readMessage, refusedUpdates, written, bytes, saved, message
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(connection, forKey: .connection)
            try container.encode(readOnly, forKey: .readOnly)
            try container.encode(readerCame, forKey: .readerCame)
            try container.encode(commands, forKey: .commands)
            try container.encode(readMessage, forKey: .readMessage)
            try container.encode(refusedUpdates, forKey: .refusedUpdates)
            try container.encode(written, forKey: .written)
            try container.encode(bytes, forKey: .bytes)
            try container.encode(saved, forKey: .saved)
            try container.encode(message, forKey: .message)
        }
    }
}

/// A Ctrl-C during `emulate`: it may come before the session has started; the session is
/// invalidated as soon as both are there.
private final class EmulationInterruption: Sendable {
    private let state = Mutex<(interrupted: Bool, session: NFCCardSession?)>((false, nil))

    /// The signal came.
    func interrupt() {
        let session = state.withLock { state in
            state.interrupted = true
            return state.session
        }
        if let session { Task { await session.invalidate() } }
    }

    /// The session has started.
    func attach(_ session: NFCCardSession) {
        let interrupted = state.withLock { state in
            state.session = session
            return state.interrupted
        }
        if interrupted { Task { await session.invalidate() } }
    }
}
