import Foundation
import LibNFC
import NDEF
import NFCCore
import NFCTags
import NFCTestSupport
import Testing
import VirtualTags

/// The write tearing sweep through real libnfc and the PN532 emulator: the whole sequence a user
/// runs (poll, `NFCTag.connect`, writeNDEF) cut after each command the emulator's field carries
/// (`--leave-after k`) and inside each (`--leave-during k`: the tag acts, its answer is lost and
/// the PN532 reports a timeout). The tag file the emulator kept is then read in the simulator.
@Suite("Tearing through real libnfc and the PN532 emulator", .tags(.endToEnd, .emulator), .serialized, .timeLimit(.minutes(15)))
struct TearingThroughLibNFCTests {
    static func url(_ text: String) throws -> NDEFMessage {
        NDEFMessage(records: [try NDEFPayload.wellKnownTypeURIPayload(url: text)])
    }

    /// Runs connect + writeNDEF(`message`) through libnfc on an emulator hosting the tag in
    /// `file` with `fault` (`--leave-after k` or `--leave-during k`, or none); true when it
    /// completed.
    static func write(_ message: NDEFMessage, model: String, file: String, fault: [String]) async throws -> Bool {
        let emulator = try await EmulatorProcess.start(["--tag", "\(model):\(file)"] + fault)
        defer { emulator.stop() }
        let reader = try await LibNFCReader.open(emulator.connectionString)
        defer { Task { await reader.close() } }
        do {
            guard let target = try await reader.poll(for: [.iso14443A, .jewel], timeout: .seconds(2)) else { return false }
            let tag = try await NFCTag.connect(to: target, on: reader)
            guard try await reader.poll(for: [.iso14443A, .jewel], timeout: .seconds(2)) != nil else { return false }
            try await tag.ndef.writeNDEF(message)
            await reader.close()
            return true
        } catch {
            await reader.close()
            return false
        }
    }

    /// The message the tag in `file` holds, read in the simulator; "old", "empty", "new" or
    /// "corrupt: …".
    static func classify(_ file: String, old: NDEFMessage, new: NDEFMessage) async throws -> String {
        let tag = try TagFile(path: file).loadTag()
        let reader = SimulatedReader(tags: [tag], emptyFieldWait: .zero)
        let target = try #require(try await reader.poll(for: Modulation.allCases, timeout: .zero))
        do {
            let read = try await NFCTag.connect(to: target, on: reader).ndef.readNDEF()
            return read == old ? "old" : read == .empty ? "empty" : read == new ? "new" : "corrupt: \(read)"
        } catch {
            return "corrupt: \(error)"
        }
    }

    @Test("writeNDEF through libnfc, cut after and inside every command: old, empty or new", arguments: [
        ("ntag215", "https://example.com/old-message", "https://example.org/" + String(repeating: "n", count: 40)),
        ("type4", "https://example.com/old-message", "https://example.org/" + String(repeating: "n", count: 40)),
        ("topaz96", "https://example.com/old-message", "https://example.org/" + String(repeating: "n", count: 40)),
    ])
    func sweep(model: String, old: String, new: String) async throws {
        let oldMessage = try Self.url(old), newMessage = try Self.url(new)
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let initial = directory.appendingPathComponent("initial.json").path
        #expect(try await Self.write(oldMessage, model: model, file: initial, fault: []))
        let initialData = try Data(contentsOf: URL(fileURLWithPath: initial))
        let run = directory.appendingPathComponent("run.json").path

        // Cut after command k for k = 1, 2, … until the sequence completes: that k is its length.
        var outcomes: [String: Int] = [:]
        var total = 0
        for k in 1...400 {
            try initialData.write(to: URL(fileURLWithPath: run))
            let completed = try await Self.write(newMessage, model: model, file: run, fault: ["--leave-after", "\(k)"])
            let outcome = try await Self.classify(run, old: oldMessage, new: newMessage)
            #expect(!outcome.hasPrefix("corrupt"), "\(model) after command \(k): \(outcome)")
            outcomes[outcome, default: 0] += 1
            if completed {
                #expect(outcome == "new")
                total = k
                break
            }
        }
        #expect(total > 5, "the sequence never completed")
        // Inside each command: the tag acts, the answer is lost; never reported as done.
        for k in 1...max(total, 1) {
            try initialData.write(to: URL(fileURLWithPath: run))
            let completed = try await Self.write(newMessage, model: model, file: run, fault: ["--leave-during", "\(k)"])
            #expect(!completed, "\(model) inside command \(k) reported success")
            let outcome = try await Self.classify(run, old: oldMessage, new: newMessage)
            #expect(!outcome.hasPrefix("corrupt"), "\(model) inside command \(k): \(outcome)")
            outcomes[outcome, default: 0] += 1
        }
        print("tearing sweep \(model) through libnfc, \(total) commands, \(2 * total) cut points: \(outcomes.sorted { $0.key < $1.key })")
        #expect(outcomes["new", default: 0] >= 2)
        #expect(outcomes["empty", default: 0] >= 1)
        #expect(outcomes["old", default: 0] >= 1)
    }
}
