import Foundation
import LibNFC
import NFCCore
import NFCTags
import NFCTestSupport
import Testing
import VirtualTags

/// The check before a write that one tag only is in the field (``NFCReader/tagsInField(with:limit:)``)
/// starts from the tag the poll selected: through libnfc and the PN532 emulator it halts that
/// tag and lists the rest (asking by UID for tags this reader halted before), with no poll of
/// its own and no field off and on; the simulator lists its field without polling.
@Suite("The two-tag check starts from the tag the poll selected", .tags(.endToEnd, .emulator), .serialized, .timeLimit(.minutes(5)))
struct TwoTagsCheckThroughLibNFCTests {
    /// The PN532 commands the emulator received from line `start` of its trace on.
    static func commands(_ emulator: EmulatorProcess, from start: Int) -> [String] {
        emulator.trace.dropFirst(start).compactMap { line in
            let parts = line.split(separator: " ", maxSplits: 2).map(String.init)
            return parts.count == 3 && parts[1] == ">" && parts[2] != "ACK" && parts[2] != "NACK" ? parts[2] : nil
        }
    }

    /// The 7-byte UID of the tag the reader's commands go to, as READ of pages 0-3 answers it
    /// (UID0-2, BCC0, UID3-6).
    static func selectedUID(_ reader: any NFCReader) async throws -> [UInt8] {
        let pages = try await reader.transceive(Bytes([0x30, 0x00])).array
        return pages.count >= 8 ? Array(pages[0..<3] + pages[4..<8]) : pages
    }

    static func uid(_ target: TargetInfo) -> [UInt8] {
        guard case .iso14443A(let a) = target else { return [] }
        return a.uid.array
    }

    @Test("one tag: InDeselect and one InListPassiveTarget, which selects it again; no poll before them, no field off and on; the tag answers after")
    func oneTag() async throws {
        let emulator = try await EmulatorProcess.start(["--tag", "ntag215"])
        defer { emulator.stop() }
        let reader = try await LibNFCReader.open(emulator.connectionString)
        let target = try #require(try await reader.poll(for: [.iso14443A], timeout: .seconds(1)))
        let start = emulator.trace.count
        let inField = try await reader.tagsInField(with: target, limit: 2)
        #expect(inField == [target])
        #expect(Self.commands(emulator, from: start) == ["D4 44 00", "D4 4A 01 00"])
        #expect(try await Self.selectedUID(reader) == Self.uid(target))
        await reader.close()
    }

    @Test("a second tag in the field, awake: found after the first is halted; the first is selected again by its UID; no field off and on")
    func secondTagAwake() async throws {
        let emulator = try await EmulatorProcess.start(["--tag", "ntag215+ntag213"])
        defer { emulator.stop() }
        let reader = try await LibNFCReader.open(emulator.connectionString)
        let target = try #require(try await reader.poll(for: [.iso14443A], timeout: .seconds(1)))
        let start = emulator.trace.count
        let inField = try await reader.tagsInField(with: target, limit: 2)
        #expect(inField.count == 2 && inField.first == target && inField.last?.identifier != target.identifier)
        let commands = Self.commands(emulator, from: start)
        #expect(!commands.contains { $0.hasPrefix("D4 32 01") }, "the field was switched off or on: \(commands)")
        #expect(try await Self.selectedUID(reader) == Self.uid(target))
        await reader.close()
    }

    @Test("a second tag this reader halted before, which answers no listing while another tag does: asked for by its UID, two tags")
    func secondTagHalted() async throws {
        let emulator = try await EmulatorProcess.start(["--tag", "ntag215+ntag213"])
        defer { emulator.stop() }
        let reader = try await LibNFCReader.open(emulator.connectionString)
        let first = try #require(try await reader.poll(for: [.iso14443A], timeout: .seconds(1)))
        try await reader.deselect()
        // The first is halted: the other answers.
        let second = try #require(try await reader.poll(for: [.iso14443A], timeout: .seconds(1)))
        #expect(second.identifier != first.identifier)
        try await reader.deselect()
        // Both halted: the firmware wakes them and takes the first of the field again; the
        // second stays halted, and halting the first and listing would find the first again.
        let again = try #require(try await reader.poll(for: [.iso14443A], timeout: .seconds(1)))
        #expect(again == first)
        let start = emulator.trace.count
        let inField = try await reader.tagsInField(with: again, limit: 2)
        #expect(inField.map(\.identifier) == [first.identifier, second.identifier])
        let commands = Self.commands(emulator, from: start)
        #expect(!commands.contains { $0.hasPrefix("D4 32 01") }, "the field was switched off or on: \(commands)")
        #expect(try await Self.selectedUID(reader) == Self.uid(first))
        await reader.close()
    }

    @Test("the simulator lists its field from the selected tag without polling again; the selected tag still takes the commands")
    func simulatorDoesNotPollAgain() async throws {
        let a = NTAG21xTag(.ntag215, uid: [0x04, 0xB1, 0, 0, 0, 0, 0x01])
        let b = NTAG21xTag(.ntag213, uid: [0x04, 0xB2, 0, 0, 0, 0, 0x02])
        let identifiers = [a.targetInfo.identifier, b.targetInfo.identifier]
        let reader = SimulatedReader(field: VirtualField(groups: [[a, b]]), emptyFieldWait: .zero)
        let target = try #require(try await reader.poll(for: [.iso14443A], timeout: .zero))
        let polls = await reader.pollCount
        #expect(try await reader.tagsInField(with: target, limit: 2).map(\.identifier) == identifiers)
        #expect(await reader.pollCount == polls)
        // The selected tag still answers.
        #expect(try await Self.selectedUID(reader) == Self.uid(target))
    }
}
