import Foundation
import NDEF
import NFCCore
import NFCKit
import NFCTags
import NFCTestSupport
import Testing
@testable import NFCToolCore

/// ``PlanningReader``: every platform's write-class commands are held back and answered, reads
/// pass through; asserted with a ``TracingReader`` underneath (what really reached the reader)
/// and through libnfc with the PN532 emulator's frame trace.
@Suite("PlanningReader: --plan sends no write command on any platform", .timeLimit(.minutes(2)))
struct PlanningReaderTests {
    /// `connection` opened, traced, planned, polled and connected.
    static func open(_ connection: String) async throws -> (NFCTag, PlanningReader, TracingReader) {
        let base = try await ReaderConnection.open(connection)
        let tracer = await TracingReader(base)
        let planner = await PlanningReader(tracer)
        let target = try #require(try await planner.poll(for: ScanCommand.modulations(await planner.supportedModulations), timeout: .seconds(2)))
        let tag = try await NFCTag.connect(to: target, on: planner)
        _ = try await planner.poll(for: [target.modulation], timeout: .seconds(1))
        await tracer.reset()
        return (tag, planner, tracer)
    }

    /// Whether a traced command is a write of its technology.
    static func isWrite(_ command: TracedCommand, _ technology: PlannedWrite.Technology) -> Bool {
        let c = command.command.array
        switch technology {
        case .type1: return c.first.map { [0x53, 0x1A, 0x54, 0x1B].contains($0) } ?? false
        case .type2: return c.first == 0xA2 || (c.first == 0xA0 && c.count == 2)
        case .classic: return c.first == 0xA0
        case .type3: return c.first == 0x08
        case .type4: return c.count > 1 && c[1] == 0xD6
        case .type5: return c.count > 1 && [0x21, 0x22, 0x24, 0x31, 0x32, 0x34].contains(c[1])
        case .desfire: return c.count > 1 && c[0] == 0x90 && [0xCA, 0xCD, 0x3D, 0xDA, 0xFC].contains(c[1])
        }
    }

    @Test("writeNDEF without verify: the writes are planned, none reaches the reader, reads do",
          arguments: [("sim:ntag215", PlannedWrite.Technology.type2), ("sim:type4", .type4), ("sim:felica-lite-s", .type3),
                      ("sim:slix2", .type5), ("sim:topaz512", .type1)])
    func writePlanned(connection: String, technology: PlannedWrite.Technology) async throws {
        let (tag, planner, tracer) = try await Self.open(connection)
        let message = NDEFMessage(records: [try .wellKnownTypeURIPayload(url: "https://example.com")])
        try await tag.ndef.writeNDEF(message, verify: false)
        let planned = await planner.writes
        #expect(!planned.isEmpty)
        #expect(planned.allSatisfy { $0.technology == technology })
        let reached = await tracer.commands
        #expect(!reached.isEmpty)
        #expect(!reached.contains { Self.isWrite($0, technology) })
        // Type 1 and Type 2 reads see the plan laid over them; other platforms' reads see the tag as it is.
        if connection != "sim:type4" {
            let stored = try await tag.ndef.readNDEF()
            #expect(stored == (technology == .type2 || technology == .type1 ? message : .empty))
        }
        await planner.close()
    }

    @Test("lock and format --force on Classic, Type 3 and Type 5: planned, nothing written; irreversible steps marked")
    func lockPlanned() async throws {
        for (connection, technology, irreversible) in [
            ("sim:felica-lite-s", PlannedWrite.Technology.type3, "FeliCa Lite-S MC"),
            ("sim:slix2", .type5, "LOCK BLOCK"),
        ] {
            let (tag, planner, tracer) = try await Self.open(connection)
            do throws(NFCTagError) {
                try await tag.ndef.writeLock()
            } catch {
                // The lock bits were never written, so their read-back cannot show them.
                #expect(error.code == .verificationFailed)
            }
            let planned = await planner.writes
            #expect(!(await tracer.commands).contains { Self.isWrite($0, technology) })
            let steps = planned.map { PlannedWriteDescription($0, profile: nil) }
            #expect(steps.contains { $0.irreversible?.contains(irreversible) == true }, "\(connection)")
            #expect(try await tag.ndef.queryNDEFStatus().status == .readWrite)
            await planner.close()
        }
        let (classic, planner, tracer) = try await Self.open("sim:classic1k")
        try await classic.ndef.format(force: true)
        #expect(!(await tracer.commands).contains { Self.isWrite($0, .classic) })
        #expect(await planner.writes.count > 16)
        await planner.close()
    }

    @Test("lock of a formatted MIFARE Classic: trailers that freeze their access bits are marked irreversible, nothing written")
    func classicLockPlanned() async throws {
        let base = try await ReaderConnection.open("sim:classic1k")
        let tracer = await TracingReader(base)
        let planner = await PlanningReader(tracer)
        let target = try #require(try await planner.poll(for: [.iso14443A], timeout: .seconds(1)))
        // Formatted for real on the reader underneath, then locked through the planner.
        try await NFCTag.connect(to: target, on: base).ndef.format(force: false)
        _ = try await planner.poll(for: [.iso14443A], timeout: .seconds(1))
        let tag = try await NFCTag.connect(to: target, on: planner)
        _ = try await planner.poll(for: [.iso14443A], timeout: .seconds(1))
        await tracer.reset()
        try await LockCommand.lock(tag, planning: true)
        #expect(!(await tracer.commands).contains { Self.isWrite($0, .classic) })
        let steps = await planner.writes.map { PlannedWriteDescription($0, profile: nil) }
        #expect(!steps.isEmpty)
        #expect(steps.allSatisfy { $0.irreversible?.hasPrefix("sector trailer whose access bits") == true })
        #expect(try await tag.ndef.queryNDEFStatus().status == .readWrite)
        await planner.close()
    }

    @Test("Type 2 planned pages are laid over later reads; PWD_AUTH with a planned password is answered, not sent")
    func overlay() async throws {
        let (tag, planner, tracer) = try await Self.open("sim:ntag215")
        guard case .miFare(let miFare) = tag, let type2 = miFare.type2 else { Issue.record("not Type 2"); return }
        let password = try NTAGPassword(hex: "12345678:ABCD")
        try await type2.setPassword(password)
        #expect(!(await tracer.commands).contains { $0.command.first == 0x1B || $0.command.first == 0xA2 })
        #expect(try await type2.readConfiguration().auth0 == 4)
        await planner.close()
    }

    @Test("lock's check after locking: a tag that still reports read-write exits 8, a locked one passes")
    func lockCheck() async throws {
        let base = try await ReaderConnection.open("sim:ntag215")
        let planner = await PlanningReader(base)
        let target = try #require(try await planner.poll(for: [.iso14443A], timeout: .seconds(1)))
        let tag = try await NFCTag.connect(to: target, on: planner)
        _ = try await planner.poll(for: [.iso14443A], timeout: .seconds(1))
        // The lock bits go to the planner only: the tag itself stays writable.
        try await LockCommand.lock(tag, planning: true)
        await #expect(throws: CommandError("after locking, the tag still reports readWrite, not read-only", exitCode: .verifyMismatch)) {
            try await LockCommand.requireReadOnly(after: tag, on: base, password: nil)
        }
        // Done for real, the same check passes.
        let real = try await NFCTag.connect(to: target, on: base)
        _ = try await base.poll(for: [.iso14443A], timeout: .seconds(1))
        try await LockCommand.lock(real, planning: false)
        try await LockCommand.requireReadOnly(after: real, on: base, password: nil)
        await base.close()
    }

    @Test("commands are told apart by the selected target's technology", arguments: [
        ([0xA2, 0x04, 1, 2, 3, 4], "iso14443a", true), ([0x30, 0x04], "iso14443a", false), ([0x3A, 0x21, 0x22], "iso14443a", false),
        ([0x00, 0xD6, 0x00, 0x00, 0x02, 0x00, 0x00], "iso-dep", true), ([0x00, 0xB0, 0x00, 0x00, 0x02], "iso-dep", false),
        ([0x02, 0x21, 0x01, 1, 2, 3, 4], "iso15693", true), ([0x02, 0x20, 0x01], "iso15693", false), ([0x02, 0x2C, 0x00, 0x00], "iso15693", false),
    ] as [([UInt8], String, Bool)])
    func classification(command: [UInt8], technology: String, isWrite: Bool) {
        let target: TargetInfo
        switch technology {
        case "iso14443a": target = .iso14443A(ISO14443ATarget(uid: [4, 1, 2, 3, 4, 5, 6], atqa: [0x44, 0], sak: 0))
        case "iso-dep": target = .iso14443A(ISO14443ATarget(uid: [4, 1, 2, 3, 4, 5, 6], atqa: [0x44, 3], sak: 0x20))
        default: target = .iso15693(ISO15693Target(uid: [0xE0, 4, 1, 0, 0, 0, 0, 1]))
        }
        #expect((PlanningReader.writeClass(command, on: target) != nil) == isWrite)
    }
}
