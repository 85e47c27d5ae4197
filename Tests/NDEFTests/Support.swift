import Foundation
import NFCCore
@testable import NDEF

/// Bytes from hex text with spaces; test literals only.
func hex(_ text: String) -> [UInt8] {
    do { return try Hex.decode(text) } catch { fatalError("bad hex literal in test: \(error)") }
}

/// The `Tests/Fixtures` directory of this checkout.
let fixturesDirectory = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fixtures")

/// Decodes strictly, returning the error code on failure.
func decodeError(_ bytes: [UInt8]) -> NDEFError? {
    do {
        _ = try NDEFMessage(bytes: bytes)
        return nil
    } catch {
        return error
    }
}

/// A deterministic pseudo-random generator (SplitMix64) so failures reproduce.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
