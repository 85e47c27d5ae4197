import Foundation
import NFCTags
import NFCTestSupport
import Provisioning
import Testing

/// The failure cause kept per attempt (issue 27): derived from the typed tag errors in one
/// place, stored in both ledgers (read back by sqlite3 and psql), exported, migrated into
/// ledgers made before it, and summed up by ``RunAnalysis``.
@Suite("Failure causes and the run analysis, on SQLite and on PostgreSQL", .tags(.postgres), .serialized, .timeLimit(.minutes(3)))
struct LedgerCauseTests {
    static let lost = NFCReaderDeviceError(.tagLost, "gone")
    static let rfError = NFCReaderDeviceError(.rfError, "CRC")

    @Test("each tag error has its cause: reader failures by the exchange (write, read, other) and tag loss; the rest by code", arguments: [
        (NFCTagError(rfError, during: "WRITE page 4", exchange: .write), FailureCause.rfWrite),
        (NFCTagError(rfError, during: "FAST_READ pages 4–8", exchange: .read), .rfRead),
        (NFCTagError(NFCReaderDeviceError(.timeout, "no answer"), during: "READ page 4", exchange: .read), .rfRead),
        (NFCTagError(rfError, during: "PWD_AUTH"), .rf),
        (NFCTagError(lost, during: "WRITE page 4", exchange: .write), .tagLost),
        (NFCTagError(NFCReaderDeviceError(.nak, "NAK", detail: 0), during: "WRITE page 4", exchange: .write), .tagResponse),
        (NFCTagError(.verificationFailed, "differs"), .verifyMismatch),
        (NFCTagError(.capacityExceeded, "too big"), .capacity),
        (NFCTagError(.readOnly, "read-only"), .locked),
        (NFCTagError(.passwordRequired, "protected"), .password),
        (NFCTagError(.authenticationFailed, "wrong"), .password),
        (NFCTagError(.notNDEFFormatted, "no CC"), .notFormatted),
        (NFCTagError(.malformedTag, "bad TLV"), .malformedTag),
        (NFCTagError(.notSupported, "no mirror"), .unsupported),
        (NFCTagError(.alreadyFormatted, "holds data"), .holdsData),
        (NFCTagError(.invalidMessage, "bad"), .data),
    ])
    func causeOfTagError(error: NFCTagError, cause: FailureCause) {
        #expect(FailureCause(error) == cause)
    }

    @Test("every tag error code maps to a cause other than 'other', and every cause code is short, lower-case and unique")
    func causesAreStable() {
        for code in NFCTagError.Code.allCases {
            #expect(FailureCause(NFCTagError(code, "x")) != .other, "\(code)")
        }
        let codes = FailureCause.allCases.map(\.rawValue)
        #expect(Set(codes).count == codes.count)
        #expect(codes.allSatisfy { $0.count <= 16 && $0.allSatisfy { $0.isLowercase || $0 == "-" } })
        #expect(FailureCause(refusal: .counterfeit) == .counterfeit && FailureCause(refusal: .failed) == .notGenuine)
    }

    static func attempt(
        _ session: Int64, _ uid: String, status: String = "done", cause: FailureCause? = nil, reader: String = "sim:a", model: String = "NTAG215",
        station: String? = nil, run: String? = nil, at second: Int, locked: Bool = false, protected: Bool = false
    ) -> LedgerAttempt {
        LedgerAttempt(
            run: session, uid: uid, model: model, summary: "URI https://ex.io/\(uid)", bytes: 24, verified: status == "done", locked: locked,
            protected: protected, error: status == "done" ? nil : "failed [x]", cause: cause?.rawValue,
            started: String(format: "2026-03-01T10:%02d:%02d.000Z", second / 60, second % 60),
            finished: String(format: "2026-03-01T10:%02d:%02d.500Z", second / 60, second % 60),
            reader: reader, status: status, runName: run, station: station, key: run == nil ? nil : UUID().uuidString)
    }

    @Test("causes are stored, read back by the independent client, exported (CSV and JSONL), and analysed alike on both ledgers", arguments: LedgerKind.available)
    func storedAndAnalysed(kind: LedgerKind) async throws {
        let fixture = try await LedgerFixture.make(kind)
        defer { fixture.remove() }
        do {
            let ledger = try fixture.open()
            let s = try ledger.startRun(name: "w9", station: "east", template: "https://ex.io/{uid}", manifest: nil, readers: ["sim:a"])
            try ledger.record(Self.attempt(s, "04A1", station: "east", run: "w9", at: 0, locked: true))
            try ledger.record(Self.attempt(s, "04A2", status: "failed", cause: .rfWrite, station: "east", run: "w9", at: 10))
            try ledger.record(Self.attempt(s, "04A3", status: "failed", cause: .rfWrite, reader: "sim:b", station: "west", run: "w9", at: 20))
            try ledger.record(Self.attempt(s, "04A4", status: "failed", cause: .verifyMismatch, reader: "sim:b", model: "NTAG213", station: "west", run: "w9", at: 30))
            try ledger.record(Self.attempt(s, "04A5", status: "counterfeit", cause: .counterfeit, reader: "sim:b", station: "west", run: "w9", at: 40))
            try ledger.record(Self.attempt(s, "04A6", reader: "sim:b", model: "NTAG213", station: "west", run: "w9", at: 59, protected: true))
        }
        let causes = kind == .sqlite
            ? "SELECT group_concat(uid || '=' || COALESCE(cause, '-'), ',') FROM (SELECT uid, cause FROM attempts ORDER BY id)"
            : "SELECT string_agg(uid || '=' || COALESCE(cause, '-'), ',' ORDER BY id) FROM attempts"
        #expect(try await fixture.read(causes)
            == "04A1=-,04A2=rf-write,04A3=rf-write,04A4=verify-mismatch,04A5=counterfeit,04A6=-")
        let ledger = try fixture.open()
        let analysis = try ledger.analysis(run: "w9")
        #expect(analysis.failuresByCause.map { "\($0.cause)=\($0.count)" } == ["rf-write=2", "counterfeit=1", "verify-mismatch=1"])
        #expect(analysis.done == 2 && analysis.failed == 3 && analysis.counterfeit == 1 && analysis.locked == 1 && analysis.protected == 1)
        #expect(analysis.firstStart == "2026-03-01T10:00:00.000Z" && analysis.lastFinish == "2026-03-01T10:00:59.500Z")
        #expect(analysis.seconds == 59.5)
        #expect(abs((analysis.tagsPerMinute ?? 0) - 2 / 59.5 * 60) < 1e-9)
        #expect(analysis.readers.map { "\($0.name):\($0.attempts)/\($0.done)/\($0.failed)/\($0.counterfeit)" } == ["sim:a:2/1/1/0", "sim:b:4/1/2/1"])
        #expect(analysis.models.map { "\($0.name):\($0.attempts)" } == ["NTAG213:2", "NTAG215:4"])
        #expect(analysis.stations.map { "\($0.name):\($0.done)/\($0.failed)" } == ["east:1/1", "west:1/2"])
        #expect(try ledger.stats(run: "w9", analysed: true).analysis == analysis)
        let csv = try ledger.exportCSV(run: "w9").split(separator: "\n", omittingEmptySubsequences: false)
        #expect(csv[0] == "id,run,uid,model,row,counter,summary,bytes,verified,locked,protected,error,started,finished,reader,status,cause,station,superseded_station,superseded_uid,resolution")
        #expect(csv[2].hasSuffix(",failed,rf-write,east,,,") && csv[1].hasSuffix(",done,,east,,,"))
        let jsonl = try ledger.exportJSONL(run: "w9").split(separator: "\n")
        #expect(jsonl[3].contains("\"cause\":\"verify-mismatch\"") && !jsonl[0].contains("\"cause\""))
    }

    @Test("a SQLite ledger of schema version 4 is migrated to 6: the cause column added, old attempts kept with no cause ('unrecorded')")
    func sqliteMigration() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("v4.db").path
        // A ledger of version 4 as this code wrote it, minus the newest column: made by the
        // code (version 5), then taken back to version 4 by sqlite3 itself.
        do {
            let ledger = try Ledger(path: path)
            let s = try ledger.startRun(template: "t", manifest: nil, readers: ["sim:a"])
            try ledger.record(Self.attempt(s, "04B1", status: "failed", at: 1))
        }
        _ = try await runPython("""
            import sqlite3, sys
            db = sqlite3.connect(sys.argv[1])
            db.execute("ALTER TABLE attempts DROP COLUMN cause")
            # Version 6's columns (fencing) go too.
            db.execute("DROP INDEX attempts_run_done_counter")
            for column in ["epoch", "superseded_station", "superseded_uid", "resolution"]:
                db.execute(f"ALTER TABLE attempts DROP COLUMN {column}")
            db.execute("ALTER TABLE run_rows DROP COLUMN epoch")
            db.execute("PRAGMA user_version = 4")
            db.commit()
            """, [path])
        do {
            let ledger = try Ledger(path: path)
            try ledger.record(Self.attempt(1, "04B2", status: "failed", cause: .capacity, at: 2))
            #expect(try ledger.analysis().failuresByCause.map(\.cause) == ["capacity", "unrecorded"])
        }
        let stored = try await runPython("""
            import sqlite3, sys
            db = sqlite3.connect(sys.argv[1])
            print(db.execute("PRAGMA user_version").fetchone()[0], db.execute("SELECT uid, cause FROM attempts ORDER BY id").fetchall())
            """, [path])
        #expect(stored.standardOutput == "6 [('04B1', None), ('04B2', 'capacity')]\n")
    }

    @Test("a PostgreSQL ledger of schema version 3 is migrated to 5: the cause column added, old attempts kept", .enabled(if: LedgerKind.available.contains(.postgresql)))
    func postgresqlMigration() async throws {
        let fixture = try await LedgerFixture.make(.postgresql)
        defer { fixture.remove() }
        do {
            let ledger = try fixture.open()
            let s = try ledger.startRun(template: "t", manifest: nil, readers: ["sim:a"])
            try ledger.record(Self.attempt(s, "04B1", status: "failed", at: 1))
        }
        // Back to version 3 by psql: the column gone, the version said.
        let server = try LedgerFixture.server()
        _ = try await runBlocking { [database = fixture.database] in
            try server.psql(
                """
                ALTER TABLE attempts DROP COLUMN cause; DROP INDEX attempts_run_done_counter;
                ALTER TABLE attempts DROP COLUMN epoch, DROP COLUMN superseded_station, DROP COLUMN superseded_uid, DROP COLUMN resolution;
                ALTER TABLE run_rows DROP COLUMN epoch; UPDATE nfctool_schema SET version = 3;
                """, database: database)
        }
        do {
            let ledger = try fixture.open()
            try ledger.record(Self.attempt(1, "04B2", status: "failed", cause: .tagLost, at: 2))
        }
        _ = try fixture.open()
        #expect(try await fixture.read("SELECT max(version) FROM nfctool_schema") == "5")
        #expect(try await fixture.read("SELECT string_agg(uid || '=' || COALESCE(cause, '-'), ',' ORDER BY id) FROM attempts") == "04B1=-,04B2=tag-lost")
    }
}
