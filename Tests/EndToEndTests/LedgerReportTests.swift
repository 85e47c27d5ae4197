import Foundation
import NFCTestSupport
import Provisioning
import Testing

/// `ledger stats` by cause and `ledger report` (issue 27), from the outside: a ledger filled
/// through the library, then read by a fresh `nfctool` process, checked against an independent
/// client (Python's sqlite3, psql), the report's SVG parsed by Python's XML parser and the page
/// rendered by headless Chromium.
@Suite("ledger stats by cause and ledger report, end to end", .tags(.endToEnd, .postgres), .serialized, .timeLimit(.minutes(5)))
struct LedgerReportTests {
    /// Where a ledger lives for one test: a SQLite file, or a database on a server of its own.
    struct Place {
        let directory: URL
        let location: String
        let server: PostgreSQLTestServer?

        static func make(postgres: Bool) async throws -> Place {
            try await runBlocking {
                let directory = try temporaryDirectory()
                guard postgres else { return Place(directory: directory, location: directory.appendingPathComponent("run.db").path, server: nil) }
                _ = try PostgreSQLTestServer.tool.require()
                let server = try PostgreSQLTestServer()
                return Place(directory: directory, location: try server.createDatabase("line"), server: server)
            }
        }

        func remove() {
            server?.remove()
            try? FileManager.default.removeItem(at: directory)
        }

        /// Failures by cause as the independent client counts them: `cause=count` lines, sorted.
        func independentCauses() async throws -> [String] {
            let sql = "SELECT COALESCE(cause, 'unrecorded') || '=' || COUNT(*) FROM attempts WHERE status <> 'done' GROUP BY COALESCE(cause, 'unrecorded')"
            let text: String
            if let server {
                text = try await runBlocking { try server.psql(sql, database: "line") }
            } else {
                text = try await runPython("""
                    import sqlite3, sys
                    for r in sqlite3.connect(sys.argv[1]).execute(sys.argv[2]): print(r[0])
                    """, [location, sql]).standardOutput
            }
            return text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }.sorted()
        }
    }

    /// A run of two stations with failures of several causes, one of them before causes were
    /// kept, and names that need escaping.
    static func fill(_ location: String) throws {
        let ledger = try openLedger(location)
        let east = try ledger.startRun(name: "w26", station: "east", template: "https://ex.io/t/{uid}?n={n}", manifest: nil, readers: ["sim:a"])
        let west = try ledger.startRun(name: "w26", station: "west <b>&", template: "https://ex.io/t/{uid}?n={n}", manifest: nil, readers: ["sim:b"])
        let plan: [(String, FailureCause?, Int64, String, String)] =
            Array(repeating: ("done", nil, east, "sim:a", "east"), count: 14) + Array(repeating: ("done", nil, west, "sim:b", "west <b>&"), count: 10)
            + Array(repeating: ("failed", .rfWrite, east, "sim:a", "east"), count: 5) + Array(repeating: ("failed", .rfRead, west, "sim:b", "west <b>&"), count: 2)
            + [("failed", .verifyMismatch, east, "sim:a", "east"), ("counterfeit", .counterfeit, west, "sim:b", "west <b>&"), ("failed", nil, east, "sim:a", "east")]
        for (index, (status, cause, session, reader, station)) in plan.enumerated() {
            let second = index * 7 % 180
            try ledger.record(LedgerAttempt(
                run: session, uid: String(format: "04%012X", index), model: index % 3 == 0 ? "NTAG213" : "NTAG215",
                summary: "URI https://ex.io/t/\(index)", bytes: 30, verified: status == "done", locked: status == "done" && index % 2 == 0,
                error: status == "done" ? nil : "failed [x]", cause: cause?.rawValue,
                started: String(format: "2026-05-04T09:%02d:%02d.000Z", second / 60, second % 60),
                finished: String(format: "2026-05-04T09:%02d:%02d.400Z", second / 60, second % 60),
                reader: reader, status: status, runName: "w26", station: station, key: UUID().uuidString))
        }
        try ledger.finishRun(east)
    }

    @Test("ledger stats --json from a fresh process: failures by cause equal the independent client's count; span, rate and splits", arguments: [false, true])
    func statsByCause(postgres: Bool) async throws {
        guard !postgres || PostgreSQLTestServer.tool.isAvailable || isContinuousIntegration else { return }
        let place = try await Place.make(postgres: postgres)
        defer { place.remove() }
        try await runBlocking { try Self.fill(place.location) }
        let run = try await runBuiltNFCTool(["ledger", "stats", "--json", place.location, "--run", "w26"])
        #expect(run.status == 0, "\(run.standardError)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(run.standardOutput.utf8)) as? [String: Any])
        let analysis = try #require(json["analysis"] as? [String: Any])
        let causes = try #require(analysis["failuresByCause"] as? [[String: Any]])
        #expect(causes.map { "\($0["cause"] ?? "")=\($0["count"] ?? "")" }.sorted() == (try await place.independentCauses()))
        #expect(causes.first?["cause"] as? String == "rf-write")
        #expect(analysis["firstStart"] as? String == "2026-05-04T09:00:00.000Z" && analysis["lastFinish"] as? String == "2026-05-04T09:02:55.400Z")
        #expect((analysis["stations"] as? [[String: Any]])?.map { $0["name"] as? String ?? "" } == ["east", "west <b>&"])
        #expect((analysis["models"] as? [[String: Any]])?.count == 2 && analysis["protected"] as? Int == 0)
        let text = try await runBuiltNFCTool(["ledger", "stats", place.location, "--run", "w26"])
        #expect(text.status == 0 && text.standardOutput.contains("failures by cause:\n  rf-write         5\n"), "\(text.standardOutput)")
        #expect(text.standardOutput.contains("  unrecorded       1\n") && text.standardOutput.contains("rate:         "))
        let export = try await runBuiltNFCTool(["ledger", "export", place.location, "--run", "w26"])
        let lines = export.standardOutput.split(separator: "\n")
        #expect(lines.first?.hasSuffix(",status,cause,station,superseded_station,superseded_uid,resolution") == true)
        #expect(lines.count { $0.contains(",failed,rf-write,east") } == 5)
    }

    @Test("batch records the cause of each failure: an RF error injected into a WRITE and into a FAST_READ, read back by sqlite3 and by ledger stats")
    func batchRecordsCauses() async throws {
        let place = try await Place.make(postgres: false)
        defer { place.remove() }
        // The simulator's command 5 is the first WRITE, command 3 the FAST_READ of the tag's start.
        for (fault, uid) in [(5, "04A0000000000A"), (3, "04B0000000000B")] {
            let batch = try await runBuiltNFCTool(
                ["batch", "--device", "sim:ntag215*2?poll-wait=0&rf-error=\(fault)&uid=\(uid)", "--url", "https://ex.io/t/{uid}", "--count", "2",
                 "-t", "2", "--ledger", place.location], timeout: 60)
            #expect(batch.status == 1, "\(batch.standardError)")
        }
        let stored = try await runPython("""
            import sqlite3, sys
            print(sqlite3.connect(sys.argv[1]).execute("SELECT group_concat(status || ':' || COALESCE(cause, '-'), ' ') FROM (SELECT * FROM attempts ORDER BY id)").fetchone()[0])
            """, [place.location])
        #expect(stored.standardOutput == "failed:rf-write done:- failed:rf-read done:-\n")
        let stats = try await runBuiltNFCTool(["ledger", "stats", place.location])
        #expect(stats.standardOutput.contains("failures by cause:\n  rf-read   1\n  rf-write  1\n"), "\(stats.standardOutput)")
    }

    /// The cause chart's bars in `page`, read by Python's XML parser: `cause=count=width` lines.
    static func causeBars(_ page: String) async throws -> [String] {
        let parsed = try await runPython("""
            import sys, xml.etree.ElementTree as ET
            root = ET.parse(sys.argv[1]).getroot()
            ns = {"s": "http://www.w3.org/2000/svg"}
            for svg in root.iter("{http://www.w3.org/2000/svg}svg"):
                if svg.get("data-chart") != "causes": continue
                for g in svg.findall("s:g", ns):
                    rect = g.find("s:rect", ns)
                    label = "".join(g.find("s:text", ns).itertext())
                    print(label, g.get("data-count"), rect.get("width"), sep="=")
            """, [page])
        #expect(parsed.status == 0, "the page is not well-formed XML")
        return parsed.standardOutput.split(separator: "\n").map(String.init)
    }

    @Test("ledger report: one self-contained page whose cause bars equal the ledger's counts, names escaped, rendered by headless Chromium", arguments: [false, true])
    func report(postgres: Bool) async throws {
        guard !postgres || PostgreSQLTestServer.tool.isAvailable || isContinuousIntegration else { return }
        let place = try await Place.make(postgres: postgres)
        defer { place.remove() }
        try await runBlocking { try Self.fill(place.location) }
        let page = place.directory.appendingPathComponent("report.html").path
        let run = try await runBuiltNFCTool(["ledger", "report", place.location, "--run", "w26", "-o", page])
        #expect(run.status == 0, "\(run.standardError)")
        #expect(run.standardOutput.contains("24 done, 9 failed, 1 counterfeit"), "\(run.standardOutput)")
        let html = try String(contentsOfFile: page, encoding: .utf8)
        // Self-contained: no script, nothing fetched.
        #expect(!html.contains("<script") && !html.contains("src=") && !html.contains("href=") && !html.contains("@import") && !html.contains("url("))
        #expect(html.contains("west &lt;b&gt;&amp;") && !html.contains("west <b>"))
        let bars = try await Self.causeBars(page)
        let expected = try await place.independentCauses()
        #expect(bars.map { $0.split(separator: "=").prefix(2).joined(separator: "=") }.sorted() == expected)
        // The widths are proportional to the counts.
        let widths = bars.compactMap { line -> (Double, Double)? in
            let parts = line.split(separator: "=")
            guard parts.count == 3, let count = Double(parts[1]), let width = Double(parts[2]) else { return nil }
            return (count, width)
        }
        let top = try #require(widths.max { $0.0 < $1.0 })
        #expect(widths.count == expected.count && widths.allSatisfy { abs($0.1 / top.1 - $0.0 / top.0) < 0.01 })
        #expect(html.contains("data-chart=\"over-time\"") && html.contains("data-chart=\"rate\"") && html.contains("data-chart=\"models\""))
        #expect(html.contains("https://ex.io/t/{uid}?n={n}"))
        // Headless Chromium draws it.
        let chromium = try ExternalTool.chromium.require()
        let png = place.directory.appendingPathComponent("report.png").path
        let home = place.directory.appendingPathComponent("home").path
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        let shot = try await runTool(
            chromium, ["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--screenshot=\(png)", "--window-size=1200,1600", "file://\(page)"],
            environment: ProcessInfo.processInfo.environment.merging(["HOME": home]) { _, new in new }, timeout: 120)
        #expect(shot.status == 0, "\(shot.output)")
        let picture = try await runPython("""
            import struct, sys, zlib
            data = open(sys.argv[1], "rb").read()
            assert data[:8] == b"\\x89PNG\\r\\n\\x1a\\n"
            width, height = struct.unpack(">II", data[16:24])
            pos, idat = 8, b""
            while pos < len(data):
                length, kind = struct.unpack(">I4s", data[pos:pos + 8])
                if kind == b"IDAT": idat += data[pos + 8:pos + 8 + length]
                pos += 12 + length
            pixels = zlib.decompress(idat)
            print(width, height, len(set(pixels)) > 40, len(data) > 20000)
            """, [png])
        #expect(picture.standardOutput == "1200 1600 True True\n", "\(picture.standardOutput)")
    }

    @Test("ledger report refuses what it cannot do: no -o, an unknown run, a directory as output, a full disk (/dev/full)")
    func refusals() async throws {
        let place = try await Place.make(postgres: false)
        defer { place.remove() }
        try await runBlocking { try Self.fill(place.location) }
        #expect(try await runBuiltNFCTool(["ledger", "report", place.location]).status == 64)
        let unknown = try await runBuiltNFCTool(["ledger", "report", place.location, "--run", "w27", "-o", place.directory.appendingPathComponent("x.html").path])
        #expect(unknown.status == 64 && unknown.standardError.contains("no run named 'w27'"), "\(unknown.standardError)")
        let directory = try await runBuiltNFCTool(["ledger", "report", place.location, "-o", place.directory.path])
        #expect(directory.status == 1 && directory.standardError.contains("is a directory"), "\(directory.standardError)")
        let full = try await runBuiltNFCTool(["ledger", "report", place.location, "-o", "/dev/full"])
        #expect(full.status == 1 && full.standardError.contains("No space left on device"), "\(full.standardError)")
    }
}
