import Foundation
import NFCTestSupport
import Testing

/// Every Swift code block of the five CoreNFC texts (see ``CoreNFCSeedBlocks``) compiles against
/// NFCKit with one change: `import CoreNFC` becomes `import NFCKit`.
///
/// Each block goes in a file of its own, in a scope of its own, as the text places it:
/// - a block declaring a type (`class NDEFReader: NSObject, …`) inside an `enum` namespace;
/// - a block of methods (`func readerSession(…)`) inside a class conforming to both delegate
///   protocols, as the text's surrounding class does;
/// - a block of statements inside a method of that class with `tag`, `message` and `session` in
///   scope, as the text's surrounding method has them.
/// The surroundings add what the text leaves to the reader: the delegate methods a block does not
/// define, and empty versions of the helpers it calls without defining them (`processRecord`,
/// `showAlert`, …). Its `import` lines go first; a block without one gets `import NFCKit`.
///
/// All files are type-checked in one `swiftc -typecheck` run against this package's built modules,
/// in the Swift 6 language mode.
@Suite("the CoreNFC seeds' code compiles with only the import changed", .tags(.endToEnd), .timeLimit(.minutes(15)))
struct CoreNFCSeedsCompileTests {
    /// The blocks that are not compiled, by ``CoreNFCSeedBlocks/Block/id``, and why. The "WRONG"
    /// halves of the texts' wrong/correct pairs are left out by their marker (see ``halves(of:)``).
    static let exceptions: [String: String] = [
        "000:683": "app code: `scene(_:continue:)` of a `UIScene` delegate with `NSUserActivity` (UIKit)",
        "000:711": "app code: `scene(_:continue:)` of a `UIScene` delegate with `NSUserActivity` (UIKit)",
        "001:247": "app code: `scene(_:continue:)` of a `UIScene` delegate with `NSUserActivity` (UIKit)",
        "003:64": "app code: a `UIViewController` with `UIAlertController` (UIKit)",
        "003:105": "app code: an `@IBAction` of a view controller (UIKit)",
        "000:615": "not valid CoreNFC: `if let (text, locale) = record.wellKnownTypeTextPayload()` binds a non-optional tuple (CoreNFC returns `(String?, Locale?)`)",
        "000:642": "not valid CoreNFC: `if let (text, locale) = record.wellKnownTypeTextPayload()` binds a non-optional tuple (CoreNFC returns `(String?, Locale?)`)",
        "002:47": "not valid CoreNFC: `NFCNDEFRRecord` and `firstTag.asNDEF ?? return` (not Swift)",
        "004:100": "not valid CoreNFC: `NFCTypeNameFormat.wellKnownTypeText` / `.wellKnownTypeURI` do not exist",
        "004:124": "not valid CoreNFC: `NFCTypeNameFormat.wellKnownTypeURI` does not exist",
        "004:168": "not valid CoreNFC: `readerSession(_:didDetect tags: [NFCISO7816Tag])` is no delegate method, and `NFCReaderSession` has no `connect(to:)`",
    ]

    /// Blocks NFCKit does not compile yet, and what is missing: recorded as known issues (the test
    /// says when one compiles, so that it leaves this list). Not exceptions: they must compile.
    static let knownGaps: [String: String] = [:]

    /// Helpers the texts call without defining them, by name: an empty version each.
    static let helpers: [(name: String, declaration: String)] = [
        ("processRecord", "func processRecord(_ record: NFCNDEFPayload) {}"),
        ("processMessage", "func processMessage(_ message: NFCNDEFMessage) {}"),
        ("showUnsupportedMessage", "func showUnsupportedMessage() {}"),
        ("showUnsupportedAlert", "func showUnsupportedAlert() {}"),
        ("showAlert", "func showAlert(_ text: String) {}"),
        ("beginScan", "func beginScan() {}"),
        ("readISO7816", "func readISO7816(tag: NFCISO7816Tag, session: NFCTagReaderSession) {}"),
        ("readMiFare", "func readMiFare(tag: NFCMiFareTag, session: NFCTagReaderSession) {}"),
        ("readISO15693", "func readISO15693(tag: NFCISO15693Tag, session: NFCTagReaderSession) {}"),
        ("readFeliCa", "func readFeliCa(tag: NFCFeliCaTag, session: NFCTagReaderSession) {}"),
    ]

    /// One compiled piece: a block, or the correct half of a wrong/correct block.
    struct Unit {
        /// The block it comes from.
        let block: CoreNFCSeedBlocks.Block
        /// Its lines.
        let lines: [String]
        /// `Seed000Line249`: its scope's name (the line of its first line).
        let name: String
    }

    /// `block` split at its "CORRECT" marker: the wrong half (nil when the block has no marker)
    /// and the half to compile.
    static func halves(of block: CoreNFCSeedBlocks.Block) -> (wrong: [String]?, compiled: [String]) {
        let correct = ["// CORRECT", "// 正确示例", "// 正確"]
        guard let split = block.lines.firstIndex(where: { line in correct.contains { line.hasPrefix($0) } }) else {
            return (nil, block.lines)
        }
        return (Array(block.lines[..<split]), Array(block.lines[split...]))
    }

    /// The units to compile: every block not excepted, its correct half where it has a wrong one.
    static func units(of blocks: [CoreNFCSeedBlocks.Block]) -> [Unit] {
        blocks.filter { exceptions[$0.id] == nil }.map { block in
            let compiled = halves(of: block).compiled
            let offset = block.lines.count - compiled.count
            return Unit(block: block, lines: compiled, name: "Seed\(block.seed)Line\(block.firstLine + offset)")
        }
    }

    /// The file that compiles `unit`: the ported import, then the unit in its surroundings.
    static func source(of unit: Unit) -> String {
        let imports = unit.lines.filter { $0.hasPrefix("import ") }
            .map { $0 == "import CoreNFC" ? "import NFCKit" : $0 }
        let body = unit.lines.filter { !$0.hasPrefix("import ") }
        let text = body.joined(separator: "\n")
        func defines(_ pattern: String) -> Bool { text.range(of: pattern, options: .regularExpression) != nil }
        let missingHelpers = helpers.filter { text.contains($0.name + "(") && !text.contains("func \($0.name)(") }
            .map { "    " + $0.declaration }
        var lines = ["// \(unit.block), with `import CoreNFC` → `import NFCKit`"] + (imports.isEmpty ? ["import NFCKit"] : imports) + [""]
        let classes = body.compactMap { line -> (name: String, header: String)? in
            guard let match = line.range(of: #"^(final )?class [A-Za-z]+"#, options: .regularExpression) else { return nil }
            return (String(line[match].split(separator: " ").last ?? ""), line)
        }
        // The delegate methods CoreNFC requires that a block leaves out (an excerpt of a class).
        let ndefInvalidate = "    func readerSession(_ session: NFCNDEFReaderSession, didInvalidateWithError error: any Error) {}"
        if !classes.isEmpty {
            lines += ["enum \(unit.name) {"] + body + ["}"]
            for (name, header) in classes {
                let missingDelegateMethods = header.contains("NFCNDEFReaderSessionDelegate")
                    && !defines(#"func readerSession\([^)]*didInvalidateWithError"#) ? [ndefInvalidate] : []
                lines += ["", "extension \(unit.name).\(name) {"] + missingDelegateMethods + missingHelpers + ["}"]
            }
            return lines.joined(separator: "\n") + "\n"
        }
        lines.append("final class \(unit.name): NSObject, NFCNDEFReaderSessionDelegate, NFCTagReaderSessionDelegate {")
        lines.append("    var session: NFCNDEFReaderSession?")
        if body.first(where: { !$0.isEmpty && !$0.hasPrefix("//") })?.range(of: #"^(@\w+ )*func "#, options: .regularExpression) != nil {
            lines += body
        } else {
            lines.append("    func statements(tag: any NFCNDEFTag, message: NFCNDEFMessage, session: NFCNDEFReaderSession) {")
            lines += body
            lines.append("    }")
        }
        if !defines(#"func readerSession\([^)]*didInvalidateWithError"#) {
            lines.append(ndefInvalidate)
        }
        if !defines(#"func tagReaderSession\([^)]*didInvalidateWithError"#) {
            lines.append("    func tagReaderSession(_ session: NFCTagReaderSession, didInvalidateWithError error: any Error) {}")
        }
        if !defines(#"func tagReaderSession\([^)]*didDetect tags"#) {
            lines.append("    func tagReaderSession(_ session: NFCTagReaderSession, didDetect tags: [NFCTag]) {}")
        }
        lines += missingHelpers
        lines.append("}")
        return lines.joined(separator: "\n") + "\n"
    }

    @Test("the fixture copy holds exactly the seeds' code, where the seeds are at hand")
    func fixtureIsTheSeeds() throws {
        let seeds = CoreNFCSeedBlocks.seedFiles(in: CoreNFCSeedBlocks.sharedSeeds)
        let copies = CoreNFCSeedBlocks.seedFiles(in: CoreNFCSeedBlocks.fixtures)
        #expect(copies.count == 5, "\(copies)")
        guard !seeds.isEmpty else { return }  // a clean clone: the copy is all there is
        #expect(seeds.map(\.lastPathComponent) == copies.map(\.lastPathComponent))
        for (seed, copy) in zip(seeds, copies) {
            let text = try String(contentsOf: seed, encoding: .utf8)
            let masked = CoreNFCSeedBlocks.masked(text, seed: String(seed.lastPathComponent.prefix(3)))
            #expect(try String(contentsOf: copy, encoding: .utf8) == masked,
                    "\(copy.lastPathComponent) is not the masked seed: remake it with CoreNFCSeedBlocks.masked")
        }
    }

    @Test("the blocks are found, and every exception names a block that exists")
    func blocksAndExceptions() throws {
        let blocks = try CoreNFCSeedBlocks.all()
        #expect(Dictionary(grouping: blocks, by: \.seed).mapValues(\.count) == ["000": 26, "001": 8, "002": 3, "003": 5, "004": 5])
        let ids = Set(blocks.map(\.id))
        for id in Self.exceptions.keys { #expect(ids.contains(id), "exception \(id) names no block") }
        // Every "WRONG" marker is in a block with a "CORRECT" half.
        for block in blocks where block.lines.contains(where: { $0.hasPrefix("// WRONG") || $0.hasPrefix("// 错误") || $0.hasPrefix("// 錯誤") }) {
            #expect(Self.halves(of: block).wrong != nil, "\(block) has a wrong half and no correct one")
        }
    }

    /// The CoreNFC symbols the seeds' code uses: the `NFC…` and `CardSession` types (not those the
    /// seeds declare themselves), the error codes, `Type.member` uses of those types, and the
    /// members called on the seeds' sessions, tags, records and messages.
    static func coreNFCSymbols(in blocks: [CoreNFCSeedBlocks.Block]) -> Set<String> {
        let code = blocks.map(\.text).joined(separator: "\n")
        func matches(_ pattern: String, group: Int = 0) -> [String] {
            guard let expression = try? NSRegularExpression(pattern: pattern) else { return [] }
            return expression.matches(in: code, range: NSRange(code.startIndex..., in: code)).compactMap {
                Range($0.range(at: group), in: code).map { String(code[$0]) }
            }
        }
        let declared = Set(matches(#"class (\w+)"#, group: 1))
        var symbols = Set(matches(#"\b(?:NFC[A-Z]\w*|CardSession)\b"#)).subtracting(declared)
        symbols.formUnion(matches(#"\b(?:readerSession|readerTransceive|ndefReaderSession|readerError)\w*Error\w*"#))
        symbols.formUnion(matches(#"\b(?:NFC[A-Z]\w*|CardSession)\.[a-z]\w*"#).filter { !declared.contains(String($0.prefix { $0 != "." })) })
        symbols.formUnion(matches(#"\b(?:session|tag|ndefTag|cardSession|cardAPDU|record|message|msg)\??\.([a-zA-Z]+)"#, group: 1))
        return symbols
    }

    @Test("docs/porting-from-corenfc.md's symbol table lists every CoreNFC symbol the seeds' code uses")
    func symbolTable() throws {
        let guide = try String(contentsOf: CoreNFCSeedBlocks.root.appendingPathComponent("docs/porting-from-corenfc.md"), encoding: .utf8)
        let section = try #require(guide.components(separatedBy: "## Every CoreNFC symbol the seeds' code uses").last)
        var listed = Set<String>()
        for line in section.split(separator: "\n") where line.hasPrefix("| `") {
            let first = line.split(separator: "|").first ?? ""
            for (index, part) in first.split(separator: "`", omittingEmptySubsequences: false).enumerated() where index % 2 == 1 {
                listed.insert(String(part))
            }
        }
        let symbols = Self.coreNFCSymbols(in: try CoreNFCSeedBlocks.all())
        #expect(symbols.count > 30)
        #expect(symbols.subtracting(listed).isEmpty, "not in the table: \(symbols.subtracting(listed).sorted())")
    }

    @Test("every block not excepted type-checks against NFCKit with only `import CoreNFC` → `import NFCKit`")
    func blocksCompile() async throws {
        let units = Self.units(of: try CoreNFCSeedBlocks.all())
        #expect(units.count >= 30)
        let products = try #require(Executables.built("nfctool")?.deletingLastPathComponent(), "the package is not built")
        let modules = [products.appendingPathComponent("Modules"), products]
            .first { FileManager.default.fileExists(atPath: $0.appendingPathComponent("NFCKit.swiftmodule").path) }
        let moduleDirectory = try #require(modules, "NFCKit.swiftmodule not found in \(products.path)")
        let swiftc = try #require(DownstreamPackageTests.onPath("swiftc"))
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("nfckit-seeds-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        var files: [String: Unit] = [:]
        for unit in units {
            let file = work.appendingPathComponent("\(unit.name).swift")
            try Self.source(of: unit).write(to: file, atomically: true, encoding: .utf8)
            files[file.lastPathComponent] = unit
        }
        let moduleMaps = ["CLibNFC", "CPCSCLite", "CSQLite", "CLibPQ", "CCrypto"].map {
            "-fmodule-map-file=" + CoreNFCSeedBlocks.root.appendingPathComponent("Sources/\($0)/module.modulemap").path
        }.flatMap { ["-Xcc", $0] }
        let arguments = ["-typecheck", "-swift-version", "6", "-module-name", "CoreNFCSeeds", "-I", moduleDirectory.path]
            + moduleMaps + files.keys.sorted().map { work.appendingPathComponent($0).path }
        let run = try await runTool(swiftc, arguments, environment: ProcessInfo.processInfo.environment, timeout: 600)
        #expect(!run.timedOut)
        // Each error, by the block it is in.
        var failing: [String: [String]] = [:]
        for line in run.output.split(separator: "\n") where line.contains(": error: ") {
            let file = line.split(separator: ":").first.map { URL(fileURLWithPath: String($0)).lastPathComponent } ?? ""
            failing[files[file].map { "\($0.block)" } ?? file, default: []].append(String(line))
        }
        for (id, reason) in Self.knownGaps {
            let key = units.first { $0.block.id == id }.map { "\($0.block)" } ?? id
            withKnownIssue(Comment(rawValue: reason)) {
                if let errors = failing.removeValue(forKey: key) { Issue.record(Comment(rawValue: errors.joined(separator: "\n"))) }
            }
        }
        #expect(failing.isEmpty, "\(failing.keys.sorted().map { "\($0):\n  " + (failing[$0] ?? []).joined(separator: "\n  ") }.joined(separator: "\n"))")
        #expect(run.status == 0 || !Self.knownGaps.isEmpty, "\(run.output.suffix(4000))")
    }
}
