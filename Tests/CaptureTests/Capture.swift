import Foundation
import NFCCore
import NFCTags
import Testing

/// One public capture of a real chip or reader: a file of `Tests/Fixtures/captures` (its README
/// gives the layout). Every field but `chip` and `source` is optional; each test takes the
/// captures that carry what it checks.
struct Capture: Decodable, Sendable, CustomTestStringConvertible {
    /// One command and the answer the real chip or reader gave, in hex.
    struct Exchange: Decodable, Sendable {
        /// The command: a frame to the chip without CRC (`tag`), a command APDU (`apdu`), or a
        /// PN532 command's packet data after the TFI (`pn532`).
        var command: String
        /// The answer, in the same layer.
        var answer: String
        /// How much of the answer a model can be held to: nil for every byte, `uid-and-length`
        /// for an answer carrying chip-unique bytes after the UID (batch number, fab date), which
        /// must start with the UID, have the same length and end with the same status word.
        var compare: String?
    }

    /// The file name without `.json`.
    var name = ""
    /// The chip (or reader) as the source names it.
    var chip: String
    /// The reader the capture was made with, when the source names one.
    var reader: String?
    /// Where the bytes are published: repository, path and commit, or document and section.
    var source: String
    /// What the exchanges go through: `tag`, `apdu` or `pn532`.
    var layer: String?
    /// The simulator's model (`sim:` name) standing for this chip, when NFCKit has one.
    var simulatorModel: String?
    var uid: String?
    /// ATQA as a number, most significant byte first (`0044`), as nfc-list and Proxmark3 print it.
    var atqa: String?
    var sak: String?
    var ats: String?
    /// The ATR a PC/SC reader gave for the card.
    var atr: String?
    /// The PC/SC Part 3 card name the ATR's source gives.
    var atrCardName: String?
    var idm: String?
    var pmm: String?
    var systemCode: String?
    var exchanges: [Exchange]?
    /// The model name NFCKit's identification must give (the source's name in NFCKit's spelling).
    var identifiedAs: String?
    /// User memory in bytes the source shows (for identification).
    var memoryBytes: Int?
    /// The chip's originality signature and the key the source names for it.
    var signature: String?
    var signatureKey: String?
    /// False when the source shows a signature that must not verify (a non-NXP chip's zeros).
    var signatureGenuine: Bool?

    private enum CodingKeys: String, CodingKey {
        case chip, reader, source, layer, simulatorModel, uid, atqa, sak, ats, atr, atrCardName, idm, pmm, systemCode
        case exchanges, identifiedAs, memoryBytes, signature, signatureKey, signatureGenuine
    }

    var testDescription: String { name }

    /// The repository or document the source names (its first word), to count independent sources.
    var sourceOrigin: String { String(source.split(separator: " ").first ?? "") }

    /// `Tests/Fixtures/captures`, found from this file's path.
    static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // CaptureTests
        .deletingLastPathComponent()  // Tests
        .appendingPathComponent("Fixtures/captures", isDirectory: true)

    /// Every capture in the directory, by file name. A file that does not decode is a test
    /// issue (``loadFailures``), not a silent omission.
    static let all: [Capture] = load().captures
    /// Files that did not decode, with the reason.
    static let loadFailures: [String] = load().failures

    private static func load() -> (captures: [Capture], failures: [String]) {
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? [])
            .filter { $0.hasSuffix(".json") }.sorted()
        var captures: [Capture] = []
        var failures: [String] = []
        for file in names {
            do {
                var capture = try JSONDecoder().decode(Capture.self, from: Data(contentsOf: directory.appendingPathComponent(file)))
                capture.name = String(file.dropLast(".json".count))
                captures.append(capture)
            } catch {
                failures.append("\(file): \(error)")
            }
        }
        return (captures, failures)
    }
}

/// Bytes from a capture's hex; an invalid string is a test issue and gives no bytes.
func bytes(_ hex: String?, sourceLocation: SourceLocation = #_sourceLocation) -> [UInt8] {
    guard let hex else { return [] }
    do {
        return try Hex.decode(hex)
    } catch {
        Issue.record("invalid hex \(hex)", sourceLocation: sourceLocation)
        return []
    }
}
