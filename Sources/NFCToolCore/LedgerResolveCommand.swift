import CommandLineKit
import Foundation
import NFCCore
import Provisioning

/// `nfctool ledger resolve`: records how a void tag was accounted for (discarded or erased).
struct LedgerResolveCommand: ToolCommand {
    static let uid = CommandOption.option("uid", valueName: "hex", help: "The void tag's UID (as the station and 'ledger export' name it).")
    static let discarded = CommandOption.flag("discarded", help: "The tag was thrown away.")
    static let erased = CommandOption.flag("erased", help: "The tag was erased ('nfctool erase'): it holds no message.")
    static let configuration = CommandConfiguration(
        name: "resolve",
        abstract: "Record that a void tag was discarded or erased, so that its run can be complete.",
        discussion: """
            A tag is void when a station wrote and verified it while cut off from the ledger \
            past its lease, and its manifest row (or counter) went to another station \
            meanwhile: the other station's tag holds the row, this one a duplicate. The \
            station names it ("VOID tag 04…: row 17 went to station B"); 'ledger export' \
            shows it with status void. A run is not complete while a void tag is not \
            accounted for: discard the tag or erase it ('nfctool erase'), then record which \
            here. Marks every void attempt of the UID not yet accounted for (in the run, with \
            --run); exit 1 when there is none. --json prints the attempts marked.

            Examples:
              nfctool ledger resolve --ledger postgresql://line@db/prov --run w26 --uid 04A1B2C3D4E5F6 --discarded
              nfctool ledger resolve run.db --uid 04A1B2C3D4E5F6 --erased --json
            """,
        options: [uid, discarded, erased, TagCommandSupport.json, LedgerCommand.ledgerOption, LedgerCommand.run],
        arguments: [LedgerCommand.file]
    )

    let arguments: ParsedArguments
    let tagUID: String
    let resolution: VoidResolution

    init(_ arguments: ParsedArguments) throws(CommandError) {
        guard let uid = arguments.value(of: Self.uid), !uid.isEmpty else { throw .usage("ledger resolve needs --uid HEX (the void tag's UID)") }
        guard uid.count % 2 == 0, uid.allSatisfy(\.isHexDigit) else { throw .usage("--uid: '\(uid)' is not a UID in hex (e.g. 04A1B2C3D4E5F6)") }
        switch (arguments.contains(Self.discarded), arguments.contains(Self.erased)) {
        case (true, false): resolution = .discarded
        case (false, true): resolution = .erased
        case (true, true): throw .usage("give --discarded or --erased, not both")
        case (false, false): throw .usage("ledger resolve needs --discarded or --erased (what became of the tag)")
        }
        try LedgerCommand.checkRunName(arguments.value(of: LedgerCommand.run))
        tagUID = uid.uppercased()
        self.arguments = arguments
    }

    func run(_ context: CommandContext) async throws(CommandError) {
        let run = arguments.value(of: LedgerCommand.run)
        let (uid, resolution) = (tagUID, resolution)
        // Opening and writing block: on the ledgers' thread, the ledger opened for writing.
        let marked = try await LedgerCommand.reading(arguments, readOnly: false) { ledger throws(CommandError) -> [LedgerAttempt] in
            try LedgerCommand.requireRun(run, in: ledger)
            do { return try ledger.resolveVoid(run: run, uid: uid, as: resolution) } catch { throw .ledger(error) }
        }
        guard !marked.isEmpty else {
            throw CommandError("no void tag \(uid) left to account for\(run.map { " in run '\(TerminalSafeText.escaping($0, newlines: .escape))'" } ?? "")", exitCode: .failure)
        }
        if arguments.contains(TagCommandSupport.json) {
            context.io.write(try toolJSON(marked))
        } else {
            for attempt in marked {
                let what = attempt.row.map { "row \($0)" } ?? attempt.counter.map { "counter \($0)" } ?? "attempt \(attempt.id)"
                context.io.printLine(
                    "void tag \(uid) (\(what)\(attempt.runName.map { " of run '\(TerminalSafeText.escaping($0, newlines: .escape))'" } ?? "")): recorded as \(resolution.rawValue)")
            }
        }
    }
}
