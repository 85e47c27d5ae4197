import CommandLineKit
import Foundation
import NFCCore
import Provisioning

/// `nfctool ledger`: reads a batch ledger.
struct LedgerCommand: CommandGroup {
    static let configuration = CommandConfiguration(
        name: "ledger",
        abstract: "Export or summarise a batch ledger.",
        discussion: "The ledger is the SQLite file 'nfctool batch' records every attempt in. See docs/batch.md.",
        subcommands: [LedgerExportCommand.self, LedgerStatsCommand.self]
    )

    /// The ledger file argument both subcommands take.
    static let file = CommandArgument("ledger", help: "The ledger file.")

    /// Opens an existing ledger (a missing file is a usage error, not a new ledger).
    static func open(_ arguments: ParsedArguments) throws(CommandError) -> Ledger {
        let path = arguments.value(of: file) ?? ""
        guard FileManager.default.fileExists(atPath: path) else { throw .usage("no such ledger: '\(path)'") }
        do { return try Ledger(path: path) } catch { throw .failure("\(error)") }
    }
}

/// `nfctool ledger export`: every attempt as CSV or JSON lines.
struct LedgerExportCommand: ToolCommand {
    static let csv = CommandOption.flag("csv", help: "CSV with a header row (the default).")
    static let jsonl = CommandOption.flag("jsonl", help: "One JSON object per attempt.")
    static let configuration = CommandConfiguration(
        name: "export",
        abstract: "Print every attempt of a ledger as CSV or JSON lines.",
        discussion: """
            Columns: id, run, uid, model, row, counter, summary, bytes, verified, locked, \
            protected, error, started, finished, reader, status (done or failed).

            Examples:
              nfctool ledger export run1.db > run1.csv
              nfctool ledger export --jsonl run1.db | jq .uid
            """,
        options: [csv, jsonl],
        arguments: [LedgerCommand.file]
    )

    let arguments: ParsedArguments
    init(_ arguments: ParsedArguments) throws(CommandError) {
        if arguments.contains(Self.csv) && arguments.contains(Self.jsonl) { throw .usage("--csv and --jsonl cannot be used together") }
        self.arguments = arguments
    }

    func run(_ context: CommandContext) async throws(CommandError) {
        let ledger = try LedgerCommand.open(arguments)
        do {
            if arguments.contains(Self.jsonl) {
                context.io.write(TerminalSafeText.escapingInJSON(try ledger.exportJSONL()))
            } else if context.io.isStandardOutputTerminal {
                context.io.write(try ledger.exportCSV())  // on a screen: terminal-safe
            } else {
                // Into a file or a pipe: the exact values (a right-to-left mark in a name stays one).
                context.io.write(Array(try ledger.exportCSV().utf8), to: .standardOutput)
            }
        } catch {
            throw .failure("\(error)")
        }
    }
}

/// `nfctool ledger stats`: totals of a ledger.
struct LedgerStatsCommand: ToolCommand {
    static let configuration = CommandConfiguration(
        name: "stats",
        abstract: "Show a ledger's totals: runs, attempts, tags done and failed, next counter.",
        discussion: """
            Examples:
              nfctool ledger stats run1.db
              nfctool ledger stats --json run1.db
            """,
        options: [TagCommandSupport.json],
        arguments: [LedgerCommand.file]
    )

    let arguments: ParsedArguments
    init(_ arguments: ParsedArguments) throws(CommandError) { self.arguments = arguments }

    func run(_ context: CommandContext) async throws(CommandError) {
        let ledger = try LedgerCommand.open(arguments)
        let stats: LedgerStats
        do { stats = try ledger.stats() } catch { throw .failure("\(error)") }
        if arguments.contains(TagCommandSupport.json) {
            context.io.write(try toolJSON(stats))
        } else {
            context.io.printLine("runs:         \(stats.runs)")
            context.io.printLine("attempts:     \(stats.attempts)")
            context.io.printLine("tags done:    \(stats.done)")
            context.io.printLine("failed:       \(stats.failed)")
            context.io.printLine("locked:       \(stats.locked)")
            context.io.printLine("next counter: \(stats.nextCounter.map(String.init) ?? "none yet")")
        }
    }
}
