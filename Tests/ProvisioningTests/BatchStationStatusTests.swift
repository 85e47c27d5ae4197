import Foundation
import NFCTags
import Provisioning
import Testing

/// The station line's model: figures from events, rate and ETA for a given elapsed time, the
/// line cut to the terminal's width, the summary table, and the `--event-log` records.
@Suite("Batch station line", .timeLimit(.minutes(1)))
struct BatchStationStatusTests {
    static let reader = "sim:ntag215"

    /// A status after `done` tags done and `failed` lost, the first tag found at 10 s.
    static func status(total: Int?, done: Int, failed: Int = 0, baseDone: Int = 0) -> BatchStationStatus {
        var status = BatchStationStatus(total: total, baseDone: baseDone)
        status.apply(.waiting(reader: reader), elapsed: .seconds(1))
        status.apply(.tagFound(reader: reader, uid: "04A1"), elapsed: .seconds(10))
        for _ in 0..<done { status.apply(.done(reader: reader, uid: "04A1", summary: "URL"), elapsed: .seconds(20)) }
        for _ in 0..<failed {
            status.apply(.failed(reader: reader, uid: "04B2", error: "lost", cause: .tagLost), elapsed: .seconds(20))
        }
        return status
    }

    @Test("the rate counts from the first tag; the ETA is what is left at that rate")
    func rateAndETA() {
        let status = Self.status(total: 100, done: 20)
        // 20 tags in the 60 s since the first tag (found at 10 s): 20/min; 80 left: 4 min.
        #expect(status.tagsPerMinute(elapsed: .seconds(70)) == 20)
        #expect(status.secondsLeft(elapsed: .seconds(70)) == 240)
        let line = status.line(elapsed: .seconds(70), width: 200)
        #expect(line.contains("20/100 done") && line.contains("20.0/min") && line.contains("1:10") && line.contains("ETA 4:00"), "\(line)")
        #expect(line.hasSuffix("take it away"), "\(line)")
    }

    @Test("no ETA before a tag is done, none without a total")
    func noETAYet() {
        let fresh = Self.status(total: 10, done: 0)
        #expect(fresh.secondsLeft(elapsed: .seconds(30)) == nil)
        #expect(fresh.line(elapsed: .seconds(30), width: 200).contains("ETA -"))
        let endless = Self.status(total: nil, done: 5)
        #expect(endless.secondsLeft(elapsed: .seconds(30)) == nil)
        #expect(!endless.line(elapsed: .seconds(30), width: 200).contains("ETA"))
    }

    @Test("a resumed run shows the ledger's tags too: done and ETA over the run")
    func resumedRunTotals() {
        let status = Self.status(total: 1000, done: 10, baseDone: 500)
        let line = status.line(elapsed: .seconds(70), width: 200)
        // 10 tags a minute, 490 left.
        #expect(line.contains("510/1000 done") && line.contains("ETA 49:00"), "\(line)")
        let table = status.summaryTable(BatchSummary(done: 10), seconds: 70, ledger: "run.db")
        #expect(table.contains { $0.contains("run") && $0.contains("510/1000 done") }, "\(table)")
    }

    @Test("a named run shows the ledger's run progress: every station's tags, its rate and ETA")
    func namedRunTotals() {
        var status = Self.status(total: nil, done: 3)
        let report = RunProgressReport(run: "line1", done: 400, total: 1000, rate: 2, secondsLeft: 300, stations: 3)
        status.apply(.ledgerStatus(.progress(report)), elapsed: .seconds(70))
        let line = status.line(elapsed: .seconds(70), width: 200)
        #expect(line.contains("400/1000 done in run line1 (here 3)") && line.contains("120.0/min") && line.contains("ETA 5:00"), "\(line)")
    }

    @Test("failures are counted by cause, the most frequent first", arguments: [80, 200])
    func failuresByCause(width: Int) {
        var status = Self.status(total: 50, done: 4, failed: 2)
        status.apply(.failed(reader: Self.reader, uid: "04C3", error: "read-back differs", cause: .verifyMismatch), elapsed: .seconds(30))
        #expect(status.failuresByCause == "lost 2, verify 1")
        #expect(status.failures == [.tagLost: 2, .verifyMismatch: 1])
        #expect(status.line(elapsed: .seconds(30), width: 200).contains("3 failed (lost 2, verify 1)"))
        let table = status.summaryTable(BatchSummary(done: 4, failed: 3), seconds: 30, ledger: "l.db")
        #expect(table.first == "Batch summary")
        #expect(table.contains("  failed       3  (lost 2, verify 1)"), "\(table)")
        for label in ["done", "counterfeit", "skipped", "rate", "span"] {
            #expect(table.contains { $0.hasPrefix("  \(label) ") }, "\(label): \(table)")
        }
        _ = width
    }

    @Test("the line is cut to the terminal's width less one column, ending in an ellipsis", arguments: [1, 2, 10, 40, 60])
    func cutToWidth(width: Int) {
        let status = Self.status(total: 100, done: 20, failed: 3)
        let line = status.line(elapsed: .seconds(70), width: width)
        let columns = line.unicodeScalars.reduce(0) { $0 + ($1.isASCII ? 1 : 2) }
        #expect(columns <= max(width - 1, 1) + 1, "\(line)")
        #expect(line.count <= max(width - 1, 1), "\(line)")
        #expect(line.hasSuffix("…"))
        #expect(!line.contains("\n") && !line.contains("\r"))
    }

    @Test("wide and hostile characters: a reader's name is escaped, and a wide character counts two columns")
    func hostileAndWide() {
        var status = BatchStationStatus(total: nil)
        status.apply(.waiting(reader: "sim:\u{1B}[2J\u{202E}漢字漢字"), elapsed: .zero)
        status.apply(.waiting(reader: "second"), elapsed: .zero)
        let line = status.line(elapsed: .zero, width: 300)
        #expect(!line.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x202E })
        #expect(BatchStationStatus.fit("漢字漢字", width: 6) == "漢字…")
        #expect(BatchStationStatus.fit("abc", width: 4) == "abc")
        #expect(BatchStationStatus.fit("abcd", width: 4) == "ab…")
    }

    @Test("several readers: each one's state in a word", arguments: [true])
    func severalReaders(_: Bool) {
        var status = BatchStationStatus(total: 10)
        status.apply(.waiting(reader: "a"), elapsed: .zero)
        status.apply(.tagFound(reader: "b", uid: "04"), elapsed: .zero)
        status.apply(.severalTags(reader: "c", count: 2), elapsed: .zero)
        status.apply(.readerFailed(reader: "d", error: "gone"), elapsed: .zero)
        status.apply(.done(reader: "e", uid: "05", summary: ""), elapsed: .zero)
        #expect(status.readerStates == "1 wait, 2 write, 3 2 tags, 4 lost, 5 take away")
        var one = BatchStationStatus(total: 10)
        one.apply(.severalTags(reader: "a", count: 2), elapsed: .zero)
        #expect(one.readerStates == "2 tags: take one away")
        one.apply(.readerFailed(reader: "a", error: "gone"), elapsed: .zero)
        #expect(one.readerStates == "reader lost")
    }

    @Test("clock: minutes and seconds, hours when it takes them")
    func clock() {
        #expect(BatchStationStatus.clock(7) == "0:07")
        #expect(BatchStationStatus.clock(754) == "12:34")
        #expect(BatchStationStatus.clock(3723) == "1:02:03")
        #expect(BatchStationStatus.clock(.infinity) == "-")
    }

    @Test("the station line names causes with the ledger's codes, each in words of its own")
    func causes() {
        #expect(FailureCause(NFCTagError(.verificationFailed, "differs")).short == "verify")
        #expect(Set(FailureCause.allCases.map(\.short)).count == FailureCause.allCases.count)
    }

    @Test("an event record decodes, by a fresh decoder, to the event's fields and an ISO 8601 time")
    func eventRecords() throws {
        let time = "2025-01-31T12:00:00.123Z"
        let line = BatchEventRecord(.failed(reader: "r", uid: "04AB", error: "gone \u{1B}[2J", cause: .tagLost), time: time).jsonLine()
        #expect(line.last == 0x0A && !line.dropLast().contains(0x0A) && !line.contains(0x1B))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any])
        #expect(object["event"] as? String == "failed" && object["cause"] as? String == "tag-lost" && object["error"] as? String == "gone \u{1B}[2J")
        #expect(object["time"] as? String == time && object["reader"] as? String == "r" && object["uid"] as? String == "04AB")
        #expect(object["done"] == nil, "absent fields are left out")
        let progress = BatchEventRecord.progress(Self.status(total: 100, done: 20, failed: 1), elapsed: .seconds(70), time: time)
        let decoded = try #require(try JSONSerialization.jsonObject(with: Data(progress.jsonLine())) as? [String: Any])
        #expect(decoded["done"] as? Int == 20 && decoded["total"] as? Int == 100 && decoded["failed"] as? Int == 1)
        #expect((decoded["failures"] as? [String: Int]) == ["tag-lost": 1])
        #expect(decoded["etaSeconds"] as? Double != nil && decoded["ratePerMinute"] as? Double != nil)
    }
}
