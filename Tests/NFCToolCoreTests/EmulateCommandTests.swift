import Testing
@testable import NFCToolCore

/// `nfctool emulate` in-process: its help, usage errors, and the simulator's lack of target
/// mode. Through real libnfc it is tested in EndToEndTests/EmulateThroughLibNFCTests.
@Suite("nfctool emulate", .timeLimit(.minutes(5)))
struct EmulateCommandTests {
    static let help = HelpSnapshot.help("emulate")

    @Test("the emulate help, whole")
    func helpText() async {
        let run = await runNFCTool(["emulate", "--help"])
        #expect(run.status == .success)
        #expect(run.standardOutput == Self.help)
    }

    @Test("the simulator has no target mode: exit 10 with a clear reason")
    func simulatorIsRefused() async {
        let run = await runNFCTool(["emulate", "--url", "https://example.com", "--device", "sim:ntag215", "--timeout", "1"])
        #expect(run.status == .unsupported)
        #expect(run.standardOutput.isEmpty)
        #expect(run.standardError == "Error: cannot emulate a tag on 'sim:ntag215': the simulator 'sim:ntag215' has no target mode: card emulation needs a PN53x reader through libnfc\n")
    }

    @Test("usage errors: no message, both --ndef and records, --save with --read-only",
          arguments: [["emulate"], ["emulate", "--ndef", "m.ndef", "--url", "https://example.com"],
                      ["emulate", "--url", "https://example.com", "--read-only", "--save", "out.ndef"],
                      ["emulate", "--url", "https://example.com", "--timeout", "0"]])
    func usageErrors(arguments: [String]) async {
        let run = await runNFCTool(arguments + ["--device", "sim:ntag215"])
        #expect(run.status == .usage)
        #expect(run.standardError.hasPrefix("Error: "))
    }

    @Test("a message too big for the emulated NDEF file: exit 6, no reader opened")
    func messageTooBig() async {
        let run = await runNFCTool(["emulate", "--text", String(repeating: "x", count: 2100), "--device", "sim:ntag215"])
        #expect(run.status == .capacityExceeded)
    }
}
