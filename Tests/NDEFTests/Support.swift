import Foundation
import NFCTestSupport
import NFCCore
@testable import NDEF

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
