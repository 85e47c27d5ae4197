import CommandLineKit
import NFCKit

/// `nfctool devices [--json] [--verbose]`: the readers libnfc and pcscd find, and libnfc's version.
struct DevicesCommand: ToolCommand {
    static let json = CommandOption.flag(
        "json", help: "Print the readers as JSON: libnfc's version and each reader's name and connection string.")
    static let verbose = CommandOption.flag(
        "verbose", short: "v", help: "Let libnfc's own log, down to debug messages, through to standard error.")

    static let configuration = CommandConfiguration(
        name: "devices",
        abstract: "List the NFC readers libnfc and pcscd find.",
        discussion: """
            Shows each reader's name and the connection string that selects it, and the version of \
            libnfc in use. Exits 3 when it finds no reader (the list, empty, is still printed). \
            Without --verbose nothing from libnfc reaches standard error, unless LIBNFC_LOG_LEVEL \
            is set.
            """,
        options: [json, verbose]
    )

    /// Whether to print JSON rather than text.
    let printsJSON: Bool
    /// Whether libnfc's debug log reaches standard error.
    let isVerbose: Bool

    init(_ arguments: ParsedArguments) {
        printsJSON = arguments.contains(Self.json)
        isVerbose = arguments.contains(Self.verbose)
    }

    func run(_ context: CommandContext) async throws(CommandError) {
        await NFCReaderDiscovery.setVerboseLogging(isVerbose)
        let devices: [NFCReaderDescription]
        do {
            devices = try await NFCReaderDiscovery.listReaders()
        } catch {
            throw .failure(error.reason)
        }
        let report = DevicesReport(libnfcVersion: NFCReaderDiscovery.libnfcVersion, devices: devices)
        context.io.write(printsJSON ? report.json : report.text)
        if devices.isEmpty {
            throw CommandError("no NFC reader found", exitCode: .noReader)
        }
    }
}
