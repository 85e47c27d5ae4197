import Foundation
import Testing
import TagCommandCounts

/// The "Commands per operation" table of docs/benchmarks.md holds what the tests count
/// themselves: each operation run on a fresh virtual tag through a tracing reader.
@Suite("docs/benchmarks.md: commands per operation come from the traces", .timeLimit(.minutes(5)))
struct CommandCountDocsTests {
    static let benchmarksPath = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("docs/benchmarks.md")

    @Test("every row of the commands-per-operation table is this run's count (run Scripts/bench-commands when it changes)")
    func table() async throws {
        let docs = try String(contentsOf: Self.benchmarksPath, encoding: .utf8)
        let rows = try await measureCommandCounts()
        #expect(rows.count >= 25)
        for row in rows {
            let documented = docs.split(separator: "\n").first { $0.hasPrefix("| \(row.platform) | \(row.operation) |") }
            #expect(documented.map(String.init) == row.markdown,
                    "docs/benchmarks.md disagrees for \(row.platform) / \(row.operation): the trace counts \(row.commands)")
        }
        #expect(docs.contains(commandCountTable(rows) + "\n"), "the table in docs/benchmarks.md differs (rows added, removed or reordered)")
    }
}
