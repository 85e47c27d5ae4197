import Foundation
import Testing
@testable import NFCToolCore

@Suite("docs/cli.md matches the tool", .timeLimit(.minutes(5)))
struct CLIDocsTests {
    static let docsPath = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("docs/cli.md")

    @Test("every command's help text appears verbatim in docs/cli.md (run Scripts/gen-cli-docs)",
          arguments: [[], ["devices"], ["scan"], ["ndef"], ["ndef", "encode"], ["ndef", "decode"],
                      ["read"], ["write"], ["batch"], ["ledger"], ["ledger", "export"], ["ledger", "load"], ["ledger", "stats"], ["lock"], ["format"], ["erase"], ["protect"], ["unprotect"],
                      ["info"], ["dump"], ["verify"], ["apdu"], ["emulate"], ["doctor"], ["watch"], ["selftest"], ["sun"], ["sun", "verify"], ["ntag424"], ["ntag424", "setup"], ["completion"]])
    func helpIsDocumented(command: [String]) async throws {
        let docs = try String(contentsOf: Self.docsPath, encoding: .utf8)
        let help = await runNFCTool(command + ["--help"]).standardOutput
        #expect(!help.isEmpty)
        #expect(docs.contains("```text\n" + help + "```"), "docs/cli.md is stale for '\(command.joined(separator: " "))': run Scripts/gen-cli-docs")
    }

    @Test("docs/cli.md shows each tag-writing command run, with its output",
          arguments: ["read", "write", "lock", "format", "erase", "protect", "unprotect"])
    func exampleIsDocumented(command: String) throws {
        let docs = try String(contentsOf: Self.docsPath, encoding: .utf8)
        let examples = try #require(docs.range(of: "## Examples with output")).upperBound
        #expect(docs[examples...].contains("nfctool \(command) --device"), "no example of '\(command)' in docs/cli.md")
    }
}
