import Foundation
import NFCTestSupport
import NFCToolCore
import Testing

/// A tag image whose memory lies (`Tests/Fixtures/hostile/*.json`, made by `make-images.py`
/// there) and the exit status every command must end with on it (docs/robustness.md).
struct HostileImage: Sendable, CustomTestStringConvertible {
    /// The file name without `.json`.
    let name: String
    /// The model the tag file holds.
    let model: String
    /// Exit status per command key (``HostileTagTests/commands``).
    let expected: [String: Int32]
    /// Whether a PN532 can talk to the chip (not ISO 15693).
    var throughEmulator: Bool { model != "slix2" }
    var testDescription: String { name }

    /// The byte ranges of the tag file's `memory` that are the chip's user (NDEF) memory: a
    /// successful write may change these and nothing else.
    var userMemory: [Range<Int>] {
        switch model {
        case "ntag213": [16..<160]
        case "ultralight-c", "ultralight-aes": [16..<160]  // pages 04h-27h on both (UltralightCMemory, UltralightAESMemory)
        case "type4": [0..<2048]
        case "felica-lite-s": [0..<224]
        case "classic1k": (1..<16).map { ($0 * 64)..<($0 * 64 + 48) }
        case "slix2": [0..<316]  // block 79 is the SLIX2's counter
        // Type 1: the CC is ordinary memory in block 1 (erase and format rewrite a lying one).
        case "topaz96": [8..<104]
        case "topaz512": [8..<104, 128..<512]
        default: []
        }
    }
}

/// Every tag command against every hostile image, through the simulator (in process) and
/// through the built nfctool, real libnfc and the PN532 emulator: each ends with the documented
/// exit status, within a bounded number of tag commands, and never writes outside the chip's
/// user memory; a refused write leaves the tag file untouched (nothing was sent).
@Suite("Hostile tag images: every command through the simulator and through libnfc", .tags(.endToEnd, .emulator), .timeLimit(.minutes(4)))
struct HostileTagTests {
    /// `Tests/Fixtures/hostile`.
    static let fixtures = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/hostile", isDirectory: true)

    /// The commands, by key, in the order they run.
    static let commands: [(key: String, arguments: [String])] = [
        ("read", ["read"]),
        ("info", ["info"]),
        ("dump", ["dump"]),
        ("scan", ["scan"]),
        ("verify", ["verify", "--expect-url", "https://www.example.com"]),
        ("write", ["write", "--url", "https://x.example"]),
        ("write-big", ["write", "--url", "https://x.example/" + String(repeating: "a", count: 3000)]),
        ("format", ["format", "--yes"]),
        ("lock", ["lock", "--yes"]),
        ("erase", ["erase"]),
    ]

    /// Statuses: 0 success, 4 no NDEF, 5 read-only, 6 too big, 8 mismatch, 10 unsupported,
    /// 11 holds data, 65 malformed tag data. Inspection (info, dump, scan) succeeds and says
    /// what is wrong; verify reports the fault as its finding (8).
    static func statuses(
        read: Int32, verify: Int32 = 8, write: Int32, big: Int32, format: Int32, lock: Int32, erase: Int32
    ) -> [String: Int32] {
        ["read": read, "info": 0, "dump": 0, "scan": 0, "verify": verify, "write": write, "write-big": big,
         "format": format, "lock": lock, "erase": erase]
    }

    static let images: [HostileImage] = [
        HostileImage(name: "t2-cc-past-chip", model: "ntag213",
                     expected: statuses(read: 65, write: 65, big: 65, format: 65, lock: 65, erase: 65)),
        HostileImage(name: "t2-tlv-length-65534", model: "ntag213",
                     expected: statuses(read: 65, write: 65, big: 65, format: 11, lock: 65, erase: 65)),
        HostileImage(name: "t2-tlvs-never-end", model: "ntag213",
                     expected: statuses(read: 65, write: 65, big: 65, format: 65, lock: 65, erase: 65)),
        HostileImage(name: "t2-control-tlvs-outside", model: "ntag213",
                     expected: statuses(read: 0, verify: 0, write: 0, big: 6, format: 11, lock: 0, erase: 0)),
        HostileImage(name: "t2-record-past-tlv", model: "ntag213",
                     expected: statuses(read: 65, write: 0, big: 6, format: 11, lock: 0, erase: 0)),
        HostileImage(name: "t2-chunks-without-end", model: "ntag213",
                     expected: statuses(read: 65, write: 0, big: 6, format: 11, lock: 0, erase: 0)),
        HostileImage(name: "t2-tlv-past-data-area", model: "ntag213",
                     expected: statuses(read: 65, write: 65, big: 65, format: 11, lock: 65, erase: 65)),
        HostileImage(name: "t4-cc-ffff-file", model: "type4",
                     expected: statuses(read: 65, write: 0, big: 65, format: 11, lock: 10, erase: 0)),
        HostileImage(name: "t4-nlen-past-file", model: "type4",
                     expected: statuses(read: 65, write: 65, big: 65, format: 65, lock: 10, erase: 65)),
        HostileImage(name: "t3-nmaxb-absurd", model: "felica-lite-s",
                     expected: statuses(read: 65, write: 65, big: 65, format: 11, lock: 65, erase: 65)),
        HostileImage(name: "t3-bad-checksum", model: "felica-lite-s",
                     expected: statuses(read: 4, write: 4, big: 4, format: 11, lock: 4, erase: 4)),
        HostileImage(name: "classic-mad-all-ndef", model: "classic1k",
                     expected: statuses(read: 65, write: 65, big: 65, format: 11, lock: 65, erase: 65)),
        HostileImage(name: "classic-mad2-on-1k", model: "classic1k",
                     expected: statuses(read: 65, write: 65, big: 65, format: 11, lock: 65, erase: 65)),
        HostileImage(name: "t1-cc-past-chip", model: "topaz512",
                     expected: statuses(read: 0, verify: 0, write: 0, big: 6, format: 11, lock: 0, erase: 0)),
        HostileImage(name: "t1-tlv-past-area", model: "topaz96",
                     expected: statuses(read: 65, write: 65, big: 65, format: 11, lock: 65, erase: 65)),
        HostileImage(name: "t5-mlen-huge", model: "slix2",
                     expected: statuses(read: 65, write: 65, big: 65, format: 11, lock: 65, erase: 65)),
        HostileImage(name: "t5-cc-past-chip", model: "slix2",
                     expected: statuses(read: 0, verify: 0, write: 0, big: 6, format: 11, lock: 0, erase: 0)),
    ]

    /// The most tag commands one command may send to a hostile tag (the simulator's tag leaves
    /// the field after this many, which would end the command with exit 7).
    static let commandBound = 400

    /// A fresh copy of `image` in a new temporary directory.
    static func copy(_ image: HostileImage) throws -> (directory: URL, file: URL, original: [String: Any]) {
        let directory = try temporaryDirectory()
        let file = directory.appendingPathComponent(image.name + ".json")
        try FileManager.default.copyItem(at: fixtures.appendingPathComponent(image.name + ".json"), to: file)
        return (directory, file, try state(file))
    }

    static func state(_ file: URL) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
    }

    static func memory(_ state: [String: Any]) -> [UInt8] {
        memory(hex: (state["memory"] as? String) ?? "")
    }

    static func memory(hex text: String) -> [UInt8] {
        let hex = Array(text.utf8)
        return stride(from: 0, to: hex.count - 1, by: 2).compactMap { UInt8(String(decoding: hex[$0...($0 + 1)], as: UTF8.self), radix: 16) }
    }

    /// Nothing changed when the command failed; only user memory changed when it wrote (lock
    /// changes lock bits and access bytes by design and is checked by its own status only).
    static func checkWrites(_ image: HostileImage, command: String, status: Int32, before: [String: Any], after: [String: Any]) {
        let old = memory(before), new = memory(after)
        #expect(old.count == new.count, "\(image.name) \(command): memory size changed")
        let changed = zip(old, new).enumerated().filter { $0.element.0 != $0.element.1 }.map(\.offset)
        for key in Set(before.keys).union(after.keys) where key != "memory" {
            #expect("\(before[key] ?? "nil")" == "\(after[key] ?? "nil")", "\(image.name) \(command): \(key) changed")
        }
        if status != 0 {
            #expect(changed.isEmpty, "\(image.name) \(command) exited \(status) but changed bytes \(changed.prefix(8))")
        } else if command != "lock" {
            let outside = changed.filter { address in !image.userMemory.contains { $0.contains(address) } }
            #expect(outside.isEmpty, "\(image.name) \(command) wrote outside user memory at \(outside.prefix(8))")
        }
    }

    @Test("every command on each hostile image through the simulator: documented status, bounded, no write outside user memory",
          .serialized, arguments: images)
    func throughSimulator(_ image: HostileImage) async throws {
        for (key, arguments) in Self.commands {
            let (directory, file, before) = try Self.copy(image)
            defer { try? FileManager.default.removeItem(at: directory) }
            let io = CapturedIO()
            let device = "sim:?file=\(file.path)&leave-after=\(Self.commandBound)&poll-wait=0"
            let status = await runTool(arguments: arguments + ["--device", device, "--timeout", "2"], environment: [:], io: io)
            #expect(status.rawValue == image.expected[key], "\(image.name) \(key): \(io.standardOutput)\(io.standardError)")
            Self.checkWrites(image, command: key, status: status.rawValue, before: before, after: try Self.state(file))
        }
    }

    /// Trace lines of frames carrying a write-class command: Type 2 WRITE `A2`, Classic WRITE /
    /// COMPATIBILITY_WRITE `A0`, UPDATE BINARY `D6`, FeliCa Write Without Encryption `08`
    /// (InCommunicateThru: length, then the command code).
    static func writeFrames(_ trace: [String]) -> [String] {
        trace.filter {
            $0.contains("> D4 40 01 A2 ") || $0.contains("> D4 40 01 A0 ") || $0.contains("> D4 40 01 00 D6 ")
                || $0.range(of: #"> D4 42 [0-9A-F]{2} 08 "#, options: .regularExpression) != nil
        }
    }

    /// What one command left behind, through libnfc and the emulator.
    struct EmulatorRun: Sendable {
        let key: String
        let run: ToolRun
        let commandFrames: Int
        let writeFrames: [String]
        let before: [String: String]
        let after: [String: String]
    }

    /// Runs every command on a fresh copy of `image` in a fresh emulator, two at a time (two
    /// lanes, each awaiting its commands one after another).
    static func runThroughEmulator(_ image: HostileImage, tool: String) async throws -> [EmulatorRun] {
        @Sendable func lane(_ first: Int) async throws -> [EmulatorRun] {
            var runs: [EmulatorRun] = []
            for index in stride(from: first, to: commands.count, by: 2) { runs.append(try await runOne(image, commands[index], tool: tool)) }
            return runs
        }
        async let even = lane(0)
        async let odd = lane(1)
        return try await even + odd
    }

    /// One command on a fresh copy of `image` in a fresh emulator.
    static func runOne(_ image: HostileImage, _ command: (key: String, arguments: [String]), tool: String) async throws -> EmulatorRun {
        let (directory, file, before) = try copy(image)
        defer { try? FileManager.default.removeItem(at: directory) }
        let emulator = try await EmulatorProcess.start(["--tag", "\(image.model):\(file.path)"])
        defer { emulator.stop() }
        var environment = emulator.libnfcEnvironment
        environment["LIBNFC_LOG_LEVEL"] = "0"
        let run = try await runTool(
            tool, command.arguments + ["--device", emulator.connectionString, "--timeout", "3"], environment: environment, timeout: 20)
        let trace = emulator.trace
        emulator.stop()
        return EmulatorRun(
            key: command.key, run: run, commandFrames: trace.filter { $0.contains("> D4 ") }.count, writeFrames: writeFrames(trace),
            before: before.mapValues { "\($0)" }, after: try state(file).mapValues { "\($0)" })
    }

    @Test("every command on each hostile image through nfctool, real libnfc and the PN532 emulator",
          .serialized, arguments: images.filter(\.throughEmulator))
    func throughLibNFC(_ image: HostileImage) async throws {
        let tool = try #require(Executables.built("nfctool"), "nfctool is not built")
        for result in try await Self.runThroughEmulator(image, tool: tool.path) {
            let (key, run) = (result.key, result.run)
            #expect(!run.timedOut, "\(image.name) \(key) did not end on its own")
            #expect(run.status == image.expected[key], "\(image.name) \(key): \(run.output)")
            #expect(result.commandFrames <= Self.commandBound, "\(image.name) \(key): \(result.commandFrames) PN532 commands")
            if run.status != 0 {
                #expect(result.writeFrames.isEmpty, "\(image.name) \(key) exited \(run.status) after write commands")
            }
            Self.checkWrites(image, command: key, status: run.status, before: result.before, after: result.after)
        }
    }
}
