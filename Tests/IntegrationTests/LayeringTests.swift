import Foundation
import Testing

/// docs/architecture.md's layers, checked against Package.swift and the sources' imports: a
/// dependency only points down, and only the reader targets import the C modules.
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

    /// `name → dependencies` of every target in Package.swift.
    static func targets() throws -> [String: [String]] {
        let text = try String(contentsOf: root.appendingPathComponent("Package.swift"), encoding: .utf8)
        let pattern = try NSRegularExpression(pattern: #"name:\s*"([^"]+)",\s*dependencies:\s*\[([^\]]*)\]"#)
        var result: [String: [String]] = [:]
        // Targets declared without dependencies.
        let bare = try NSRegularExpression(pattern: #"\.target\(name:\s*"([^"]+)",\s*swiftSettings"#)
        for match in bare.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
            if let name = Range(match.range(at: 1), in: text) { result[String(text[name])] = [] }
        }
        for match in pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
            guard let name = Range(match.range(at: 1), in: text), let deps = Range(match.range(at: 2), in: text) else { continue }
            result[String(text[name])] = text[deps].split(separator: ",").map {
                $0.trimmingCharacters(in: CharacterSet(charactersIn: " \n\"")) }.filter { !$0.isEmpty }
        }
        return result
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
