import Foundation
import Testing

/// docs/architecture.md's layers, checked against Package.swift and the sources' imports: the
/// doc's target tables are Package.swift's targets and dependencies, a dependency only points
/// down, and only the reader targets import the C modules.
@Suite("the targets keep the layers docs/architecture.md states", .timeLimit(.minutes(1)))
struct LayeringTests {
    /// The package's root directory.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Each library target's layer, lowest first (docs/architecture.md, "Targets"). A target
    /// may depend only on targets of a lower layer, or on the C modules its row allows.
    static let layers: [String: Int] = [
        "NFCCore": 0,
        "NDEF": 1, "CommandLineKit": 1, "NFCCrypto": 1,
        "NFCTags": 2,
        "LibNFC": 3, "PCSC": 3, "VirtualTags": 3, "Originality": 3,
        "PN532Emulator": 4, "PCSCReaderEmulator": 4, "NFCKit": 4, "Provisioning": 4,
        "NFCToolCore": 5,
        // Test helpers (the scripted reader, hex literals, processes): above the reader seam,
        // below every implementation, so that any test target can use them.
        "NFCTestSupport": 3,
    ]

    /// The only targets that may use each C module.
    static let cModuleOwners: [String: Set<String>] = [
        "CLibNFC": ["LibNFC"],
        "CPCSCLite": ["PCSC"],
        "CSQLite": ["Provisioning"],
        "CLibPQ": ["Provisioning"],
        "CCrypto": ["NFCCrypto"],
    ]

    /// `name → dependencies` of every target in Package.swift: each `.target`, `.executableTarget`,
    /// `.testTarget` and `.systemLibrary` call, with the names of its `dependencies:` (none when
    /// it has no such argument).
    static func targets() throws -> [String: [String]] {
        try targets(inPackage: String(contentsOf: root.appendingPathComponent("Package.swift"), encoding: .utf8))
    }

    /// `name → dependencies` of the targets a Package.swift text declares.
    static func targets(inPackage text: String) throws -> [String: [String]] {
        let pattern = try NSRegularExpression(
            pattern: #"\.(?:target|executableTarget|testTarget|systemLibrary)\(\s*name:\s*"([^"]+)"(?:,\s*dependencies:\s*\[([^\]]*)\])?"#)
        var result: [String: [String]] = [:]
        for match in pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
            guard let name = Range(match.range(at: 1), in: text) else { continue }
            let dependencies = Range(match.range(at: 2), in: text).map { text[$0] } ?? ""
            result[String(text[name])] = dependencies.split(separator: ",").map {
                $0.trimmingCharacters(in: CharacterSet(charactersIn: " \n\"")) }.filter { !$0.isEmpty }
        }
        return result
    }

    /// `name → dependencies` of every target docs/architecture.md's two target tables list (the
    /// tables whose first column is "target" or "test target" and whose last is "depends on"):
    /// the row's first cell names it in backticks, the last lists its dependencies, separated by
    /// commas, `—` for none; text in parentheses is a note.
    static func documentedTargets(inDocument text: String) -> [String: [String]] {
        var result: [String: [String]] = [:]
        var inTable = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).dropFirst().dropLast()
                .map { $0.trimmingCharacters(in: .whitespaces) }
            guard line.hasPrefix("|"), let first = cells.first, let last = cells.last else {
                inTable = false
                continue
            }
            if first == "target" || first == "test target" {
                inTable = last == "depends on"
                continue
            }
            guard inTable, first.hasPrefix("`"), let name = first.split(separator: "`").first else { continue }
            let withoutNotes = last.replacing(/\([^)]*\)/, with: "")
            result[String(name)] = withoutNotes.split(separator: ",")
                .map { $0.trimmingCharacters(in: CharacterSet(charactersIn: " `")) }
                .filter { !$0.isEmpty && $0 != "—" }
        }
        return result
    }

    /// What differs between the targets of docs/architecture.md and those of Package.swift, one
    /// line per difference; empty when they agree.
    static func differences(documented: [String: [String]], declared: [String: [String]]) -> [String] {
        var lines: [String] = []
        for name in Set(documented.keys).union(declared.keys).sorted() {
            switch (documented[name], declared[name]) {
            case (nil, _): lines.append("\(name) is in Package.swift but not in docs/architecture.md's target tables")
            case (_, nil): lines.append("\(name) is in docs/architecture.md's target tables but not in Package.swift")
            case let (documented?, declared?):
                for missing in Set(declared).subtracting(documented).sorted() {
                    lines.append("\(name) depends on \(missing) in Package.swift, not in docs/architecture.md")
                }
                for extra in Set(documented).subtracting(declared).sorted() {
                    lines.append("\(name) depends on \(extra) in docs/architecture.md, not in Package.swift")
                }
            }
        }
        return lines
    }

    @Test("docs/architecture.md's target tables list exactly Package.swift's targets and dependencies")
    func documentedTargetsMatchThePackage() throws {
        let document = try String(contentsOf: Self.root.appendingPathComponent("docs/architecture.md"), encoding: .utf8)
        let documented = Self.documentedTargets(inDocument: document)
        let declared = try Self.targets()
        #expect(declared.count >= 40, "Package.swift was not parsed: \(declared.keys.sorted())")
        #expect(documented.count >= 40, "docs/architecture.md's tables were not parsed: \(documented.keys.sorted())")
        #expect(Self.differences(documented: documented, declared: declared) == [])
    }

    @Test("the comparison notices a target or a dependency added to only one side")
    func comparisonNoticesDrift() throws {
        let package = """
            .systemLibrary(name: "CX", pkgConfig: "x"),
            .target(name: "A", swiftSettings: strict),
            .target(name: "B", dependencies: ["A", "CX"], swiftSettings: strict),
            .executableTarget(
                name: "b-tool", dependencies: ["B"], path: "x",
                swiftSettings: strict),
            .testTarget(name: "BTests", dependencies: ["B"]),
            """
        let document = """
            | target | layer | responsibility | depends on |
            |---|---|---|---|
            | `CX` | C | x | — |
            | `A` | 0 | a (with a note, B) | — |
            | `B` | 1 | b | A, CX (layer C, for x) |
            | `b-tool` | 2 | b's tool | B |

            | test target | what | needs | depends on |
            |---|---|---|---|
            | `BTests` | b | — | B |
            """
        let declared = try Self.targets(inPackage: package)
        #expect(declared == ["CX": [], "A": [], "B": ["A", "CX"], "b-tool": ["B"], "BTests": ["B"]])
        #expect(Self.differences(documented: Self.documentedTargets(inDocument: document), declared: declared) == [])
        let moreTargets = try Self.targets(inPackage: package + "\n.target(name: \"C\", dependencies: [\"A\"]),")
        #expect(Self.differences(documented: Self.documentedTargets(inDocument: document), declared: moreTargets)
            == ["C is in Package.swift but not in docs/architecture.md's target tables"])
        let moreDependencies = try Self.targets(inPackage: package.replacingOccurrences(of: #"["B"]),"#, with: #"["B", "A"]),"#))
        #expect(Self.differences(documented: Self.documentedTargets(inDocument: document), declared: moreDependencies)
            == ["BTests depends on A in Package.swift, not in docs/architecture.md"])
        let documentedMore = document.replacingOccurrences(of: "| b's tool | B |", with: "| b's tool | B, A |")
        #expect(Self.differences(documented: Self.documentedTargets(inDocument: documentedMore), declared: declared)
            == ["b-tool depends on A in docs/architecture.md, not in Package.swift"])
    }

    @Test("every library target depends only on lower layers and on the C module it owns")
    func dependenciesPointDown() throws {
        let targets = try Self.targets()
        #expect(targets.count >= Self.layers.count, "Package.swift was not parsed: \(targets.keys.sorted())")
        for (name, layer) in Self.layers {
            let dependencies = try #require(targets[name], "\(name) is not in Package.swift")
            for dependency in dependencies {
                if let owners = Self.cModuleOwners[dependency] {
                    #expect(owners.contains(name), "\(name) depends on the C module \(dependency)")
                } else if let lower = Self.layers[dependency] {
                    #expect(lower < layer, "\(name) (layer \(layer)) depends on \(dependency) (layer \(lower))")
                } else {
                    Issue.record("\(name) depends on \(dependency), which has no layer here")
                }
            }
        }
        // The CLI is glue over NFCKit: it reaches no reader implementation directly.
        #expect(!(targets["NFCToolCore"] ?? []).contains("LibNFC"))
        // Test helpers stay out of what ships: no library or executable depends on them.
        let shipped = targets.filter { !$0.key.hasSuffix("Tests") && $0.key != "NFCTestSupport" }
        #expect(shipped.filter { $0.value.contains("NFCTestSupport") }.keys.sorted() == [])
    }

    @Test("only the owning target's sources import a C module")
    func cImports() throws {
        let sources = Self.root.appendingPathComponent("Sources")
        let enumerator = FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil)
        var offenders: [String] = []
        while let url = enumerator?.nextObject() as? URL {
            guard url.pathExtension == "swift", let index = url.pathComponents.lastIndex(of: "Sources"),
                  index + 1 < url.pathComponents.count else { continue }
            let target = url.pathComponents[index + 1]
            let text = try String(contentsOf: url, encoding: .utf8)
            for (module, owners) in Self.cModuleOwners where !owners.contains(target) {
                if text.range(of: #"(?m)^\s*(@\w+\s+)?(public |internal |private )?import \#(module)\b"#, options: .regularExpression) != nil {
                    offenders.append("\(target)/\(url.lastPathComponent) imports \(module)")
                }
            }
            if target == "NFCToolCore", text.range(of: #"(?m)^\s*(public |internal )?import LibNFC\b"#, options: .regularExpression) != nil {
                offenders.append("\(target)/\(url.lastPathComponent) imports LibNFC")
            }
        }
        #expect(offenders == [])
    }
}
