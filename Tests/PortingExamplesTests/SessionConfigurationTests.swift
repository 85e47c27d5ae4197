import Foundation
import NFCCore
import NFCKit
import NFCTags
import NFCTestSupport
import Testing

/// What CoreNFC takes from Info.plist, as session configuration; and one session per reader
/// across kinds of session and processes.
@Suite("Session configuration and the one-session rule", .serialized, .timeLimit(.minutes(5)))
struct SessionConfigurationTests {
    @Test("select identifiers are tried in order; the first the card accepts is initialSelectedAID")
    func selectIdentifiersInOrder() async throws {
        let configuration = NFCTagReaderSession.Configuration(
            iso7816SelectIdentifiers: ["A0000000031010AA", "d2760000850101"])
        let session = NFCTagReaderSession(
            pollingOption: [.iso14443], connection: "sim:type4", configuration: configuration)
        try await session.begin()
        var tags = session.tags.makeAsyncIterator()
        let tag = try #require(try await tags.next())
        guard case .iso7816(let card) = tag else {
            Issue.record("not an ISO 7816 tag: \(tag)")
            return
        }
        #expect(card.initialSelectedAID == "D2760000850101")
        await session.invalidate()
    }

    @Test("a card that accepts none of the select identifiers is not reported")
    func unknownApplicationSkipped() async throws {
        let configuration = NFCTagReaderSession.Configuration(iso7816SelectIdentifiers: ["F000000001"])
        let session = NFCTagReaderSession(
            pollingOption: [.iso14443], connection: "sim:type4", timeout: .seconds(1), configuration: configuration)
        try await session.begin()
        var tags = session.tags.makeAsyncIterator()
        await #expect(throws: NFCReaderError.self) {
            _ = try await tags.next()
        }
        #expect(await session.invalidationReason?.code == .readerSessionInvalidationErrorSessionTimeout)
    }

    @Test("the wildcard FeliCa system code FFFF and malformed identifiers are refused at begin", arguments: [
        (NFCTagReaderSession.Configuration(felicaSystemCodes: ["FFFF"]), NFCReaderError.Code.readerErrorInvalidParameter),
        (NFCTagReaderSession.Configuration(felicaSystemCodes: ["12"]), .readerErrorInvalidParameterLength),
        (NFCTagReaderSession.Configuration(iso7816SelectIdentifiers: ["D276"]), .readerErrorInvalidParameterLength),
        (NFCTagReaderSession.Configuration(iso7816SelectIdentifiers: ["xyz"]), .readerErrorInvalidParameter),
    ])
    func refusedConfiguration(configuration: NFCTagReaderSession.Configuration, code: NFCReaderError.Code) async throws {
        let session = NFCTagReaderSession(pollingOption: [.iso18092], connection: "sim:felica-lite-s", configuration: configuration)
        await #expect { try await session.begin() } throws: { ($0 as? NFCReaderError)?.code == code }
    }

    @Test("a FeliCa tag is reported for a system code it holds (12FC, NDEF) and not for another")
    func felicaSystemCodes() async throws {
        let holding = NFCTagReaderSession(
            pollingOption: [.iso18092], connection: "sim:felica-lite-s",
            configuration: .init(felicaSystemCodes: ["12FC"]))
        try await holding.begin()
        var found = holding.tags.makeAsyncIterator()
        #expect(try await found.next() != nil)
        await holding.invalidate()
        let other = NFCTagReaderSession(
            pollingOption: [.iso18092], connection: "sim:felica-lite-s", timeout: .seconds(1),
            configuration: .init(felicaSystemCodes: ["0003"]))
        try await other.begin()
        var none = other.tags.makeAsyncIterator()
        await #expect(throws: NFCReaderError.self) { _ = try await none.next() }
    }

    @Test("a reader held by a session in another process is busy: begin fails with SystemIsBusy, availability says busy")
    func lockAcrossProcesses() async throws {
        let emulator = try await EmulatorProcess.start(["--tag", "ntag213"])
        defer { emulator.stop() }
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let lockFile = Self.lockFile(of: emulator.connectionString)
        let ready = directory.appendingPathComponent("ready").path
        // One process holding an exclusive record lock on the lock file, as a session there would;
        // killed, it lets go (the kernel drops the lock).
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        holder.arguments = [
            "-c",
            "import fcntl, sys, time\nf = open(sys.argv[1], 'a')\nfcntl.lockf(f, fcntl.LOCK_EX)\nopen(sys.argv[2], 'w').close()\ntime.sleep(60)",
            lockFile, ready,
        ]
        try holder.run()
        defer { if holder.isRunning { kill(holder.processIdentifier, SIGKILL) } }
        let deadline = ContinuousClock.now + .seconds(20)
        while !FileManager.default.fileExists(atPath: ready), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(FileManager.default.fileExists(atPath: ready))

        let session = NFCTagReaderSession(pollingOption: [.iso14443], connection: emulator.connectionString)
        await #expect { try await session.begin() } throws: {
            ($0 as? NFCReaderError)?.code == .readerSessionInvalidationErrorSystemIsBusy
        }
        #expect(await NFCReaderAvailability.check(connection: emulator.connectionString).status == .busy)
        var watch = TagWatcher(connection: emulator.connectionString).makeAsyncIterator()
        await #expect { _ = try await watch.next() } throws: { ($0 as? NFCReaderDeviceError)?.code == .busy }

        kill(holder.processIdentifier, SIGKILL)
        // Released when the other process is gone (waited for without blocking a thread).
        let gone = ContinuousClock.now + .seconds(20)
        while holder.isRunning, ContinuousClock.now < gone { try await Task.sleep(for: .milliseconds(20)) }
        let after = NFCTagReaderSession(pollingOption: [.iso14443], connection: emulator.connectionString)
        try await after.begin()
        await after.invalidate()
    }

    /// The lock file of a connection string, named here independently of ReaderLease.
    static func lockFile(of connection: String) -> String {
        let lockDirectory = ProcessInfo.processInfo.environment["NFCKIT_LOCK_DIR"] ?? NSTemporaryDirectory()
        var name = "nfckit-"
        for byte in connection.utf8 {
            let c = Character(Unicode.Scalar(byte))
            if c.isASCII && (c.isLetter || c.isNumber || c == "-" || c == ".") {
                name.append(c)
            } else {
                name += "_" + String(format: "%02X", byte)
            }
        }
        return URL(fileURLWithPath: lockDirectory).appendingPathComponent(name + ".lock").path
    }

    /// Whether a fresh process can take the exclusive lock on `file` at once.
    static func anotherProcessCanLock(_ file: String) async throws -> Bool {
        let run = try await runTool(
            "/usr/bin/python3", ["-c", "import fcntl, sys\nf = open(sys.argv[1], 'a')\nfcntl.lockf(f, fcntl.LOCK_EX | fcntl.LOCK_NB)", file],
            environment: ProcessInfo.processInfo.environment, timeout: 20)
        return run.status == 0
    }

    @Test("a session dropped without invalidate() gives the reader back to other processes (a full run failed: a leaked session's lock refused a later emulator on the same pty path)")
    func droppedSessionReleasesTheReader() async throws {
        let emulator = try await EmulatorProcess.start(["--tag", "ntag213"])
        defer { emulator.stop() }
        let lockFile = Self.lockFile(of: emulator.connectionString)
        do {
            let session = NFCTagReaderSession(pollingOption: [.iso14443], connection: emulator.connectionString)
            try await session.begin()
            #expect(try await !Self.anotherProcessCanLock(lockFile), "a live session holds the reader")
            // Dropped here, never invalidated.
        }
        let deadline = ContinuousClock.now + .seconds(20)
        var released = try await Self.anotherProcessCanLock(lockFile)
        while !released, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
            released = try await Self.anotherProcessCanLock(lockFile)
        }
        #expect(released)
    }

    @Test("a reader given back is free at once though a child forked while it was held still runs (a full run failed: a process spawned by another test kept the lock)")
    func releasedLeaseIsNotHeldByAForkedChild() async throws {
        let emulator = try await EmulatorProcess.start(["--tag", "ntag213"])
        defer { emulator.stop() }
        let session = NFCTagReaderSession(pollingOption: [.iso14443], connection: emulator.connectionString)
        try await session.begin()
        // A child forked now has copies of every descriptor, the lock file's too, as a process
        // being spawned has until it calls exec; this one waits on a pipe before it exits.
        var ends: [Int32] = [-1, -1]
        try #require(pipe(&ends) == 0)
        let child = fork()
        if child == 0 {
            close(ends[1])
            var byte: UInt8 = 0
            _ = read(ends[0], &byte, 1)
            _exit(0)
        }
        close(ends[0])
        try #require(child > 0)
        // Closing the pipe lets the child end (and ends it if this test stops early).
        var pipeOpen = true
        defer { if pipeOpen { close(ends[1]) } }
        await session.invalidate()
        // Nobody holds the reader any more: this process and another can take it.
        #expect(await NFCReaderAvailability.check(connection: emulator.connectionString).status == .available)
        #expect(try await Self.anotherProcessCanLock(Self.lockFile(of: emulator.connectionString)))
        let next = NFCTagReaderSession(pollingOption: [.iso14443], connection: emulator.connectionString)
        try await next.begin()
        await next.invalidate()
        close(ends[1])
        pipeOpen = false
        let status = try await runBlocking {
            var status: Int32 = 0
            return waitpid(child, &status, 0) == child ? status : -1
        }
        #expect(status == 0)
    }

    @Test("a tag session holds the reader against a watcher and a card session in the same process")
    func oneSessionAcrossKinds() async throws {
        let emulator = try await EmulatorProcess.start(["--tag", "ntag213"])
        defer { emulator.stop() }
        let session = NFCTagReaderSession(pollingOption: [.iso14443], connection: emulator.connectionString)
        try await session.begin()
        var watch = TagWatcher(connection: emulator.connectionString).makeAsyncIterator()
        await #expect { _ = try await watch.next() } throws: { ($0 as? NFCReaderDeviceError)?.code == .busy }
        await #expect { _ = try await NFCCardSession.start(connection: emulator.connectionString) } throws: {
            ($0 as? NFCReaderError)?.code == .readerSessionInvalidationErrorSystemIsBusy
        }
        await session.invalidate()
    }
}
