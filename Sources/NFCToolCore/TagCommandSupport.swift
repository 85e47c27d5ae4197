import CommandLineKit
import NFCCore
import NFCKit
import NFCTags

/// What the commands that work on one tag share: the `--device`, `--timeout` and `--json`
/// options, opening the reader, waiting for a tag, and mapping tag errors to exit statuses.
enum TagCommandSupport {
    /// `--device`, as `scan` words it.
    static let device = CommandOption.option(
        "device", short: "d", valueName: "conn",
        help: "The reader: a libnfc connection string such as pn532_uart:/dev/ttyUSB0, 'default' for libnfc's default device, pcsc, pcsc:NAME or pcsc:#N for a PC/SC reader, sim:MODEL for the simulator, or replay:FILE to answer from a trace (default: $NFCTOOL_DEVICE, else libnfc's default device).")
        .completing(deviceCompletion)
    /// `--timeout`: how long to wait for a tag, 0 < s ≤ 86400.
    static let timeoutSeconds = TypedOption(
        .option("timeout", short: "t", valueName: "s", help: "How long to wait for a tag, in seconds (default 10)."),
        .seconds(upTo: 86_400))
    /// `--timeout`, for a configuration's options.
    static let timeout = timeoutSeconds.option
    /// `--json`.
    static let json = CommandOption.flag("json", help: "Print JSON on standard output.")

    /// The connection string: `--device`, else `$NFCTOOL_DEVICE`, else libnfc's default device
    /// (`default`). Never the simulator: `sim:` is used only when named.
    static func connection(_ arguments: ParsedArguments, _ environment: [String: String]) -> String {
        DeviceChoice(arguments.value(of: device), environment).connection
    }

    /// The connection string from a `--device` value already read: the value, else
    /// `$NFCTOOL_DEVICE`, else `default` (libnfc's default device).
    static func connection(_ value: String?, _ environment: [String: String]) -> String {
        DeviceChoice(value, environment).connection
    }

    /// `--device`, `--trace` and `--trace-unredacted`: the options of every command that talks
    /// to a tag, declared once here.
    static let readerOptions: [CommandOption] = [device, ReaderTraceOptions.file, ReaderTraceOptions.unredacted]

    /// Opens the reader `connection` names, behind a ``RecordingReader`` when `trace` asks for one.
    /// - Throws: ``ExitCode/usage`` for a malformed connection string (an unknown `sim:` model,
    ///   a trace that does not parse), ``ExitCode/noReader`` for an I/O error (a tag file that
    ///   cannot be read or written, a replay's trace that cannot be read), ``ExitCode/failure``
    ///   for a `--trace` file that cannot be opened, and ``ExitCode/noReader`` with the hints
    ///   `nfctool devices` prints when no reader is there.
    static func openReader(
        _ connection: String, trace: ReaderTraceOptions, _ context: CommandContext
    ) async throws(CommandError) -> CommandReader {
        let opened: any NFCReader
        do {
            opened = try await ReaderConnection.open(connection)
        } catch {
            throw openFailure(connection, error)
        }
        return try await CommandReader.wrap(opened, trace, context)
    }

    /// Opens the reader `connection` names, runs `body` with it and closes it, whatever happens;
    /// then ends the trace and checks a replay.
    /// - Throws: as ``openReader(_:trace:_:)``; a replay's divergence; what `body` throws; a
    ///   trace that could not be written.
    static func withReader<T: Sendable>(
        _ connection: String, trace: ReaderTraceOptions, _ context: CommandContext,
        _ body: (any NFCReader) async throws(CommandError) -> T
    ) async throws(CommandError) -> T {
        let opened = try await openReader(connection, trace: trace, context)
        let result: Result<T, CommandError>
        do { result = .success(try await body(opened.reader)) } catch { result = .failure(error) }
        let (divergence, traceFailure) = await opened.close()
        if let divergence { throw divergence }
        switch (result, traceFailure) {
        case (.success(let value), nil):
            return value
        case (.success, let traceFailure?):
            // The command did its work: a write to the tag was made. Say so, since the
            // sentence that would have said it is not printed.
            throw CommandError(
                "\(traceFailure.message) — the command itself finished: any change it makes to the tag was made (check with nfctool info)",
                exitCode: traceFailure.exitCode)
        case (.failure(let error), let traceFailure?):
            context.io.printErrorLine("Warning: \(traceFailure.message) (the trace is incomplete)")
            throw error
        case (.failure(let error), nil):
            throw error
        }
    }

    /// The connection string a report shows for `connection`: the recorded reader's for a
    /// replay (`replay:FILE`), so that a replayed command prints what the recorded one did;
    /// else `connection` as given.
    static func shownConnection(_ connection: String, _ reader: any NFCReader) async -> String {
        ReaderConnectionString(connection).kind == .replay ? await reader.connectionString : connection
    }

    /// Waits up to `seconds` for a tag on `reader` (everything it can poll for); `connection`
    /// names the reader in the errors. With `alone` (every command that writes), the tag must
    /// be the only one in the field (``NFCReader/tagsInField(with:limit:)``): a write must not
    /// go to whichever of two tags the reader took first.
    /// - Throws: ``ExitCode/failure`` when polling fails, ``ExitCode/noTag`` when no tag comes
    ///   or, with `alone`, when more than one answers ("2 tags in the field: take one away").
    static func waitForTarget(
        _ reader: any NFCReader, _ connection: String, seconds: Double, alone: Bool = false
    ) async throws(CommandError) -> TargetInfo {
        let target: TargetInfo?
        do {
            target = try await pollUntilDeadline(reader, for: ScanCommand.modulations(await reader.supportedModulations), seconds: seconds)
        } catch {
            throw .failure("polling failed on \(connection): \(error)")
        }
        guard let target else {
            // A card lies there that NFCKit does not handle (a PC/SC card name it does not know).
            if let reason = await reader.unsupportedCardReason { throw CommandError(reason, exitCode: .unsupported) }
            throw .noTag("no tag within \(ScanCommand.format(seconds)) s on \(connection)")
        }
        guard alone else { return target }
        let all: [TargetInfo]
        do {
            all = try await reader.tagsInField(with: target, limit: 2)
        } catch where error.code == .tagLost {
            throw CommandError("the tag left the field before anything was written: \(error)", exitCode: .tagLost)
        } catch {
            throw .failure("listing the tags on \(connection) failed: \(error)")
        }
        guard all.count == 1 else { throw .noTag("\(SeveralTagsInField(all)); nothing was written") }
        return target
    }

    /// The command error for a reader that `connection` could not open.
    static func openFailure(_ connection: String, _ error: NFCReaderDeviceError) -> CommandError {
        switch error.code {
        case .invalidArgument:
            return .usage("invalid device '\(connection)': \(error.reason)")
        case .io where ReaderConnectionString(connection).isInProcess:
            // The simulator's tag file or the replay's trace could not be read or written: the
            // reader could not be opened (exit 3, as docs/cli.md says), nothing was done; the
            // libnfc hints do not apply.
            return CommandError("cannot open reader '\(connection)': \(error.reason); nothing was done", exitCode: .noReader)
        default:
            let what = connection == "default" ? "libnfc's default device" : "'\(connection)'"
            return CommandError(
                "cannot open reader \(what): \(error.reason)\n\(DevicesReport.noReaderHints)", exitCode: .noReader)
        }
    }

    /// Polls `reader` until a tag answers or `seconds` have passed, whatever each poll's own
    /// wait (a reader may give up early: `sim:empty?poll-wait=0`, libnfc's finite retries), so
    /// "no tag within N s" is only said after N seconds. Polls that come back at once are spaced
    /// 10 ms apart.
    static func pollUntilDeadline(
        _ reader: any NFCReader, for modulations: [Modulation], seconds: Double
    ) async throws(NFCReaderDeviceError) -> TargetInfo? {
        let clock = ContinuousClock()
        let deadline = clock.now + .milliseconds(Int(seconds * 1000))
        while true {
            let started = clock.now
            let remaining = deadline - started
            if let target = try await reader.poll(for: modulations, timeout: max(remaining, .zero)) { return target }
            if clock.now >= deadline || Task.isCancelled { return nil }
            if clock.now - started < .milliseconds(10) { try? await Task.sleep(for: .milliseconds(10)) }
        }
    }

    /// The exit status of a tag error.
    static func exitCode(_ code: NFCTagError.Code) -> ExitCode {
        switch code {
        case .notNDEFFormatted: .notNDEF
        case .readOnly: .readOnly
        case .capacityExceeded: .capacityExceeded
        case .connectionLost: .tagLost
        case .verificationFailed: .verifyMismatch
        case .authenticationFailed, .passwordRequired: .authenticationFailed
        case .notSupported, .refused: .unsupported
        case .alreadyFormatted: .holdsData
        case .malformedTag, .malformedMessage, .invalidMessage: .dataError
        case .invalidParameter: .usage
        case .tagResponse: .failure
        }
    }

    /// A tag error as a command error with its exit status, code and offset.
    static func map(_ error: NFCTagError) -> CommandError {
        // An Ultralight C's refusal already names what it needs (its 3DES key, --keys FILE); a
        // Type 5 chip's says to unprotect it (no command here takes a Type 5 password).
        guard error.code == .passwordRequired, !error.reason.contains("3DES key"), !error.reason.contains("nfctool unprotect") else {
            return .tag(error)
        }
        let hinted = NFCTagError(error.code, at: error.offset, error.reason + " (" + passwordHint + ")", readerError: error.readerError)
        return .tag(error, message: hinted.description)
    }

    /// How a command takes an NTAG password, said when one is needed.
    static let passwordHint = "give the password with --password-file FILE or NFCTOOL_PASSWORD"
}

/// The reader a command works with and what chose it: `--device`, else `$NFCTOOL_DEVICE`, else
/// libnfc's default device. The environment is read here, once.
struct DeviceChoice: Sendable, Hashable {
    /// What chose the reader.
    enum Origin: Sendable, Hashable {
        /// `--device` on the command line.
        case commandLine
        /// `$NFCTOOL_DEVICE`.
        case environment
        /// Neither: libnfc's default device.
        case libnfcDefault
    }

    /// The connection string (`default` for libnfc's default device).
    let connection: String
    /// What chose it.
    let origin: Origin

    /// The choice from a `--device` value already read (nil when not given) and the environment.
    init(_ value: String?, _ environment: [String: String]) {
        if let value {
            (connection, origin) = (value, .commandLine)
        } else if let named = environment["NFCTOOL_DEVICE"], !named.isEmpty {
            (connection, origin) = (named, .environment)
        } else {
            (connection, origin) = ("default", .libnfcDefault)
        }
    }
}

/// Which reader a tag command used, for its JSON (`reader`, `readerName`): the connection
/// string, and the reader's name where it has one (libnfc's device name, `simulator (ntag215)`).
struct ReaderLabel: Sendable, Hashable {
    /// The connection string the reader was opened with.
    var connection: String
    /// The reader's own name; nil when it has none.
    var name: String?
    /// What chose the reader (never in the JSON): whether the command line named it.
    var origin: DeviceChoice.Origin

    /// The label of an open reader that `origin` chose.
    init(_ reader: any NFCReader, origin: DeviceChoice.Origin = .commandLine) async {
        connection = await reader.connectionString
        let name = await reader.name
        self.name = name.isEmpty ? nil : name
        self.origin = origin
    }
}

/// A command's JSON report with the reader beside its own keys: `reader` (the connection
/// string) and `readerName` (null when unknown), so a script can tell which reader did the work.
struct ReaderTagged<Report: Encodable & Sendable>: Encodable, Sendable {
    /// The command's own report.
    var report: Report
    /// The reader it used.
    var reader: ReaderLabel

    private enum CodingKeys: String, CodingKey { case reader, readerName }

    init(_ report: Report, reader: ReaderLabel) {
        self.report = report
        self.reader = reader
    }

    func encode(to encoder: any Encoder) throws {
        try report.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(reader.connection, forKey: .reader)
        try container.encode(reader.name, forKey: .readerName)
    }
}

/// `report` as pretty JSON with `reader` and `readerName` beside its keys.
func taggedJSON<Report: Encodable & Sendable>(_ reader: ReaderLabel, _ report: Report, pretty: Bool = true) throws(CommandError) -> String {
    try toolJSON(ReaderTagged(report, reader: reader), pretty: pretty)
}
