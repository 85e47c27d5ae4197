import NFCCore
import NFCTags
import Testing
import VirtualTags

/// Readers that wrap another (tracing, planning) must not hide what the one underneath can do:
/// a field of two tags lists two tags through them, and selecting the second reaches the second
/// tag (its UID answers READ of page 0), as on the bare simulated reader.
@Suite("Wrapping readers pass several tags on", .timeLimit(.minutes(1)))
struct WrappingReadersTests {
    static let specification = "sim:ntag215+ntag213?poll-wait=20"

    static func wrapped(_ kind: String) async throws -> any NFCReader {
        let base = try SimulatorConfiguration.makeReader(specification)
        switch kind {
        case "tracing": return await TracingReader(base)
        default: return await PlanningReader(base)
        }
    }

    @Test("a tracing or planning reader over sim:A+B lists both tags and selects the second", arguments: ["tracing", "planning"])
    func listsAndSelectsThroughWrapper(kind: String) async throws {
        let reader = try await Self.wrapped(kind)
        let listed = try await reader.listTargets(for: [.iso14443A], limit: 2, timeout: .seconds(2))
        #expect(listed.count == 2)
        let second = try #require(listed.last)
        try await reader.select(second)
        let page0 = try await reader.transceive(Bytes([0x30, 0x00]))
        // Page 0 holds UID0..UID2 and BCC0 (NTAG213/215/216 datasheet §8.5.1).
        #expect(Array(page0.array.prefix(3)) == Array(second.identifier.array.prefix(3)))
        await reader.close()
    }
}
