import Foundation

/// The one snapshot of nfctool's help texts: docs/cli.md, which Scripts/gen-cli-docs writes from
/// the tool's own help and `CLIDocsTests` holds to it. A test that compares a whole help text
/// takes it from here instead of holding a copy of its own.
enum HelpSnapshot {
    /// docs/cli.md.
    static let docsPath = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("docs/cli.md")

    /// docs/cli.md's text, read once; empty when it cannot be read (every comparison then fails).
    static let document: String = (try? String(contentsOf: docsPath, encoding: .utf8)) ?? ""

    /// The help of `command` (`""` for the root, `"ndef encode"` for a subcommand) as docs/cli.md
    /// shows it under `## nfctool <command>`: the first `text` block of that section, exactly as
    /// `--help` prints it. A text no help equals when the section is missing.
    static func help(_ command: String) -> String {
        let heading = "\n## nfctool" + (command.isEmpty ? "" : " " + command) + "\n"
        guard let section = document.range(of: heading),
              let open = document.range(of: "```text\n", range: section.upperBound..<document.endIndex),
              !document[section.upperBound..<open.lowerBound].contains("\n## "),
              let close = document.range(of: "\n```", range: open.upperBound..<document.endIndex) else {
            return "<docs/cli.md has no help block for 'nfctool \(command)'>"
        }
        return String(document[open.upperBound..<close.lowerBound]) + "\n"
    }
}
