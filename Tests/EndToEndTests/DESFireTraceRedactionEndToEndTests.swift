import Foundation
import NFCCore
import NFCTags
import NFCTestSupport
import Testing
import VirtualTags

/// A `--trace` file of `nfctool format --keys` and `protect --keys` on a simulated DESFire, read
/// back from the file a fresh process wrote: every authentication (legacy `0A`, ISO `1A`, AES
/// `AA`, AuthenticateEV2First `71`) has lost its cryptograms — ek(RndB), the `AF` frame's
/// ek(RndA ‖ RndB′) and ek(RndA′) — so a candidate key can no longer be checked offline, while
/// GetVersion's frames (with their own `AF` frames) stay readable. The check itself is
/// independent of NFCKit's ciphers (`openssl enc`) and is first shown to work, and to tell the
/// key from another, on the same run traced with `--trace-unredacted`.
@Suite("DESFire authentications in a --trace file are redacted", .tags(.endToEnd), .serialized, .timeLimit(.minutes(5)))
struct DESFireTraceRedactionEndToEndTests {
    /// One authentication as the trace holds it: its code and the three cryptograms (a redacted
    /// byte is nil).
    struct Authentication {
        var code: UInt8
        var challenge: [UInt8?]
        var part2: [UInt8?]
        var confirmation: [UInt8?]
    }

    /// Every authentication in `trace` that the chip answered with a challenge (`91 AF`), with
    /// the `AF` frame after it.
    static func authentications(_ trace: ReaderTrace) -> [Authentication] {
        let exchanges = trace.events.compactMap { event -> ([UInt8?], [UInt8?])? in
            guard case .transceive(let command, _) = event.request, case .answer(let answer) = event.result else { return nil }
            return (command.values, answer.values)
        }
        var found: [Authentication] = []
        for (index, (command, answer)) in exchanges.enumerated() where command.count > 5 && command[0] == 0x90 {
            guard let code = command[1], [0x0A, 0x1A, 0xAA, 0x71].contains(code), answer.suffix(2) == [0x91, 0xAF], index + 1 < exchanges.count else { continue }
            let (next, confirmation) = exchanges[index + 1]
            guard next.count > 5, next[0] == 0x90, next[1] == 0xAF, let length = next[4] else { continue }
            found.append(Authentication(code: code, challenge: Array(answer.dropLast(2)), part2: Array(next[5..<min(5 + Int(length), next.count)]),
                                        confirmation: Array(confirmation.dropLast(2))))
        }
        return found
    }

    /// Whether `key` opens `authentication` by openssl alone: the chip's ek(RndB) and the host's
    /// ek(RndA ‖ RotL(RndB)) agree under it. CBC from a zero IV for `1A`, `AA`, `71` (the last
    /// block of the plaintext of challenge ‖ part2 is RotL(RndB) whatever the IV between them);
    /// the legacy `0A` deciphers ECB-wise and chains the host's blocks in "send mode"
    /// (x₂ = E(y₂) ⊕ y₁). Nil when a byte it needs is redacted: nothing to check.
    static func keyOpens(_ authentication: Authentication, key: [UInt8], in directory: URL) async throws -> Bool? {
        let challengeBytes = authentication.challenge.compactMap { $0 }, part2 = authentication.part2.compactMap { $0 }
        guard challengeBytes.count == authentication.challenge.count, part2.count == authentication.part2.count, !challengeBytes.isEmpty else { return nil }
        let length = challengeBytes.count
        let rotatedB: ([UInt8]) -> [UInt8] = { Array($0.dropFirst()) + [$0[0]] }
        if authentication.code == 0x0A {
            let ede3 = key.count == 8 ? key + key + key : key + Array(key.prefix(8))
            let rndB = try await openssl(["-d", "-des-ede3", "-K", Hex.encode(ede3)], challengeBytes, directory)
            let enciphered = try await openssl(["-e", "-des-ede3", "-K", Hex.encode(ede3)], part2, directory)
            guard enciphered.count == 2 * length else { return false }
            return zip(enciphered[length...], part2[..<length]).map { $0 ^ $1 } == rotatedB(rndB)
        }
        let cipher = key.count == 16 && authentication.code != 0x1A ? "-aes-128-cbc" : "-des-ede3-cbc"
        let ede3 = key.count == 16 && cipher == "-des-ede3-cbc" ? key + Array(key.prefix(8)) : key
        let blockSize = cipher == "-aes-128-cbc" ? 16 : 8
        let plain = try await openssl(["-d", cipher, "-K", Hex.encode(ede3), "-iv", String(repeating: "00", count: blockSize)], challengeBytes + part2, directory)
        guard plain.count == 3 * length else { return false }
        return Array(plain.suffix(length)) == rotatedB(Array(plain.prefix(length)))
    }

    /// `openssl enc … -nopad` on `input`, through files.
    static func openssl(_ arguments: [String], _ input: [UInt8], _ directory: URL) async throws -> [UInt8] {
        let inFile = directory.appendingPathComponent("openssl.in"), outFile = directory.appendingPathComponent("openssl.out")
        try Data(input).write(to: inFile)
        try? FileManager.default.removeItem(at: outFile)
        let run = try await runTool("/usr/bin/openssl", ["enc", "-nopad"] + arguments + ["-in", inFile.path, "-out", outFile.path], environment: ProcessInfo.processInfo.environment)
        #expect(run.status == 0, "openssl: \(run.output)")
        return Array(try Data(contentsOf: outFile))
    }

    /// GetVersion's exchanges (`90 60`, then its `AF` frames up to `91 00`) in `trace`.
    static func getVersionExchanges(_ trace: ReaderTrace) -> [([UInt8?], [UInt8?])] {
        var found: [([UInt8?], [UInt8?])] = []
        var inGetVersion = false
        for event in trace.events {
            guard case .transceive(let command, _) = event.request, case .answer(let answer) = event.result else { continue }
            let code = command.values.count > 1 && command.values[0] == 0x90 ? command.values[1] : nil
            if code == 0x60 || (inGetVersion && code == 0xAF) {
                found.append((command.values, answer.values))
                inGetVersion = answer.values.suffix(2) == [0x91, 0xAF]
            } else {
                inGetVersion = false
            }
        }
        return found
    }

    /// Runs nfctool with `arguments` and `--trace FILE` (and `--trace-unredacted` if asked) from
    /// the tag file as `state` holds it; returns the trace the process wrote.
    static func tracedRun(_ arguments: [String], file: String, state: Data, unredacted: Bool, directory: URL) async throws -> ReaderTrace {
        try state.write(to: URL(fileURLWithPath: file))
        let traceFile = directory.appendingPathComponent(unredacted ? "open.trace" : "redacted.trace").path
        let run = try await runBuiltNFCTool(arguments + ["--trace", traceFile] + (unredacted ? ["--trace-unredacted"] : []))
        #expect(run.status == 0, "\(run.output)")
        return try ReaderTrace.parse(Array(try Data(contentsOf: URL(fileURLWithPath: traceFile))))
    }

    /// The checks on one command: an authentication with code `code` in the unredacted trace is
    /// opened by `key` (and none by another key); the redacted trace's authentications have no
    /// cryptogram byte left and cannot be checked; GetVersion's frames are whole.
    static func check(_ arguments: [String], file: String, state: Data, key: String, code: UInt8, directory: URL) async throws {
        let keyBytes = try Hex.decode(key)
        let open = try await tracedRun(arguments, file: file, state: state, unredacted: true, directory: directory)
        let other = [keyBytes[0] ^ 0x02] + Array(keyBytes.dropFirst())
        var opened: [UInt8] = [], openedByOther = 0
        for authentication in authentications(open) {
            if try await keyOpens(authentication, key: keyBytes, in: directory) == true { opened.append(authentication.code) }
            if try await keyOpens(authentication, key: other, in: directory) == true { openedByOther += 1 }
        }
        #expect(opened.contains(code), "openssl's check does not recognise the key in the unredacted trace: \(opened)")
        #expect(openedByOther == 0, "openssl's check takes another key")

        let redacted = try await tracedRun(arguments, file: file, state: state, unredacted: false, directory: directory)
        let found = authentications(redacted)
        #expect(found.count == authentications(open).count && found.contains { $0.code == code }, "\(found.map(\.code))")
        for authentication in found {
            #expect(!authentication.challenge.isEmpty && authentication.challenge.allSatisfy { $0 == nil }, "ek(RndB) kept: \(authentication.challenge)")
            #expect(!authentication.part2.isEmpty && authentication.part2.allSatisfy { $0 == nil }, "ek(RndA ‖ RndB′) kept: \(authentication.part2)")
            #expect(!authentication.confirmation.isEmpty && authentication.confirmation.allSatisfy { $0 == nil }, "ek(RndA′) kept: \(authentication.confirmation)")
            #expect(try await keyOpens(authentication, key: keyBytes, in: directory) == nil)
        }
        let versions = getVersionExchanges(redacted)
        #expect(versions.contains { $0.0[1] == 0x60 }, "no GetVersion: \(versions)")
        for (command, answer) in versions {
            #expect(!command.contains(nil) && !answer.contains(nil) && answer.count > 2, "GetVersion redacted: \(command) → \(answer)")
        }
    }

    @Test(
        "format --keys on sim:desfire-ev1 (DES: 0A, 3K3DES: 1A, AES: AA) and sim:desfire-ev3 (AES: 71) with --trace: no authentication frame keeps a cryptogram, openssl can check the key only in the --trace-unredacted file, GetVersion's frames stay",
        arguments: [
            ("desfire-ev1", "des", "1032547698BADCFE", UInt8(0x0A)),
            ("desfire-ev1", "3k3des", "0022446688AACCEE1032547698BADCFE02468ACEE0C0A080", UInt8(0x1A)),
            ("desfire-ev1", "aes", "00112233445566778899AABBCCDDEEFF", UInt8(0xAA)),
            ("desfire-ev3", "aes", "00112233445566778899AABBCCDDEEFF", UInt8(0x71)),
        ])
    func formatTraceIsRedacted(model: String, type: String, key: String, code: UInt8) async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("desfire.json").path
        let generation = try #require(DESFireVirtualTag.Generation(rawValue: model))
        try TagFile(path: file).save(DESFireVirtualTag(uid: hex("04AE5000000002"), generation: generation).tagState)
        let blank = try Data(contentsOf: URL(fileURLWithPath: file))
        let keys = directory.appendingPathComponent("keys").path
        try Data("application \(type) \(key)\n".utf8).write(to: URL(fileURLWithPath: keys))
        try await Self.check(["format", "--device", "sim:\(model)?file=\(file)", "--yes", "--keys", keys, "--ndef-size", "128"],
                             file: file, state: blank, key: key, code: code, directory: directory)
    }

    @Test("protect --keys --current-keys on sim:desfire-ev1 with a DES PICC key (0A) and --trace: the PICC authentication's cryptograms are gone; openssl checks the key only in the --trace-unredacted file")
    func protectTraceIsRedacted() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("desfire.json").path
        try TagFile(path: file).save(DESFireVirtualTag(uid: hex("04AE5000000002"), generation: .ev1).tagState)
        let current = "1032547698BADCFE"
        let currentKeys = directory.appendingPathComponent("picc.key").path, newKeys = directory.appendingPathComponent("picc2.key").path
        try Data("picc des \(current)\n".utf8).write(to: URL(fileURLWithPath: currentKeys))
        try Data("picc des 02468ACEE0C0A080\n".utf8).write(to: URL(fileURLWithPath: newKeys))
        let device = "sim:desfire-ev1?file=\(file)"
        let first = try await runBuiltNFCTool(["protect", "--device", device, "--keys", currentKeys, "--yes"])
        #expect(first.status == 0, "\(first.output)")
        let state = try Data(contentsOf: URL(fileURLWithPath: file))
        try await Self.check(["protect", "--device", device, "--keys", newKeys, "--current-keys", currentKeys, "--yes"],
                             file: file, state: state, key: current, code: 0x0A, directory: directory)
        // Replayed, the redacted authentication is followed through its AF frame (a redacted byte
        // matches any; an unredacted trace diverges there, RndA being random), then the chip's
        // proof, whose bytes are gone, is refused: nothing diverges before that.
        let replay = try await runBuiltNFCTool(["protect", "--device", "replay:" + directory.appendingPathComponent("redacted.trace").path,
                                                "--keys", newKeys, "--current-keys", currentKeys, "--yes"])
        #expect(replay.status != 0)
        #expect(!replay.standardError.contains("trace has 90 AF") && !replay.standardError.contains("diverged at exchange 6:")
                && !replay.standardError.contains("diverged at exchange 7:"), "\(replay.standardError)")
        let unredactedReplay = try await runBuiltNFCTool(["protect", "--device", "replay:" + directory.appendingPathComponent("open.trace").path,
                                                          "--keys", newKeys, "--current-keys", currentKeys, "--yes"])
        #expect(unredactedReplay.standardError.contains("trace has 90 AF"), "\(unredactedReplay.standardError)")
    }

    @Test("info --trace on a DESFire EV1 whose PICC key was changed keeps GetVersion's three frames (60, AF, AF) whole")
    func getVersionFramesStay() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("desfire.json").path
        try TagFile(path: file).save(DESFireVirtualTag(uid: hex("04AE5000000002"), generation: .ev1).tagState)
        let keys = directory.appendingPathComponent("picc.key").path
        try Data("picc des 1032547698BADCFE\n".utf8).write(to: URL(fileURLWithPath: keys))
        let protected = try await runBuiltNFCTool(["protect", "--device", "sim:desfire-ev1?file=\(file)", "--keys", keys, "--yes"])
        #expect(protected.status == 0, "\(protected.output)")
        let traceFile = directory.appendingPathComponent("info.trace").path
        let run = try await runBuiltNFCTool(["info", "--device", "sim:desfire-ev1?file=\(file)", "--trace", traceFile])
        #expect(run.status == 0, "\(run.output)")
        let versions = Self.getVersionExchanges(try ReaderTrace.parse(Array(try Data(contentsOf: URL(fileURLWithPath: traceFile)))))
        #expect(versions.filter { $0.0[1] == 0xAF }.count >= 2, "\(versions)")
        for (command, answer) in versions {
            #expect(!command.contains(nil) && !answer.contains(nil) && answer.count > 2, "GetVersion redacted: \(command) → \(answer)")
        }
    }
}
