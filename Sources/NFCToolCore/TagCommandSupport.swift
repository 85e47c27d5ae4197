import NFCCore
import NFCKit
import NFCTags

/// What the commands that work on one tag share: the `--device`, `--timeout` and `--json`
/// options, opening the reader, waiting for a tag, and mapping tag errors to exit statuses.
enum TagCommandSupport {
    /// `--device`, as `scan` words it.
    static let device = CommandOption.option(
        "device", short: "d", valueName: "conn",
        help: "The reader: a libnfc connection string such as pn532_uart:/dev/ttyUSB0, 'default' for libnfc's default device, or sim:MODEL for the simulator (default: $NFCTOOL_DEVICE, else libnfc's default device).")
    /// `--timeout`: how long to wait for a tag.
    static let timeout = CommandOption.option(
        "timeout", short: "t", valueName: "s", help: "How long to wait for a tag, in seconds (default 10).")
    /// `--json`.
    static let json = CommandOption.flag("json", help: "Print JSON on standard output.")

    /// The connection string: `--device`, else `$NFCTOOL_DEVICE`, else libnfc's default device
    /// (`default`). Never the simulator: `sim:` is used only when named.
    static func connection(_ arguments: ParsedArguments, _ environment: [String: String]) -> String {
        connection(arguments.value(of: device), environment)
    }

    /// The connection string from a `--device` value already read: the value, else
    /// `$NFCTOOL_DEVICE`, else `default` (libnfc's default device).
    static func connection(_ value: String?, _ environment: [String: String]) -> String {
        if let value { return value }
        if let named = environment["NFCTOOL_DEVICE"], !named.isEmpty { return named }
        return "default"
    }

    /// Opens the reader `connection` names.
    /// - Throws: ``ExitCode/usage`` for a malformed connection string (an unknown `sim:` model),
    ///   ``ExitCode/failure`` for an I/O error (a tag file that cannot be read or written), and
    ///   ``ExitCode/noReader`` with the hints `nfctool devices` prints when no reader is there.
    static func openReader(_ connection: String) async throws(CommandError) -> any NFCReader {
        do {
            return try await ReaderConnection.open(connection)
        } catch {
            throw openFailure(connection, error)
        }
    }

    /// The command error for a reader that `connection` could not open.
    static func openFailure(_ connection: String, _ error: NFCReaderError) -> CommandError {
        switch error.code {
        case .invalidArgument:
            return .usage("invalid device '\(connection)': \(error.reason)")
        case .io:
            return .failure("cannot open reader '\(connection)': \(error.reason)")
        default:
            let what = connection == "default" ? "libnfc's default device" : "'\(connection)'"
            return CommandError(
                "cannot open reader \(what): \(error.reason)\n\(DevicesReport.noReaderHints)", exitCode: .noReader)
        }
    }

    /// The `--timeout` value (0 < s ≤ 86400), default 10 s.
    static func timeoutSeconds(_ arguments: ParsedArguments) throws(CommandError) -> Double {
        try arguments.value(of: timeout) { Double($0).flatMap { $0 > 0 && $0 <= 86_400 ? $0 : nil } } ?? 10
    }

    /// Opens the reader named by `connection`, waits up to `seconds` for a tag, connects it as an
    /// ``NFCTag`` (identified, then selected again) and runs `body`; the reader is closed
    /// afterwards whatever happens. `wrapping` may put a reader in front of the opened one
    /// (``PlanningReader`` for `--plan`); the tag and `body` then use that one.
    /// - Throws: ``ExitCode/noReader`` when the reader cannot be opened, ``ExitCode/noTag`` when
    ///   no tag comes, and what `body` throws.
    static func withTag<T: Sendable>(
        connection: String, seconds: Double,
        wrapping: (any NFCReader) async -> any NFCReader = { $0 },
        _ body: (NFCTag, any NFCReader) async throws(CommandError) -> T
    ) async throws(CommandError) -> T {
        let reader = await wrapping(try await openReader(connection))
        do throws(CommandError) {
            let modulations = ScanCommand.modulations(await reader.supportedModulations)
            let target: TargetInfo?
            do {
                target = try await reader.poll(for: modulations, timeout: .milliseconds(Int(seconds * 1000)))
            } catch {
                throw CommandError.failure("polling failed on \(connection): \(error)")
            }
            guard let target else {
                throw CommandError.noTag("no tag within \(ScanCommand.format(seconds)) s on \(connection)")
            }
            let tag: NFCTag
            do {
                // Identification leaves the tag selected (it re-selects a chip its GET_VERSION sent idle).
                tag = try await NFCTag.connect(to: target, on: reader)
            } catch {
                throw map(error)
            }
            let result = try await body(tag, reader)
            await reader.close()
            return result
        } catch {
            await reader.close()
            throw error
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

    /// A tag error as a command error with its exit status.
    static func map(_ error: NFCTagError) -> CommandError {
        CommandError(error.description, exitCode: exitCode(error.code))
    }
}
