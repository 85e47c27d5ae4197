import Foundation

/// The Swift code blocks of the five CoreNFC texts NFCKit was designed from, found as a reader
/// finds them, so that nothing is retyped.
///
/// The texts are web pages saved as plain text: seed 000 marks a block with a line `swift`, the
/// others do not mark them at all. A block starts at a line that starts Swift code (`import `,
/// `class `, `func `, `guard `, `// ` … at the start of the line) after a blank line (or the
/// `swift` marker), and runs on over blank lines, indented lines, closing brackets and further
/// such lines; it ends before the first line of prose (a line at the margin that starts no Swift).
enum CoreNFCSeedBlocks {
    /// One block: the seed it comes from (`000`…`004`), its first and last line (1-based) and text.
    struct Block: Sendable, CustomStringConvertible {
        /// The seed's number, `000` … `004`.
        let seed: String
        /// The block's first line in the seed, 1-based.
        let firstLine: Int
        /// The block's last line in the seed.
        let lastLine: Int
        /// The block's lines.
        let lines: [String]

        /// `000:249`: the seed and first line, as the exceptions name a block.
        var id: String { "\(seed):\(firstLine)" }
        var description: String { "seed \(seed) lines \(firstLine)-\(lastLine)" }
        /// The block's text.
        var text: String { lines.joined(separator: "\n") }
    }

    /// Line starts that begin Swift code at the margin.
    static let codeStarts = [
        "import ", "@", "final ", "class ", "struct ", "enum ", "extension ", "protocol ", "func ", "private ",
        "public ", "let ", "var ", "guard ", "switch ", "if ", "for ", "try ", "await ", "session", "tag", "//",
    ]

    /// Whether `line` starts Swift code at the margin.
    static func startsCode(_ line: String) -> Bool { codeStarts.contains { line.hasPrefix($0) } }

    /// Whether `line` can be inside a block: blank, indented, a closing bracket, or code.
    static func continuesCode(_ line: String) -> Bool {
        guard let first = line.first else { return true }
        if first == " " || first == "\t" || first == "}" || first == ")" || first == "]" { return true }
        return startsCode(line)
    }

    /// Every block of `text`, seed `seed`.
    static func blocks(in text: String, seed: String) -> [Block] {
        let lines = text.components(separatedBy: "\n")
        var result: [Block] = []
        var index = 0
        while index < lines.count {
            let previous = index == 0 ? "" : lines[index - 1].trimmingCharacters(in: .whitespaces)
            guard startsCode(lines[index]), previous.isEmpty || previous == "swift" else {
                index += 1
                continue
            }
            var end = index
            var last = index
            while end < lines.count, continuesCode(lines[end]) {
                if !lines[end].trimmingCharacters(in: .whitespaces).isEmpty { last = end }
                end += 1
            }
            result.append(Block(seed: seed, firstLine: index + 1, lastLine: last + 1, lines: Array(lines[index...last])))
            index = last + 1
        }
        return result
    }

    /// `text` with everything but its blocks masked: a blank line stays blank, any other line
    /// outside a block becomes `~` (so blocks stay apart and keep their line numbers). This is
    /// what the fixture copy of a seed holds.
    static func masked(_ text: String, seed: String) -> String {
        var lines = text.components(separatedBy: "\n")
        var inBlock = Set<Int>()
        for block in blocks(in: text, seed: seed) { inBlock.formUnion((block.firstLine - 1)...(block.lastLine - 1)) }
        for index in lines.indices where !inBlock.contains(index) {
            lines[index] = lines[index].trimmingCharacters(in: .whitespaces).isEmpty ? "" : "~"
        }
        return lines.joined(separator: "\n")
    }

    /// The package's root directory.
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The seeds beside the repository (`../shared/seeds`), when this checkout has them.
    static let sharedSeeds = root.deletingLastPathComponent().appendingPathComponent("shared/seeds")

    /// The fixture copy of the seeds' code (Tests/Fixtures/CoreNFCSeeds; see its ORIGIN.md).
    static let fixtures = root.appendingPathComponent("Tests/Fixtures/CoreNFCSeeds")

    /// The seed files (`000_….txt` …) in `directory`, sorted.
    static func seedFiles(in directory: URL) -> [URL] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { $0.hasSuffix(".txt") && $0.first?.isNumber == true }.sorted().map { directory.appendingPathComponent($0) }
    }

    /// Every block of the five seeds, from the fixture copy (which a test keeps equal to the
    /// seeds where they are at hand).
    static func all() throws -> [Block] {
        try seedFiles(in: fixtures).flatMap { url in
            blocks(in: try String(contentsOf: url, encoding: .utf8), seed: String(url.lastPathComponent.prefix(3)))
        }
    }
}
