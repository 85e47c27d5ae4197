import Foundation
import LibNFC
import NDEF
import NFCCore
import NFCTags
import NFCTestSupport
import Provisioning
import Testing
import VirtualTags

/// Batch provisioning through real libnfc and the PN532 emulator handing out a stack of
/// stickers: each deselect takes the tag away and brings the next, as an operator would.
@Suite("Batch provisioning through real libnfc and the PN532 emulator", .tags(.endToEnd, .emulator), .serialized, .timeLimit(.minutes(10)))
struct BatchThroughLibNFCTests {
    @Test("a stack of 5 NTAG215 in tag files: each written, verified and recorded; the files hold exactly the ledger's data")
    func stack() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let tags = directory.appendingPathComponent("tags").path
        let emulator = try await EmulatorProcess.start(["--tag", "ntag215*5:\(tags)", "--hand-out", "deselect"])
        defer { emulator.stop() }
        let reader = try await LibNFCReader.open(emulator.connectionString)
        let ledger = try Ledger(path: directory.appendingPathComponent("ledger.db").path)
        let template = try ProvisioningTemplate("https://ex.io/t/{uid}?n={n:04}")
        let coordinator = try BatchCoordinator(
            ledger: ledger, runID: try ledger.startRun(template: template.text, manifest: nil, readers: [emulator.connectionString]),
            source: .template(usesCounter: true, start: 1) { uid, n in
                NDEFMessage(records: [try .wellKnownTypeURIPayload(url: template.render(uid: uid, counter: n))])
            },
            options: BatchOptions(count: 5))
        await BatchWorker(reader: reader, coordinator: coordinator, events: { _ in }).run()
        await reader.close()
        emulator.stop()
        #expect(await coordinator.summary.done == 5)
        let attempts = try ledger.attempts()
        #expect(attempts.count == 5 && attempts.allSatisfy { $0.status == "done" })
        // Every tag file holds exactly what the ledger says it got.
        for attempt in attempts {
            let file = TagFile(path: tags + "/" + attempt.uid.lowercased() + ".json")
            let tag = try file.loadTag()
            let check = SimulatedReader(tags: [tag], emptyFieldWait: .zero)
            let target = try #require(try await check.poll(for: [.iso14443A], timeout: .zero))
            let read = try await NFCTag.connect(to: target, on: check).ndef.readNDEF()
            let expected = "https://ex.io/t/\(attempt.uid)?n=" + String(format: "%04d", attempt.counter ?? -1)
            #expect(read == NDEFMessage(records: [try .wellKnownTypeURIPayload(url: expected)]))
        }
    }

    /// docs/benchmarks.md, from this file.
    static let benchmarksPath = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("docs/benchmarks.md")

    /// The cells of the docs table row whose first cell is `label` (cell 0 is the label).
    static func row(_ label: String, in docs: String) -> [String]? {
        docs.split(separator: "\n").map(String.init).first { $0.hasPrefix("| \(label) |") }
            .map { $0.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) } }
    }

    @Test("docs/benchmarks.md's batch figures are this trace's: tag commands per tag at the seam, PN532 frames per tag in the emulator trace")
    func batchFiguresMatchDocs() async throws {
        let tags = 5
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let emulator = try await EmulatorProcess.start(["--tag", "ntag215*\(tags)", "--hand-out", "deselect"])
        defer { emulator.stop() }
        let reader = try await Self.benchmarkBatch(tags: tags, through: emulator, in: directory)
        let commands = await reader.commands.count
        // PN532 frames as Scripts/bench-batch counts them: InDataExchange, InCommunicateThru and
        // InListPassiveTarget commands in the emulator's trace.
        let frames = emulator.trace.filter { $0.contains("> D4 40") || $0.contains("> D4 42") || $0.contains("> D4 4A") }.count
        #expect(commands % tags == 0, "\(commands) commands for \(tags) tags")
        let commandsPerTag = commands / tags
        // One poll per tag plus its exchanges and the two-tag check's listings; the first tag
        // has no tag halted before it to ask for by UID, and a run may end with one empty poll.
        let framesPerTag = Int((Double(frames) / Double(tags)).rounded())
        #expect(abs(frames - framesPerTag * tags) <= 1, "\(frames) frames for \(tags) tags")

        let docs = try String(contentsOf: Self.benchmarksPath, encoding: .utf8)
        for label in ["NFCKit, in-process simulator, 1 reader", "NFCKit, in-process simulator, 4 readers",
                      "NFCKit, libnfc + PN532 emulator, 1 reader", "NFCKit, libnfc + PN532 emulator, 4 readers"] {
            let cells = try #require(Self.row(label, in: docs), "docs/benchmarks.md has no row '\(label)'")
            #expect(cells.count >= 7 && Double(cells[4]) == Double(commandsPerTag),
                    "docs/benchmarks.md says \(cells.count > 4 ? cells[4] : "?") tag commands per tag for '\(label)'; the trace has \(commandsPerTag)")
        }
        let one = try #require(Self.row("NFCKit, libnfc + PN532 emulator, 1 reader", in: docs))
        #expect(one.count >= 7 && Double(one[5]) == Double(framesPerTag),
                "docs/benchmarks.md says \(one.count > 5 ? one[5] : "?") PN532 frames per tag; the trace has \(framesPerTag)")
        #expect(docs.contains("(verification): \(commandsPerTag), against"), "the prose after the batch table names another count than \(commandsPerTag)")
        #expect(docs.contains("PN532 frames per tag: NFCKit \(framesPerTag).0 vs"), "the batch summary names another frame count than \(framesPerTag)")
    }
    /// The benchmark's batch (Scripts/bench-batch: a counter template, 40 bytes filled in) of
    /// `tags` tags through libnfc and `emulator`, with a ledger in `directory`; every tag done.
    /// Returns the closed tracing reader, whose commands are the seam's.
    static func benchmarkBatch(tags: Int, through emulator: EmulatorProcess, in directory: URL) async throws -> TracingReader {
        let reader = await TracingReader(try await LibNFCReader.open(emulator.connectionString))
        let ledger = try Ledger(path: directory.appendingPathComponent("ledger.db").path)
        let template = try ProvisioningTemplate("https://example.com/t/{uid}?n={n:05}")
        let coordinator = try BatchCoordinator(
            ledger: ledger, runID: try ledger.startRun(template: template.text, manifest: nil, readers: [emulator.connectionString]),
            source: .template(usesCounter: true, start: 1) { uid, n in
                NDEFMessage(records: [try .wellKnownTypeURIPayload(url: template.render(uid: uid, counter: n))])
            },
            options: BatchOptions(count: tags))
        await BatchWorker(reader: reader, coordinator: coordinator, events: { _ in }).run()
        await reader.close()
        #expect(await coordinator.summary.done == tags)
        return reader
    }

    /// The modelled delay of each PN532 command in an emulator trace (`--delay-model
    /// datasheet`): the command's hex and the `# delay X ms` note written before its answer.
    static func modelledCommands(_ trace: [String]) -> [(command: String, milliseconds: Double)] {
        var pairs: [(String, Double)] = []
        var command: String?
        for line in trace {
            let parts = line.split(separator: " ", maxSplits: 2).map(String.init)
            guard parts.count == 3 else { continue }
            if parts[1] == ">", parts[2] != "ACK", parts[2] != "NACK" { command = parts[2] }
            if parts[1] == "#", parts[2].hasPrefix("delay "), let pending = command,
               let value = Double(parts[2].split(separator: " ")[1]) {
                pairs.append((pending, value))
                command = nil
            }
        }
        return pairs
    }

    @Test("a verified NTAG215 batch write with the datasheet delay model: the exact per-tag commands and bytes, and the modelled time and floor docs/benchmarks.md shows")
    func delayModelTrace() async throws {
        let tags = 4
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let emulator = try await EmulatorProcess.start(["--tag", "ntag215*\(tags)", "--hand-out", "deselect", "--delay-model", "datasheet"])
        defer { emulator.stop() }
        let reader = try await Self.benchmarkBatch(tags: tags, through: emulator, in: directory)

        // At the seam, per tag: GET_VERSION; FAST_READ 0-4 (detection before the claim, which
        // the write starts from: lock bytes, CC and the blank tag's `03 00` on page 4; the write
        // reads none of the pages it overwrites); FAST_READ of exactly CFG0/CFG1 (password
        // check); WRITE pages 5-14 (the blank tag's L = 0 on page 4 reads as an empty message
        // meanwhile: tear safety), page 4 with L; FAST_READ of exactly the written pages 4-14.
        // (command prefix, command bytes, answer bytes)
        var expected: [(String, Int, Int)] = [("60", 1, 8), ("3A 00 04", 3, 20), ("3A 83 84", 3, 8)]
        for page in 5...14 { expected.append(("A2 " + Hex.encode([UInt8(page)], uppercase: true), 6, 0)) }
        expected += [("A2 04", 6, 0), ("3A 04 0E", 3, 44)]
        let commands = await reader.commands
        #expect(commands.count == tags * expected.count, "\(commands.count) commands for \(tags) tags")
        for (index, traced) in commands.enumerated() {
            let (prefix, length, answer) = expected[index % expected.count]
            let hex = Hex.encode(traced.command.array, uppercase: true, separator: " ")
            #expect(hex.hasPrefix(prefix) && traced.command.count == length, "command \(index): \(hex), expected \(prefix)… of \(length) bytes")
            #expect((try? traced.result.get().count) == answer, "command \(index) (\(hex)): answer \(traced.result), expected \(answer) bytes")
        }

        // PN532 frames: one tag's frames run from the release after one verify to the release
        // after the next; each priced by the emulator's delay note.
        let pairs = Self.modelledCommands(emulator.trace)
        let releases = pairs.indices.filter { $0 > 0 && pairs[$0].command == "D4 44 00" && pairs[$0 - 1].command == "D4 40 01 3A 04 0E" }
        #expect(releases.count == tags)
        var perTag: [Double] = []
        var framesPerTag: [Int] = []
        for (a, b) in zip(releases, releases.dropFirst()) {
            perTag.append(pairs[(a + 1)...b].map(\.milliseconds).reduce(0, +))
            framesPerTag.append(b - a)
        }
        #expect(Set(perTag).count == 1, "tags priced differently: \(perTag)")
        #expect(Set(framesPerTag) == [20], "PN532 commands per tag: \(framesPerTag)")
        let poll = try #require(pairs.first { $0.command.hasPrefix("D4 4A") && $0.milliseconds > 3 }).milliseconds
        let write = try #require(pairs.first { $0.command.hasPrefix("D4 40 01 A2") }).milliseconds
        let verify = try #require(pairs.first { $0.command == "D4 40 01 3A 04 0E" }).milliseconds
        let floor = poll + 11 * write + verify
        let modelled = try #require(perTag.first)

        // docs/benchmarks.md's delay-model row: the modelled ms/tag and the floor are these.
        let docs = try String(contentsOf: Self.benchmarksPath, encoding: .utf8)
        let row = try #require(docs.split(separator: "\n").map(String.init).first { $0.hasPrefix("| \(Self.delayModelTags) |") },
                               "docs/benchmarks.md has no delay-model row")
        let cells = row.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(cells.count >= 7 && cells[2] == String(format: "%.1f", modelled) && cells[3] == String(format: "%.1f", floor),
                "docs/benchmarks.md's delay-model row \(cells) says other than modelled \(modelled) ms/tag, floor \(floor) ms")
    }

    /// The tags of `Scripts/bench-batch`'s delay-model run (its DELAY_TAGS).
    static let delayModelTags = 50
}
