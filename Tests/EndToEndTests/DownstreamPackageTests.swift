import Foundation
import NFCTestSupport
import Testing

/// NFCKit as another package uses it: a throw-away package in a temporary directory depends on a
/// tagged copy of this repository **by version** (`.package(url: "file://…", from: "0.1.0")`, where
/// SwiftPM refuses unsafe build flags), builds a small program against the `NFCKit` product alone
/// and runs it on the simulator.
///
/// The copy is a `git clone` of this repository at its current commit (uncommitted changes are not
/// in it), tagged `0.1.0`. The build has a scratch path of its own in the temporary directory, so
/// it shares nothing with this package's `.build`; it builds in debug, without an index store, and
/// only the modules the program needs. About 1.5 minutes on two busy cores: tagged `.endToEnd`.
@Suite("NFCKit as a versioned dependency of another package", .tags(.endToEnd), .timeLimit(.minutes(30)))
struct DownstreamPackageTests {
    /// The repository root.
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The downstream program: only `import NFCKit`; it writes a message to a simulated NTAG215
    /// through a tag reader session, reads it back and prints the URI and the encoded message.
    static let program = """
        import Foundation
        import NFCKit

        let message = NFCNDEFMessage(records: [try NFCNDEFPayload.wellKnownTypeURIPayload(url: "https://example.com/downstream")])
        let session = NFCTagReaderSession(pollingOption: [.iso14443], connection: "sim:ntag215")
        try await session.begin()
        for try await tag in session.tags {
            try await session.connect(to: tag)
            try await tag.writeNDEF(message)
            let read = try await tag.readNDEF()
            let uri: String? = read.records.first?.wellKnownTypeURIPayload()
            print("uri:", uri ?? "none")
            print("bytes:", try read.encoded().map { String($0, radix: 16) }.joined(separator: " "))
            await session.invalidate()
            break
        }
        """

    @Test("a package depending on a tagged copy by version builds a program against the NFCKit product, which reads back what it wrote")
    func buildsByVersion() async throws {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("nfckit-downstream-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: work) }
        let copy = work.appendingPathComponent("nfckit")
        let downstream = work.appendingPathComponent("downstream")
        let scratch = work.appendingPathComponent("scratch")
        let environment = ProcessInfo.processInfo.environment
        let git = try #require(Self.onPath("git"), "git is needed to tag a copy")
        let swift = try #require(Self.onPath("swift"), "swift is needed to build the package")

        let head = try await runTool(git, ["-C", Self.root.path, "rev-parse", "HEAD"], environment: environment, timeout: 60,
                                     mergingStandardError: false)
        try #require(head.status == 0, "\(head.output)")
        let commit = head.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        for arguments in [["clone", "--quiet", "--no-checkout", Self.root.path, copy.path],
                          ["-C", copy.path, "checkout", "--quiet", "--detach", commit],
                          ["-C", copy.path, "tag", "0.1.0"]] {
            let run = try await runTool(git, arguments, environment: environment, timeout: 300)
            try #require(run.status == 0, "git \(arguments): \(run.output)")
        }

        let sources = downstream.appendingPathComponent("Sources/downstream")
        try FileManager.default.createDirectory(at: sources, withIntermediateDirectories: true)
        try """
            // swift-tools-version: 6.0
            import PackageDescription

            let package = Package(
                name: "downstream",
                platforms: [.macOS(.v15)],
                dependencies: [.package(url: "\(copy.absoluteString)", from: "0.1.0")],
                targets: [.executableTarget(name: "downstream", dependencies: [.product(name: "NFCKit", package: "nfckit")])]
            )

            """.write(to: downstream.appendingPathComponent("Package.swift"), atomically: true, encoding: .utf8)
        try Self.program.write(to: sources.appendingPathComponent("main.swift"), atomically: true, encoding: .utf8)

        let build = try await runTool(
            swift, ["build", "-c", "debug", "--package-path", downstream.path, "--scratch-path", scratch.path, "--product", "downstream",
                    "--disable-index-store"],
            environment: environment, timeout: 1700)
        try #require(build.status == 0 && !build.timedOut, "swift build failed:\n\(build.output.suffix(6000))")
        #expect(!build.output.contains("unsafe"), "\(build.output.suffix(3000))")
        // SwiftPM resolved the dependency by its version tag, not as a branch or a path.
        let resolved = try String(contentsOf: downstream.appendingPathComponent("Package.resolved"), encoding: .utf8)
        #expect(resolved.contains("\"version\" : \"0.1.0\""), "\(resolved)")

        let run = try await runTool(scratch.appendingPathComponent("debug/downstream").path, [], environment: environment,
                                    timeout: 120, mergingStandardError: false)
        #expect(run.status == 0, "\(run.output)")
        #expect(run.standardOutput.contains("uri: https://example.com/downstream"), "\(run.output)")
        // The encoded message, from the other side: one short well-known URI record, code 04 (https://).
        let expected = [0xD1, 0x01, 0x17, 0x55, 0x04] + Array("example.com/downstream".utf8)
        #expect(run.standardOutput.contains("bytes: " + expected.map { String($0, radix: 16) }.joined(separator: " ")), "\(run.output)")
    }

    /// `name`'s path on `PATH`, or `nil`.
    static func onPath(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }
}
