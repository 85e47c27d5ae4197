import Foundation

/// An EC key pair made by the `openssl` command-line tool for a test (never a product key): it
/// signs messages as a genuine chip's maker would, so tests can present virtual chips with valid
/// signatures under a key that is not NXP's. Files live in a fresh temporary directory.
public struct OpenSSLTestKey: Sendable {
    /// The curve's OpenSSL name (`secp128r1`, `prime192v1`, `secp224r1`).
    public let curve: String
    /// The private key file (PEM).
    public let privateKeyPath: String
    /// The public point, uncompressed (`04 ‖ X ‖ Y`).
    public let publicPoint: [UInt8]

    /// `openssl` on PATH (Debian package `openssl`).
    public static let tool = ExternalTool.program("openssl", package: "openssl")

    /// Generates a key pair with `openssl ecparam -name CURVE -genkey`.
    /// - Throws: ``MissingExternalTool`` without `openssl`; an error naming the failing step.
    public static func generate(curve: String) async throws -> OpenSSLTestKey {
        let openssl = try tool.require()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("testkey-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let key = directory.appendingPathComponent("key.pem").path
        let generated = try await runTool(openssl, ["ecparam", "-name", curve, "-genkey", "-noout", "-out", key], environment: [:])
        guard generated.status == 0 else { throw Failure(step: "ecparam -genkey", output: generated.output) }
        let publicDER = directory.appendingPathComponent("public.der").path
        let exported = try await runTool(
            openssl, ["ec", "-in", key, "-pubout", "-conv_form", "uncompressed", "-outform", "DER", "-out", publicDER],
            environment: [:])
        guard exported.status == 0 else { throw Failure(step: "ec -pubout", output: exported.output) }
        let info = [UInt8](try Data(contentsOf: URL(fileURLWithPath: publicDER)))
        // SubjectPublicKeyInfo ends with the BIT STRING holding the point: 04 ‖ X ‖ Y.
        let fieldLength = curve == "secp224r1" ? 28 : curve == "secp128r1" ? 16 : curve == "prime192v1" || curve == "secp192r1" ? 24 : 32
        let pointLength = 1 + 2 * fieldLength
        guard info.count > pointLength, info[info.count - pointLength] == 0x04 else {
            throw Failure(step: "reading the public point", output: "unexpected DER of \(info.count) bytes")
        }
        return OpenSSLTestKey(curve: curve, privateKeyPath: key, publicPoint: Array(info.suffix(pointLength)))
    }

    /// Signs `message` as the digest itself, unhashed (`openssl pkeyutl -sign`, no `-digest`):
    /// the DER `ECDSA-Sig-Value`.
    public func signDER(_ message: [UInt8]) async throws -> [UInt8] {
        let openssl = try Self.tool.require()
        let directory = URL(fileURLWithPath: privateKeyPath).deletingLastPathComponent()
        let input = directory.appendingPathComponent("message-\(UUID().uuidString).bin")
        let output = directory.appendingPathComponent("signature-\(UUID().uuidString).der")
        try Data(message).write(to: input)
        let run = try await runTool(openssl, ["pkeyutl", "-sign", "-inkey", privateKeyPath, "-in", input.path, "-out", output.path],
                              environment: [:])
        guard run.status == 0 else { throw Failure(step: "pkeyutl -sign", output: run.output) }
        return [UInt8](try Data(contentsOf: output))
    }

    /// An `openssl` step failed.
    public struct Failure: Error, CustomStringConvertible {
        /// The step.
        public let step: String
        /// What openssl printed.
        public let output: String
        /// `openssl STEP failed: OUTPUT`.
        public var description: String { "openssl \(step) failed: \(output)" }
    }
}
