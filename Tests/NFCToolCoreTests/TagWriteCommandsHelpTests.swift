import Testing
@testable import NFCToolCore

/// The whole help of each tag-writing command, as `--help`, `-h` and `help <command>` print it.
@Suite("Help of read, write, lock, format, erase, protect and unprotect", .timeLimit(.minutes(5)))
struct TagWriteCommandsHelpTests {
    static let readHelp = HelpSnapshot.help("read")

    static let writeHelp = HelpSnapshot.help("write")

    static let lockHelp = HelpSnapshot.help("lock")

    static let formatHelp = HelpSnapshot.help("format")

    static let eraseHelp = HelpSnapshot.help("erase")

    static let protectHelp = HelpSnapshot.help("protect")

    static let unprotectHelp = HelpSnapshot.help("unprotect")

    static let helps: [(String, String)] = [
        ("read", readHelp),
        ("write", writeHelp),
        ("lock", lockHelp),
        ("format", formatHelp),
        ("erase", eraseHelp),
        ("protect", protectHelp),
        ("unprotect", unprotectHelp),
    ]

    @Test("--help prints the whole help, every line within 80 columns", arguments: helps)
    func wholeHelp(command: String, expected: String) async {
        let run = await runNFCTool([command, "--help"])
        #expect(run.status == .success)
        #expect(run.standardOutput == expected)
        #expect(run.standardError == "")
        #expect(expected.split(separator: "\n").allSatisfy { $0.count <= 80 })
    }

    @Test("-h and 'nfctool help <command>' print the same help", arguments: helps)
    func sameHelpEverywhere(command: String, expected: String) async {
        #expect(await runNFCTool([command, "-h"]).standardOutput == expected)
        #expect(await runNFCTool(["help", command]).standardOutput == expected)
    }

    @Test("every tag-writing command takes --device, --timeout, --json and --help", arguments: helps)
    func sharedOptions(command: String, expected: String) {
        for option in ["-d, --device <conn>", "-t, --timeout <s>", "--json", "-h, --help"] {
            #expect(expected.contains("\n  \(option) "))
        }
    }
}
