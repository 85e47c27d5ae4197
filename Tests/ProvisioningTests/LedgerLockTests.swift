import Foundation
import NFCTestSupport
import Provisioning
import Testing

/// Another process holding the ledger file (issue 15): a write waits and retries until it is
/// released, far beyond SQLite's own busy wait, and fails with a clear error only after the
/// ledger's `lockWait`. The other process is Python's own `sqlite3` module, holding a write
/// transaction (BEGIN EXCLUSIVE) for as long as the test says.
@Suite("Ledger: another process holding the file", .serialized, .timeLimit(.minutes(2)))
struct LedgerLockTests {
    /// Starts a Python process that takes the write lock on `path`, prints `locked`, holds it for
    /// `seconds`, then commits and exits. Returns once it holds the lock.
    static func holdLock(on path: String, for seconds: Double) throws -> Process {
        let script = """
            import sqlite3, sys, time
            c = sqlite3.connect(sys.argv[1], isolation_level=None, timeout=30)
            c.execute('BEGIN EXCLUSIVE')
            print('locked', flush=True)
            time.sleep(float(sys.argv[2]))
            c.execute('COMMIT')
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script, path, String(seconds)]
        let output = Pipe()
        process.standardOutput = output
        // Its complaints, should it fail, next to the ledger for the test's message.
        _ = FileManager.default.createFile(atPath: path + ".holder-stderr", contents: nil)
        process.standardError = FileHandle(forWritingAtPath: path + ".holder-stderr")
        try process.run()
        // Its first line says it holds the lock (EOF: it failed).
        var line = Data()
        while let byte = try output.fileHandleForReading.read(upToCount: 1), !byte.isEmpty, byte != Data("\n".utf8) {
            line.append(byte)
        }
        guard String(decoding: line, as: UTF8.self) == "locked" else {
            reap(process)
            throw CocoaError(.fileLocking)
        }
        return process
    }

    /// The exit status of `process` once it has exited (reaped here or by Foundation), waiting up
    /// to `seconds`; nil if it has not.
    static func exitStatus(of process: Process, within seconds: Double) -> Int32? {
        let deadline = Date().addingTimeInterval(seconds)
        var status: Int32 = 0
        while Date() < deadline {
            let reaped = waitpid(process.processIdentifier, &status, WNOHANG)
            if reaped == process.processIdentifier { return (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F) }
            // Foundation reaped it first: its status is there once `isRunning` turns false, which
            // can come a moment after the reaping; until then, look again.
            if reaped == -1, !process.isRunning {
                return process.terminationReason == .exit ? process.terminationStatus : 128 + process.terminationStatus
            }
            usleep(10_000)
        }
        return nil
    }

    static func attempt(_ run: Int64, _ uid: String, counter: Int) -> LedgerAttempt {
        LedgerAttempt(
            run: run, uid: uid, model: "NTAG215", counter: counter, summary: "URI https://ex.io/\(counter)", bytes: 20, verified: true,
            started: Ledger.now(), finished: Ledger.now(), reader: "sim:ntag215", status: "done")
    }

    @Test("a write while another process holds the ledger for 6 s (beyond SQLite's 5 s busy wait) waits, then succeeds")
    func waitsForTheLock() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("ledger.db").path
        let ledger = try Ledger(path: path)
        let run = try ledger.startRun(template: nil, manifest: nil, readers: ["sim:ntag215"])
        let holder = try await Self.offPool { try Self.holdLock(on: path, for: 6) }
        defer { reapInBackground(holder) }
        // The blocking writes, off the shared pool; their outcome is checked here.
        let outcome = try await Self.offPool { () -> Result<Void, LedgerError> in
            Result { () throws(LedgerError) in
                let counter = try ledger.allocateCounter(start: 1)
                try ledger.record(Self.attempt(run, "04A10000000001", counter: counter))
            }
        }
        #expect(throws: Never.self) { try outcome.get() }
        let status = try await Self.offPool { Self.exitStatus(of: holder, within: 30) }
        #expect(status == 0, "the holder: \((try? String(contentsOfFile: path + ".holder-stderr", encoding: .utf8)) ?? "")")
        // Read afresh.
        let attempts = try Ledger(path: path).attempts()
        #expect(attempts.map(\.uid) == ["04A10000000001"] && attempts.map(\.counter) == [1])
    }

    @Test("a ledger that stays locked past lockWait fails with an error saying so, and the ledger is unchanged")
    func staysLocked() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("ledger.db").path
        let ledger = try Ledger(path: path, lockWait: .milliseconds(800))
        let run = try ledger.startRun(template: nil, manifest: nil, readers: ["sim:ntag215"])
        let holder = try await Self.offPool { try Self.holdLock(on: path, for: 60) }
        defer { reapInBackground(holder) }
        let outcome = try await Self.offPool { () -> Result<Int64, LedgerError> in
            Result { () throws(LedgerError) in try ledger.record(Self.attempt(run, "04A10000000001", counter: 1)) }
        }
        switch outcome {
        case .success: Issue.record("recorded while another process held the ledger")
        case .failure(let error):
            #expect(error.isLockContention)
            #expect(error.description.contains("stayed locked by another process"), "\(error)")
            #expect(error.description.contains(path))
        }
        await reaped(holder)
        #expect(try Ledger(path: path).attempts().isEmpty)
    }

    /// Runs `body`, which blocks (SQLite waiting for the lock, a child process), on a thread of
    /// its own rather than one of the few of the cooperative pool every other test shares.
    static func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            Thread.detachNewThread { continuation.resume(with: Result { try body() }) }
        }
    }
}
