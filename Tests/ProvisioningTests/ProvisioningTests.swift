import Foundation
import NFCTestSupport
import Provisioning
import Testing

private let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Fixtures/manifests")

@Suite("SHA-256 and HMAC against published vectors", .timeLimit(.minutes(5)))
struct SHA256Tests {
    static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    @Test("FIPS 180-4 examples: empty, abc, the 448-bit message")
    func digests() {
        #expect(Self.hex(SHA256.hash([])) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(Self.hex(SHA256.hash(Array("abc".utf8))) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(Self.hex(SHA256.hash(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)))
            == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        #expect(Self.hex(SHA256.hash([UInt8](repeating: 0x61, count: 1_000_000)))
            == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test("RFC 4231 test cases 1, 2 and 6 (key longer than a block)")
    func hmac() {
        #expect(Self.hex(SHA256.hmac(key: [UInt8](repeating: 0x0b, count: 20), message: Array("Hi There".utf8)))
            == "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7")
        #expect(Self.hex(SHA256.hmac(key: Array("Jefe".utf8), message: Array("what do ya want for nothing?".utf8)))
            == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
        #expect(Self.hex(SHA256.hmac(
            key: [UInt8](repeating: 0xaa, count: 131), message: Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8)))
            == "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54")
    }
}

@Suite("Provisioning templates", .timeLimit(.minutes(5)))
struct TemplateTests {
    static let uid: [UInt8] = [0x04, 0xA1, 0xB2, 0xC3, 0xD4, 0xE5, 0xF6]

    @Test("placeholders render: uid upper/lower, counter padded, literal braces")
    func render() throws {
        let template = try ProvisioningTemplate("https://ex.io/t/{uid}/{uid:lower}?n={n:05}&m={n}&b={{x}}")
        #expect(template.usesCounter)
        #expect(template.render(uid: Self.uid, counter: 42) == "https://ex.io/t/04A1B2C3D4E5F6/04a1b2c3d4e5f6?n=00042&m=42&b={x}")
        #expect(template.maximumLength(uidLength: 7, maxCounter: 99_999) == template.render(uid: Self.uid, counter: 99_999).utf8.count)
        #expect(try !ProvisioningTemplate("https://ex.io/{uid}").usesCounter)
    }

    @Test("{hmac:KEYFILE} is the HMAC-SHA-256 of the UID bytes, 16 hex digits by default")
    func hmac() throws {
        let key = [UInt8](repeating: 0x0b, count: 20)
        let template = try ProvisioningTemplate("{hmac:k}/{hmac:k:64}", loadKey: { _ in key })
        let full = SHA256Tests.hex(SHA256.hmac(key: key, message: Self.uid))
        #expect(template.render(uid: Self.uid, counter: nil) == String(full.prefix(16)) + "/" + full)
    }

    @Test("bad templates are refused with the offset of the fault", arguments: [
        ("x{uid", 1, "never closed"), ("x}y", 1, "without '{'"), ("{nope}", 0, "unknown placeholder"),
        ("ab{n:5}", 2, "width"), ("{uid:mixed}", 0, ":lower"), ("{hmac:}", 0, "key file"), ("{hmac:k:4}", 0, "8 to 64"),
        ("{hmac:short}", 0, "at least 16"), ("{hmac:missing}", 0, "cannot read"),
    ])
    func refused(text: String, offset: Int, reason: String) {
        #expect {
            _ = try ProvisioningTemplate(text, loadKey: { path in
                if path == "missing" { throw CocoaError(.fileNoSuchFile) }
                return path == "short" ? [1, 2, 3] : [UInt8](repeating: 1, count: 32)
            })
        } throws: { error in
            let error = error as? ProvisioningInputError
            return error?.offset == offset && error?.reason.contains(reason) == true
        }
    }
}

@Suite("Manifests: CSV and JSONL", .timeLimit(.minutes(5)))
struct ManifestTests {
    @Test("the CSV and JSONL fixtures give the same rows, in field order, empty values left out")
    func fixturesAgree() throws {
        let csv = try Manifest.parse(String(contentsOf: fixtures.appendingPathComponent("three-rows.csv"), encoding: .utf8), format: .csv)
        let jsonl = try Manifest.parse(String(contentsOf: fixtures.appendingPathComponent("three-rows.jsonl"), encoding: .utf8), format: .jsonl)
        #expect(csv.count == 3 && jsonl.count == 3)
        #expect(csv[0].fields.map(\.name) == ["uid", "url", "text"])
        #expect(csv[0].value("TEXT") == "Hello, world")
        #expect(csv[1].fields.map(\.name) == ["url"])
        #expect(csv[2].value("url") == "https://example.com/c?x=\"q\"")
        for (a, b) in zip(csv, jsonl) {
            #expect(a.value("url") == b.value("url"))
            #expect(a.value("text") == b.value("text"))
            #expect(a.value("uid") == b.value("uid"))
        }
        #expect(jsonl[2].value("n") == "7")
        #expect(jsonl[2].line == 4)
        #expect(Manifest.format(forPath: "x.JSONL") == .jsonl && Manifest.format(forPath: "x.csv") == .csv)
    }

    @Test("a manifest file that would write nothing, or the wrong thing, is refused naming its line and column", arguments: [
        (Array("url,text\rhttps://a.example,x\r".utf8), Manifest.Format.csv, false, 1, 9 as Int?, "CR-only"),
        (Array("url,text\n".utf8), .csv, false, 2, nil, "no rows"),
        (Array("".utf8), .jsonl, false, 1, nil, "no rows"),
        (Array("url,txt\nhttps://a.example,\n".utf8), .csv, false, 1, 5, "column 'txt'"),
        (Array("{\"url\": \"https://a\", \"txt\": null}\n{\"url\": \"https://b\", \"txt\": \"x\"}\n".utf8), .jsonl, false, 1, 22, "column 'txt'"),
        (Array("url\nhttps://a.example\n".utf8), .csv, true, 1, 1, "needs a 'uid' column"),
        (Array("{\"url\": \"https://a\"}\n".utf8), .jsonl, true, 1, 1, "no uid"),
        (Array("uid,url\n04A1B2C3,https://a\n04a1b2c3,https://b\n".utf8), .csv, false, 3, 1, "second row (the first is on line 2)"),
        (Array("url,uid\nhttps://a,04A1B2CZ\n".utf8), .csv, true, 2, 11, "not hex digits"),
        (Array("uid,url\n04:A1:B2:C3,https://a\n".utf8), .csv, true, 2, 1, "separators"),
        (Array("uid,url\n04A1B2,https://a\n".utf8), .csv, false, 2, 1, "3 bytes"),
        (Array("url,text\nhttps://a.example,Caf".utf8) + [0xE9] + Array("\n".utf8), .csv, false, 2, 22, "0xE9 is not UTF-8"),
        ([0xEF, 0xBB, 0xBF] + Array("{\"text\": \"a\"}\n{\"text\": \"\u{E9}".utf8) + [0xFF] + Array("\"}\n".utf8), .jsonl, false, 2, 12, "0xFF is not UTF-8"),
    ] as [([UInt8], Manifest.Format, Bool, Int, Int?, String)])
    func refusedManifests(bytes: [UInt8], format: Manifest.Format, matchByUID: Bool, line: Int, column: Int?, reason: String) {
        #expect {
            _ = try Manifest.load(bytes, format: format, matchByUID: matchByUID)
        } throws: { error in
            let error = error as? ProvisioningInputError
            return error?.line == line && (column == nil || error?.offset == column) && error?.reason.contains(reason) == true
        }
    }

    @Test("a UTF-8 byte order mark is dropped, so the first column is named as written; UIDs match in any case")
    func byteOrderMark() throws {
        let rows = try Manifest.load([0xEF, 0xBB, 0xBF] + Array("uid,url,text\n04a1b2c3d4e5f6,https://a.example,Caf\u{E9}\n".utf8), format: .csv, matchByUID: true)
        #expect(rows.count == 1)
        #expect(rows[0].fields.map(\.name) == ["uid", "url", "text"])
        #expect(rows[0].value("text") == "Caf\u{E9}")
        let jsonl = try Manifest.load([0xEF, 0xBB, 0xBF] + Array("{\"url\": \"https://a.example\"}\n".utf8), format: .jsonl)
        #expect(jsonl.map { $0.value("url") } == ["https://a.example"])
    }

    @Test("a quoted CSV field may hold a line break and CRLF line ends are accepted")
    func csvQuoting() throws {
        let rows = try Manifest.parseCSV("url,text\r\nhttps://a.example,\"two\nlines\"\r\nhttps://b.example,x\r\n")
        #expect(rows.count == 2)
        #expect(rows[0].value("text") == "two\nlines")
        #expect(rows[1].line == 4)
    }

    @Test("bad CSV is refused with line and column", arguments: [
        ("", 1, nil as Int?, "empty"), ("url,url\nx,y\n", 1, 2, "twice"), ("url,text\na\n", 2, nil, "1 fields"),
        ("url\n\"open\n", 3, nil, "never closed"), ("url\nab\"c\n", 2, 3, "quote inside"), ("url\n\"a\"b\n", 2, 4, "after a closing quote"),
        ("url,\nx,y\n", 1, nil, "no name"),
    ])
    func badCSV(text: String, line: Int, column: Int?, reason: String) {
        #expect {
            _ = try Manifest.parseCSV(text)
        } throws: { error in
            let error = error as? ProvisioningInputError
            return error?.line == line && (column == nil || error?.offset == column) && error?.reason.contains(reason) == true
        }
    }

    @Test("bad JSONL is refused with line and column", arguments: [
        ("{\"url\": [1]}", 1, "nested"), ("\n{\"url\": \"a\"", 2, "never closed"), ("{\"a\": 1, \"A\": 2}", 1, "twice"),
        ("{\"a\": nope}", 1, "not a JSON value"), ("{\"a\": \"x\"} y", 1, "after the object"), ("{\"a\": \"\\q\"}", 1, "unknown escape"),
        ("{\"a\": \"\\ud800\"}", 1, "surrogate"),
    ])
    func badJSONL(text: String, line: Int, reason: String) {
        #expect {
            _ = try Manifest.parseJSONL(text)
        } throws: { error in
            let error = error as? ProvisioningInputError
            return error?.line == line && error?.offset != nil && error?.reason.contains(reason) == true
        }
    }

    @Test("random bytes never crash either parser: rows, or an error naming a line and column")
    func totality() {
        var generator = SeededGenerator(seed: 7)
        let alphabet = Array("{}[]\",:\\nu0123abc \r\n\t-.eE".unicodeScalars)
        for _ in 0..<3000 {
            let length = Int.random(in: 0..<40, using: &generator)
            let text = String(String.UnicodeScalarView((0..<length).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &generator)] }))
            // Lines end at \n, \r or \r\n: at most one line per separator, plus the last.
            let lines = text.unicodeScalars.filter { $0 == "\n" || $0 == "\r" }.count + 2
            func check(_ error: ProvisioningInputError) {
                #expect(!error.reason.isEmpty)
                if let line = error.line { #expect(line >= 1 && line <= lines, "\(error)") }
            }
            do { _ = try Manifest.parseCSV(text) } catch { check(error) }
            do { _ = try Manifest.parseJSONL(text) } catch { check(error) }
        }
    }
}

@Suite("The provisioning ledger (SQLite, WAL)", .timeLimit(.minutes(5)))
struct LedgerTests {
    static func attempt(_ ledger: Ledger, run: Int64, uid: String, row: Int? = nil, counter: Int? = nil, status: String = "done") -> LedgerAttempt {
        LedgerAttempt(
            run: run, uid: uid, model: "NTAG215", row: row, counter: counter, summary: "URI https://ex.io/\(uid)", bytes: 24,
            verified: status == "done", error: status == "done" ? nil : "tag lost", started: Ledger.now(), finished: Ledger.now(),
            reader: "sim:ntag215", status: status)
    }

    /// Runs `script` with python3 (its sqlite3 module: a reader of the file independent of ours).
    static func python(_ script: String, _ arguments: [String]) async throws -> String {
        let run = try await runPython(script, arguments)
        #expect(run.status == 0)
        return run.standardOutput
    }

    @Test("a ledger written before rows counted from 1 is migrated once on opening: row 0 becomes row 1")
    func migratesZeroBasedRows() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("old.db").path
        // The schema of schema version 0, written by sqlite3 itself: rows 0 and 2 done.
        _ = try await Self.python("""
            import sqlite3, sys
            db = sqlite3.connect(sys.argv[1])
            db.execute("CREATE TABLE runs(id INTEGER PRIMARY KEY, started TEXT NOT NULL, finished TEXT, template TEXT, manifest TEXT, readers TEXT NOT NULL)")
            db.execute("CREATE TABLE attempts(id INTEGER PRIMARY KEY, run INTEGER NOT NULL REFERENCES runs(id), uid TEXT NOT NULL, model TEXT NOT NULL, row INTEGER, counter INTEGER, summary TEXT NOT NULL, bytes INTEGER NOT NULL, verified INTEGER NOT NULL, locked INTEGER NOT NULL, protected INTEGER NOT NULL, error TEXT, started TEXT NOT NULL, finished TEXT NOT NULL, reader TEXT NOT NULL, status TEXT NOT NULL)")
            db.execute("INSERT INTO runs(started, readers) VALUES('2026-11-01T00:00:00Z', 'sim:ntag215')")
            for uid, row in [("04AA", 0), ("04BB", 2), ("04CC", None)]:
                db.execute("INSERT INTO attempts(run, uid, model, row, summary, bytes, verified, locked, protected, started, finished, reader, status) VALUES(1, ?, 'NTAG215', ?, 'URI x', 5, 1, 0, 0, 't', 't', 'sim:ntag215', 'done')", (uid, row))
            db.commit()
            """, [path])
        #expect(try Ledger(path: path).doneRows() == [1, 3])
        #expect(try Ledger(path: path).doneRows() == [1, 3])  // the second opening changes nothing
        let stored = try await Self.python("""
            import sqlite3, sys
            db = sqlite3.connect(sys.argv[1])
            print(db.execute("PRAGMA user_version").fetchone()[0], [r[0] for r in db.execute("SELECT row FROM attempts ORDER BY id")])
            """, [path])
        #expect(stored == "6 [1, 3, None]\n")  // schema versions 2 (named runs), 3 (counterfeit), 4 (manifest digest), 5 (cause) and 6 (fencing) on top
    }

    /// "\r\n" is one Swift Character, equal to neither "\n" nor "\r": a field holding it (a
    /// reader name a hostile driver reports) went out unquoted and split the record.
    @Test("a CSV field with CR LF is quoted: Python's csv module reads one record per attempt")
    func csvQuotesCRLF() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let ledger = try Ledger(path: directory.appendingPathComponent("ledger.db").path)
        let run = try ledger.startRun(template: "https://ex.io/{uid}", manifest: nil, readers: ["sim:ntag215"])
        var attempt = Self.attempt(ledger, run: run, uid: "04AA", row: 1)
        attempt.reader = "R\r\n999"
        try ledger.record(attempt)
        try ledger.record(Self.attempt(ledger, run: run, uid: "04BB", row: 2))
        let file = directory.appendingPathComponent("export.csv")
        try Data(try ledger.exportCSV().utf8).write(to: file)
        let records = try await Self.python("""
            import csv, sys
            rows = list(csv.reader(open(sys.argv[1], newline="")))
            print(len(rows) - 1, [r[14] for r in rows[1:]])
            """, [file.path])
        #expect(records == "2 ['R\\r\\n999', 'sim:ntag215']\n")
    }

    @Test("attempts, done rows and UIDs, stats and exports survive reopening")
    func roundTrip() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("ledger.db").path
        do {
            let ledger = try Ledger(path: path)
            let run = try ledger.startRun(template: "https://ex.io/{uid}", manifest: nil, readers: ["sim:ntag215"])
            try ledger.record(Self.attempt(ledger, run: run, uid: "04AA", row: 1))
            try ledger.record(Self.attempt(ledger, run: run, uid: "04BB", row: 2, status: "failed"))
            try ledger.record(Self.attempt(ledger, run: run, uid: "04CC, \"x\"", row: 3))
            try ledger.finishRun(run)
        }
        let ledger = try Ledger(path: path)
        #expect(try ledger.doneRows() == [1, 3])
        #expect(try ledger.isDone(uid: "04aa"))
        #expect(try !ledger.isDone(uid: "04BB"))
        let stats = try ledger.stats()
        #expect(stats.runs == 1 && stats.attempts == 3 && stats.done == 2 && stats.failed == 1)
        let csv = try ledger.exportCSV()
        #expect(csv.hasPrefix("id,run,uid,model,row,counter,summary,bytes,verified,locked,protected,error,started,finished,reader,status,cause\n"))
        #expect(csv.contains("\"04CC, \"\"x\"\"\""))
        let jsonl = try ledger.exportJSONL().split(separator: "\n")
        #expect(jsonl.count == 3)
        #expect(jsonl[1].contains("\"status\":\"failed\""))
        // The CSV export is a valid manifest-grade CSV: our own parser reads it back.
        #expect(try Manifest.parseCSV(csv).count == 3)
    }

    @Test("counters are never handed out twice: 4 tasks on 2 connections to one file, 200 values")
    func counters() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("ledger.db").path
        let a = try Ledger(path: path), b = try Ledger(path: path)
        let values = try await withThrowingTaskGroup(of: [Int].self) { group in
            for worker in 0..<4 {
                let ledger = worker % 2 == 0 ? a : b
                group.addTask { try (0..<50).map { _ in try ledger.allocateCounter(start: 1000) } }
            }
            var all: [Int] = []
            for try await chunk in group { all += chunk }
            return all
        }
        #expect(values.count == 200)
        #expect(Set(values).count == 200)
        #expect(values.min() == 1000 && values.max() == 1199)
        #expect(try a.stats().nextCounter == 1200)
        // A later run asking for a lower start still continues after the last value.
        #expect(try b.allocateCounter(start: 1) == 1200)
    }

    @Test("a ledger that cannot be opened says why")
    func unopenable() {
        #expect { _ = try Ledger(path: "/nonexistent-dir/ledger.db") } throws: { error in
            (error as? LedgerError)?.description.contains("cannot open the ledger") == true
        }
    }
}
