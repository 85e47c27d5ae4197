import Foundation

/// The `openssl` command-line tool as the independent judge of the cryptography tests: block
/// encryption in CBC (`openssl enc … -nopad`) and CMAC (`openssl mac … CMAC`), each run as a
/// child process on a temporary file, so that nothing of NFCCrypto takes part in the answer.
public enum OpenSSLCipherOracle {
    /// A failed openssl run: its arguments and output.
    public struct Failure: Error, CustomStringConvertible {
        /// What was run and what it printed.
        public let description: String
    }

    /// `plain` enciphered in CBC mode from `iv` without padding: `cipher` as openssl names it
    /// (`aes-128-cbc`, `des-ede-cbc` for a doubled DES key, `des-ede3-cbc`).
    /// - Throws: ``MissingExternalTool`` without openssl; ``Failure`` when openssl fails.
    public static func encryptCBC(cipher: String, key: [UInt8], iv: [UInt8], _ plain: [UInt8]) async throws -> [UInt8] {
        try await run(plain) { file in
            ["enc", "-\(cipher)", "-K", hexText(key), "-iv", hexText(iv), "-nopad", "-in", file]
        }.bytes
    }

    /// `cipherText` deciphered in CBC mode from `iv` without padding (`openssl enc -d`).
    /// - Throws: ``MissingExternalTool`` without openssl; ``Failure`` when openssl fails.
    public static func decryptCBC(cipher: String, key: [UInt8], iv: [UInt8], _ cipherText: [UInt8]) async throws -> [UInt8] {
        try await run(cipherText) { file in
            ["enc", "-d", "-\(cipher)", "-K", hexText(key), "-iv", hexText(iv), "-nopad", "-in", file]
        }.bytes
    }

    /// The CMAC of `message` (zero IV, NIST SP 800-38B) under `key`: `cipher` as openssl's
    /// `mac -cipher` names it (`AES-128-CBC`, `DES-EDE-CBC`, `DES-EDE3-CBC`).
    /// - Throws: ``MissingExternalTool`` without openssl; ``Failure`` when openssl fails.
    public static func cmac(cipher: String, key: [UInt8], _ message: [UInt8]) async throws -> [UInt8] {
        let printed = try await run(message) { file in
            ["mac", "-cipher", cipher, "-macopt", "hexkey:\(hexText(key))", "-in", file, "CMAC"]
        }
        return try bytes(fromHex: printed.text)
    }

    /// Runs openssl on `input` written to a temporary file: what it wrote to `-out` (added for
    /// `enc`) and what it printed (`mac`).
    private static func run(_ input: [UInt8], arguments: (String) -> [String]) async throws -> (bytes: [UInt8], text: String) {
        let openssl = try OpenSSLTestKey.tool.require()
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("input.bin")
        let output = directory.appendingPathComponent("output.bin")
        try Data(input).write(to: file)
        var given = arguments(file.path)
        let isMAC = given.first == "mac"
        if !isMAC { given += ["-out", output.path] }
        let result = try await runTool(openssl, given, environment: ["PATH": "/usr/bin:/bin"], mergingStandardError: false)
        guard result.status == 0 else { throw Failure(description: "openssl \(given.joined(separator: " ")): \(result.output)") }
        if isMAC { return ([], result.standardOutput) }
        return ([UInt8](try Data(contentsOf: output)), result.standardOutput)
    }

    /// Hex digits of `bytes`, uppercase.
    private static func hexText(_ bytes: [UInt8]) -> String {
        bytes.map { String(format: "%02X", $0) }.joined()
    }

    /// The bytes of a hex text (whitespace ignored).
    private static func bytes(fromHex text: String) throws -> [UInt8] {
        let digits = Array(text.filter { !$0.isWhitespace })
        guard digits.count % 2 == 0 else { throw Failure(description: "odd hex output '\(text)'") }
        return try stride(from: 0, to: digits.count, by: 2).map { index in
            guard let byte = UInt8(String(digits[index...index + 1]), radix: 16) else { throw Failure(description: "not hex: '\(text)'") }
            return byte
        }
    }
}
