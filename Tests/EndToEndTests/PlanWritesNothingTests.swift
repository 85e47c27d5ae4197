import Foundation
import NFCTestSupport
import Testing
import VirtualTags

/// The promise of `--plan` on every chip the simulator models, from fresh `nfctool` processes:
/// whatever the command (write, write --lock, format --force, erase, lock) and however it ends,
/// the tag file is byte-identical afterwards. A platform whose write commands the planning
/// reader does not know would send them (as Type 1's were) and fail here.
@Suite("--plan writes nothing on any simulated chip", .tags(.endToEnd), .timeLimit(.minutes(10)))
struct PlanWritesNothingTests {
    /// The plans tried on each chip.
    static let plans: [[String]] = [
        ["write", "--text", "only planned", "--yes"],
        ["write", "--url", "https://example.com/planned", "--lock", "--yes"],
        ["format", "--force", "--yes"],
        ["erase", "--yes"],
        ["lock", "--yes"],
    ]

    @Test("every plan on a written chip leaves its tag file byte-identical", arguments: TagModel.all.map(\.name))
    func planLeavesTagFile(model: String) async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("tag.json").path
        let device = "sim:\(model)?file=\(file)"
        // Made writable and written where the chip allows it (a factory DESFire, Light or
        // Classic needs format first); what cannot be done leaves the chip as it is.
        _ = try await runBuiltNFCTool(["format", "--device", device, "--yes"])
        _ = try await runBuiltNFCTool(["write", "--device", device, "--url", "https://example.com/stored"])
        _ = try await runBuiltNFCTool(["info", "--device", device])
        let before = try? Data(contentsOf: URL(fileURLWithPath: file))
        for plan in Self.plans {
            let run = try await runBuiltNFCTool([plan[0], "--device", device, "--plan"] + plan.dropFirst())
            #expect(run.status != -1)
            #expect((try? Data(contentsOf: URL(fileURLWithPath: file))) == before, "\(model): \(plan.joined(separator: " ")) --plan changed the tag file (exit \(run.status)): \(run.output)")
        }
    }
}
