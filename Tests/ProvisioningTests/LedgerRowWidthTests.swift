import Testing
@testable import Provisioning

/// A PostgreSQL server says how wide its rows are: a hostile or broken one answering fewer
/// columns than a statement asked for must not trap the ledger code that reads them (indexing
/// past a row's end did), whichever statement it answers.
@Suite("Ledger rows narrower than asked are read as NULLs, never past their end", .timeLimit(.minutes(1)))
struct LedgerRowWidthTests {
    @Test("an attempt from a row of 0 or 1 columns: the missing columns are empty, no trap")
    func attemptFromShortRow() {
        #expect(Ledger.attempt([]).uid == "")
        let one = Ledger.attempt([.integer(7)])
        #expect(one.id == 7 && one.status == "" && one.key == nil)
    }

    @Test("stored run rows of one column differ from the manifest's rows: a ledger error, no trap")
    func runRowsFromShortRows() {
        let row = ManifestRow(index: 1, line: 2, fields: [(name: "url", value: "https://ex.io/1")])
        #expect(throws: LedgerError.self) { try RunRows.compare(stored: [[.integer(1)]], with: [row], run: "r") }
    }

    @Test("station progress from rows of one column: the station named, nothing counted")
    func stationsFromShortRows() {
        let progress = RunRows.progress(rows: [], tags: [.integer(3)], stations: [[.text("a")], []])
        #expect(progress.tagsDone == 3)
        #expect(progress.stations.map(\.station) == ["a", ""])
        #expect(progress.stations.allSatisfy { $0.done == 0 && $0.failed == 0 })
    }

    @Test("column subscript: in range the value, past the end NULL")
    func columnSubscript() {
        let row: [SQLValue] = [.text("claimed")]
        #expect(row[column: 0] == .text("claimed"))
        #expect(row[column: 3] == .null && row[column: -1] == .null)
    }
}
