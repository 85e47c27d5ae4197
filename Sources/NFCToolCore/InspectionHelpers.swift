import CommandLineKit
import Foundation
import NFCCore
import NFCTags

/// Polls again for the tag, so that a chip a NAK sent to IDLE answers the next command.
func reselect(_ reader: any NFCReader, _ modulation: Modulation) async {
    _ = try? await reader.poll(for: [modulation], timeout: .milliseconds(500))
}

/// `unknown (reason)` for an error.
func unknown(_ error: any Error) -> String {
    "unknown (\((error as? NFCTagError)?.reason ?? String(describing: error)))"
}

/// A byte in two upper-case hex digits.
func hexByte(_ byte: UInt8) -> String {
    Hex.encode([byte], uppercase: true)
}

/// `0453494D` → `04 53 49 4D`.
func spacedHex(_ hex: String) -> String {
    var result = ""
    for (index, character) in hex.enumerated() {
        if index > 0, index % 2 == 0 { result.append(" ") }
        result.append(character)
    }
    return result
}
