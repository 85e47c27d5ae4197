import NFCCore
import NFCTags
import NFCTestSupport
import Testing

/// The default `NFCReader.waitForRemoval(timeout:checkInterval:)`, for readers that are not told
/// when a tag leaves (libnfc, the simulator): it asks `isTargetPresent()` again and again.
@Suite("waiting for a tag to leave by checking its presence (the default)", .timeLimit(.minutes(1)))
struct WaitForRemovalTests {
    static let target = TargetInfo.iso14443A(ISO14443ATarget(uid: [4, 1, 2, 3, 4, 5, 6], atqa: [0x44, 0x00], sak: 0x00))

    static func selectedReader() async throws -> ScriptedReader {
        let reader = ScriptedReader(script: [], target: target)
        #expect(try await reader.poll(for: [.iso14443A], timeout: .zero) == target)
        return reader
    }

    @Test("a tag that stays: stillPresent once the timeout has passed")
    func staysUntilTimeout() async throws {
        let reader = try await Self.selectedReader()
        #expect(await reader.waitForRemoval(timeout: .milliseconds(30), checkInterval: .milliseconds(5)) == .stillPresent)
    }

    @Test("a tag already gone: removed at the first check, long before the timeout")
    func goneAtOnce() async throws {
        let reader = try await Self.selectedReader()
        await reader.removeTag()
        #expect(await reader.waitForRemoval(timeout: .seconds(600), checkInterval: .milliseconds(5)) == .removed)
    }

    @Test("a tag taken away during the wait: removed")
    func takenAwayDuringWait() async throws {
        let reader = try await Self.selectedReader()
        let waiting = Task { await reader.waitForRemoval(timeout: .seconds(600), checkInterval: .milliseconds(5)) }
        await reader.removeTag()
        #expect(await waiting.value == .removed)
    }

    @Test("cancelling the waiting task: cancelled, the tag still there")
    func cancelled() async throws {
        let reader = try await Self.selectedReader()
        let waiting = Task { await reader.waitForRemoval(timeout: .seconds(600), checkInterval: .milliseconds(5)) }
        waiting.cancel()
        #expect(await waiting.value == .cancelled)
        #expect(await reader.isTargetPresent())
    }

    @Test("a reader that wraps another (tracing) passes the wait on: the base's answer")
    func tracingPassesOn() async throws {
        let base = try await Self.selectedReader()
        let tracing = await TracingReader(base)
        await base.removeTag()
        #expect(await tracing.waitForRemoval(timeout: .seconds(600), checkInterval: .milliseconds(5)) == .removed)
    }
}
