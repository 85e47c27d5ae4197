import NFCTags
@testable import Provisioning
import Testing

/// `verify --ledger`'s comparison of a tag's state with the ledger's attempts, one rule per test:
/// which attempt counts, what each check compares, a mirror's characters against the recorded
/// placeholder. (End to end, with real batch runs: EndToEndTests/VerifyLedgerEndToEndTests.)
@Suite("LedgerComparison: a tag against the ledger's record", .timeLimit(.minutes(1)))
struct LedgerComparisonTests {
    static func attempt(_ id: Int64, uid: String = "0453494D000001", summary: String = "URI https://ex.io/t/1", bytes: Int = 20,
                        locked: Bool = false, protected: Bool = false, status: String = "done") -> LedgerAttempt {
        var attempt = LedgerAttempt(
            run: 1, uid: uid, model: "NTAG215", summary: summary, bytes: bytes, verified: status == "done", locked: locked,
            protected: protected, started: "t0", finished: "t1", reader: "sim:ntag215", status: status)
        attempt.id = id
        return attempt
    }

    static func state(summary: String = "URI https://ex.io/t/1", bytes: Int = 20, lock: ProvisionedTagState.Lock = .notLocked,
                      protection: ProvisionedTagState.Protection = .none, mirror: NTAGMirror? = nil) -> ProvisionedTagState {
        ProvisionedTagState(uid: "0453494D000001", model: "NTAG215", message: .message(summary: summary, bytes: bytes), lock: lock,
                            protection: protection, mirror: mirror)
    }

    @Test("the latest done attempt of the UID is the one compared; failed and later failed ones are not")
    func latestDone() {
        let attempts = [Self.attempt(1, summary: "URI old"), Self.attempt(2), Self.attempt(3, summary: "not written", status: "failed"),
                        Self.attempt(4, uid: "0453494D000002", summary: "URI other")]
        let comparison = LedgerComparison(Self.state(), attempts: attempts)
        #expect(comparison.attempt?.id == 2)
        #expect(comparison.matches)
        #expect(comparison.checks.map(\.check) == ["model", "message", "bytes", "lock", "password"])
    }

    @Test("a UID not done: one failed check saying whether the ledger has it at all, only failed, or counterfeit", arguments: [
        ([], "not in the ledger"),
        (["failed", "failed"], "recorded only as failed (2 attempts), never done"),
        (["counterfeit"], "recorded as counterfeit (refused by batch --require-genuine), never done"),
    ])
    func notDone(statuses: [String], found: String) {
        let attempts = statuses.enumerated().map { Self.attempt(Int64($0.offset + 1), status: $0.element) }
        let comparison = LedgerComparison(Self.state(), attempts: attempts)
        #expect(!comparison.matches)
        #expect(comparison.attempt == nil)
        #expect(comparison.checks == [LedgerComparison.Check(check: "ledger", expected: "a done attempt", found: found, ok: false)])
    }

    @Test("lock: recorded locked needs locked for good; a partly locked tag matches neither", arguments: [
        (true, ProvisionedTagState.Lock.locked, true), (true, .notLocked, false), (true, .partly(["CFGLCK is clear"]), false),
        (false, .notLocked, true), (false, .locked, false), (false, .partly(["x"]), false), (false, .unknown("tag left"), false),
    ])
    func lock(recorded: Bool, lock: ProvisionedTagState.Lock, ok: Bool) {
        let comparison = LedgerComparison(Self.state(lock: lock), attempts: [Self.attempt(1, locked: recorded)])
        #expect(comparison.checks.first { $0.check == "lock" }?.ok == ok)
    }

    @Test("password: recorded protected needs a protection found; unknown never matches", arguments: [
        (true, ProvisionedTagState.Protection.protected("write-protected from page 4"), true), (true, .none, false),
        (false, .none, true), (false, .protected("read-protected"), false), (false, .unknown("NAK"), false),
    ])
    func password(recorded: Bool, protection: ProvisionedTagState.Protection, ok: Bool) {
        let comparison = LedgerComparison(Self.state(protection: protection), attempts: [Self.attempt(1, protected: recorded)])
        #expect(comparison.checks.first { $0.check == "password" }?.ok == ok)
    }

    @Test("a mirror's characters match the recorded placeholder; anything else that differs does not")
    func mirror() {
        let recorded = "URI https://ex.io/m?u=00000000000000x000000"
        #expect(LedgerComparison.summaryMatches(recorded: recorded, found: "URI https://ex.io/m?u=0453494D000001x00002A", mirror: .uidAndCounter))
        // Without the mirror on, the same characters are a difference.
        #expect(!LedgerComparison.summaryMatches(recorded: recorded, found: "URI https://ex.io/m?u=0453494D000001x00002A", mirror: nil))
        // A difference outside the placeholder, lower-case hex, or the separator replaced.
        #expect(!LedgerComparison.summaryMatches(recorded: recorded, found: "URI https://ex.io/n?u=0453494D000001x00002A", mirror: .uidAndCounter))
        #expect(!LedgerComparison.summaryMatches(recorded: recorded, found: "URI https://ex.io/m?u=0453494d000001x00002A", mirror: .uidAndCounter))
        #expect(!LedgerComparison.summaryMatches(recorded: recorded, found: "URI https://ex.io/m?u=0453494D000001y00002A", mirror: .uidAndCounter))
        // A UID mirror at the end of the summary; a found summary of another length.
        #expect(LedgerComparison.summaryMatches(recorded: "URI a?u=00000000000000", found: "URI a?u=0453494D000001", mirror: .uid))
        #expect(!LedgerComparison.summaryMatches(recorded: "URI a?u=00000000000000", found: "URI a?u=0453494D0000011", mirror: .uid))
    }

    @Test("the summary of --count: matched counted, each mismatch listed with its differences only")
    func sample() {
        var summary = LedgerSampleSummary()
        summary.add(LedgerComparison(Self.state(), attempts: [Self.attempt(1)]))
        summary.add(LedgerComparison(Self.state(lock: .locked), attempts: [Self.attempt(2)]))
        #expect(summary.checked == 2)
        #expect(summary.matched == 1)
        #expect(summary.mismatched.map { $0.differences.map(\.check) } == [["lock"]])
    }
}
