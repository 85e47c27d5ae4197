import NFCCore
import NFCTags
import NFCTestSupport
import Testing

/// A reader that is told when its tag leaves (as a PC/SC reader is by pcscd): its own
/// `waitForRemoval` answers from an event the test sends, and it counts every presence check,
/// which such a reader must not need while a tag stays.
private actor EventDrivenReader: NFCReader {
    let name = "event-driven"
    let connectionString = "test:event-driven"
    let supportedModulations: [Modulation] = [.iso14443A]
    let target: TargetInfo
    private(set) var presenceChecks = 0
    private(set) var waits: [Duration] = []
    private var present = true

    init(target: TargetInfo) { self.target = target }

    func poll(for modulations: [Modulation], timeout: Duration) async throws(NFCReaderDeviceError) -> TargetInfo? {
        present ? target : nil
    }
    func transceive(_ command: Bytes, mode: TransceiveMode, timeout: Duration) async throws(NFCReaderDeviceError) -> Bytes {
        throw NFCReaderDeviceError(.timeout, "no commands here")
    }
    func authenticateClassic(block: UInt8, keyType: ClassicKeyType, key: Bytes, uid: Bytes) async throws(NFCReaderDeviceError) {}
    func isTargetPresent() async -> Bool {
        presenceChecks += 1
        return present
    }
    func waitForRemoval(timeout: Duration, checkInterval: Duration) async -> RemovalResult {
        waits.append(timeout)
        if !present { return .removed }
        // The event: the tag leaves (or the wait times out, which the test never lets happen
        // in the removal case).
        try? await Task.sleep(for: timeout)
        return present ? .stillPresent : .removed
    }
    func deselect() async throws(NFCReaderDeviceError) {}
    func close() async {}

    func takeAway() { present = false }
}

@Suite("the presence tracker waits in the reader's waitForRemoval while a tag stays", .timeLimit(.minutes(1)))
struct TrackerWaitsForRemovalTests {
    static let target = TargetInfo.iso14443A(ISO14443ATarget(uid: [4, 9, 8, 7, 6, 5, 4], atqa: [0x44, 0x00], sak: 0x00))

    @Test("a tag that stays: one presence check after it is found again, then only the reader's waits; taken away: its departure")
    func staysThenLeaves() async throws {
        let reader = EventDrivenReader(target: Self.target)
        var tracker = TagPresenceTracker(options: .init(pollSlice: .milliseconds(20)))
        let first = try await tracker.step(on: reader, for: [.iso14443A])
        #expect(first.arrival?.identifier == Self.target.identifier)
        await tracker.release(on: reader)
        for _ in 0..<5 {
            let seen = try await tracker.step(on: reader, for: [.iso14443A])
            #expect(seen.arrival == nil && seen.departure == nil)
        }
        // Found again once (one check whether the reader can tell presence), then five slices
        // spent in the reader's own wait rather than in presence checks.
        #expect(await reader.presenceChecks == 1)
        #expect(await reader.waits.count >= 5)
        await reader.takeAway()
        var departed = false
        for _ in 0..<5 where !departed {
            departed = try await tracker.step(on: reader, for: [.iso14443A]).departure?.identifier == Self.target.identifier
        }
        #expect(departed)
        #expect(await reader.presenceChecks == 1, "the departure came from the wait, not from presence checks")
    }
}
