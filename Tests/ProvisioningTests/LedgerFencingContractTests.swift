import Foundation
import NFCTestSupport
import Provisioning
import Testing

/// Fencing (issue 32), on both ledgers: every row claim raises the row's lease epoch, and a tag
/// is recorded done only while its row keeps its claim's epoch; a verified tag whose row was
/// claimed again meanwhile is recorded `void`, naming the station and UID that hold the row.
/// A counter value is on at most one done tag. Read back with an independent client.
@Suite("Ledger fencing, on SQLite and on PostgreSQL", .tags(.postgres), .serialized, .timeLimit(.minutes(3)))
struct LedgerFencingContractTests {
    typealias Contract = LedgerContractTests

    static func attempt(_ session: Int64, _ uid: String, station: String, row: Int? = nil, counter: Int? = nil, epoch: Int64?,
                        status: String = "done", key: String = UUID().uuidString) -> LedgerAttempt {
        var attempt = Contract.attempt(session, uid, run: "r", station: station, row: row, counter: counter, status: status, key: key)
        attempt.epoch = epoch
        return attempt
    }

    /// Claims a row of run `r` for `uid` at `station`, waiting (deadline 20 s) for one whose lease ran out.
    static func claimWaiting(_ ledger: any ProvisioningLedger, uid: String, station: String, lease: Duration = .seconds(60)) async throws -> (row: Int, epoch: Int64)? {
        let deadline = ContinuousClock.now + .seconds(20)
        while ContinuousClock.now < deadline {
            if case .claimed(let row, let epoch) = try ledger.claimRow(run: "r", uid: uid, station: station, lease: lease) { return (row.index, epoch) }
            try await Task.sleep(for: .milliseconds(20))
        }
        return nil
    }

    @Test("a row claimed again after its lease ran out is done once: the new claim's tag is done, the old claim's verified tag is void, in either order", arguments: LedgerKind.available)
    func reclaimedRowIsDoneOnce(kind: LedgerKind) async throws {
        for winnerFirst in [true, false] {
            let fixture = try await LedgerFixture.make(kind)
            defer { fixture.remove() }
            let a = try fixture.open(), b = try fixture.open()
            _ = try a.loadManifest(run: "r", rows: Contract.rows(1), source: "m.csv")
            let sa = try a.startRun(name: "r", station: "A", template: nil, manifest: nil, readers: [])
            let sb = try b.startRun(name: "r", station: "B", template: nil, manifest: nil, readers: [])
            guard case .claimed(let row, let first) = try a.claimRow(run: "r", uid: "04A1", station: "A", lease: .milliseconds(50)),
                  let (again, second) = try await Self.claimWaiting(b, uid: "04B1", station: "B") else {
                Issue.record("no claims")
                return
            }
            #expect(again == row.index && second > first)
            // The old claim cannot be renewed; the new one can.
            #expect(try !a.renewLease(run: "r", row: row.index, station: "A", epoch: first, lease: .seconds(60)))
            #expect(try b.renewLease(run: "r", row: row.index, station: "B", epoch: second, lease: .seconds(60)))
            let loser = Self.attempt(sa, "04A1", station: "A", row: row.index, epoch: first, key: "loser")
            let winner = Self.attempt(sb, "04B1", station: "B", row: row.index, epoch: second)
            var void: RecordedAttempt
            if winnerFirst {
                #expect(try b.recordOutcome(winner).status == "done")
                void = try a.recordOutcome(loser)
            } else {
                void = try a.recordOutcome(loser)
                #expect(try b.recordOutcome(winner).status == "done")
            }
            #expect(void.isVoid && void.supersededStation == "B" && void.supersededUID == "04B1", "\(void)")
            // Replayed (a journal recorded twice): the same void, not a second attempt.
            #expect(try a.recordOutcome(loser) == void)
            #expect(try await fixture.read("SELECT COUNT(*) FROM attempts WHERE row = 1 AND status = 'done'") == "1")
            #expect(try await fixture.read("SELECT uid || ' ' || station || ' ' || superseded_station || ' ' || superseded_uid FROM attempts WHERE status = 'void'")
                == "04A1 A B 04B1")
            #expect(try await fixture.read("SELECT station || ' ' || uid || ' ' || status FROM run_rows WHERE row = 1") == "B 04B1 done")
            // Not complete while the void tag is unaccounted for; resolved, it is.
            #expect(try a.progress(run: "r").voidOpen == 1)
            let stats = try a.stats(run: "r")
            #expect(stats.void == 1 && stats.voidOpen == 1 && stats.done == 1)
            let csv = try a.exportCSV(run: "r")
            #expect(csv.contains(",void,") && csv.hasPrefix("id,") && csv.split(separator: "\n")[0].hasSuffix(",station,superseded_station,superseded_uid,resolution"))
            #expect(try a.resolveVoid(run: "r", uid: "04a1", as: .discarded).map(\.resolution) == ["discarded"])
            #expect(try a.resolveVoid(run: "r", uid: "04A1", as: .erased).isEmpty)
            #expect(try a.progress(run: "r").voidOpen == 0 && a.stats(run: "r").voidOpen == 0)
            #expect(try await fixture.read("SELECT resolution FROM attempts WHERE status = 'void'") == "discarded")
        }
    }

    @Test("fencing is by epoch, not by clock: a claim whose lease ran out but that nobody claimed again is still done", arguments: LedgerKind.available)
    func expiredButUnclaimedIsDone(kind: LedgerKind) async throws {
        let fixture = try await LedgerFixture.make(kind)
        defer { fixture.remove() }
        let a = try fixture.open()
        _ = try a.loadManifest(run: "r", rows: Contract.rows(2), source: "m.csv")
        let sa = try a.startRun(name: "r", station: "A", template: nil, manifest: nil, readers: [])
        guard case .claimed(let row, let epoch) = try a.claimRow(run: "r", uid: "04A1", station: "A", lease: .milliseconds(1)) else {
            Issue.record("no claim")
            return
        }
        // The lease has run out (the server's clock says so) before the record.
        let deadline = ContinuousClock.now + .seconds(20)
        while try a.progress(run: "r").rowsHeld > 0, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        #expect(try a.recordOutcome(Self.attempt(sa, "04A1", station: "A", row: row.index, epoch: epoch)).status == "done")
        #expect(try await fixture.read("SELECT status FROM run_rows WHERE row = \(row.index)") == "done")
    }

    @Test("a failed attempt of an old claim does not give back the row the new claim holds", arguments: LedgerKind.available)
    func oldFailureKeepsNewClaim(kind: LedgerKind) async throws {
        let fixture = try await LedgerFixture.make(kind)
        defer { fixture.remove() }
        let a = try fixture.open(), b = try fixture.open()
        _ = try a.loadManifest(run: "r", rows: Contract.rows(1), source: "m.csv")
        let sa = try a.startRun(name: "r", station: "A", template: nil, manifest: nil, readers: [])
        guard case .claimed(let row, let first) = try a.claimRow(run: "r", uid: "04A1", station: "A", lease: .milliseconds(50)) else {
            Issue.record("no claim")
            return
        }
        // The same UID claimed again at the same station (a restart) is a new claim, a new epoch.
        guard let (_, second) = try await Self.claimWaiting(b, uid: "04A1", station: "A") else {
            Issue.record("no second claim")
            return
        }
        #expect(try a.recordOutcome(Self.attempt(sa, "04A1", station: "A", row: row.index, epoch: first, status: "failed")).status == "failed")
        #expect(try await fixture.read("SELECT status || ' ' || epoch FROM run_rows WHERE row = 1") == "held \(second)")
    }

    @Test("a counter value is on at most one done tag: a tag with a counter not its own, or one already on a done tag, is void", arguments: LedgerKind.available)
    func counterOnOneDoneTag(kind: LedgerKind) async throws {
        let fixture = try await LedgerFixture.make(kind)
        defer { fixture.remove() }
        let a = try fixture.open()
        let sa = try a.startRun(name: "r", station: "A", template: "https://ex.io/{n}", manifest: nil, readers: [])
        guard case .claimed(let n) = try a.claimCounter(run: "r", uid: "04A1", station: "A", start: 1) else {
            Issue.record("no counter")
            return
        }
        let stranger = try a.recordOutcome(Self.attempt(sa, "04C1", station: "C", counter: n, epoch: nil))
        #expect(stranger.isVoid && stranger.supersededUID == "04A1" && stranger.supersededStation == "A", "\(stranger)")
        #expect(try a.recordOutcome(Self.attempt(sa, "04A1", station: "A", counter: n, epoch: nil)).status == "done")
        let twice = try a.recordOutcome(Self.attempt(sa, "04A1", station: "A", counter: n, epoch: nil))
        #expect(twice.isVoid, "\(twice)")
        #expect(try await fixture.read("SELECT COUNT(*) FROM attempts WHERE counter = \(n) AND status = 'done'") == "1")
    }
}
