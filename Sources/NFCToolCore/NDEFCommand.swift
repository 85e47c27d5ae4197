import CommandLineKit
import Foundation
import NDEF
import NFCCore

/// `nfctool ndef`: groups the NDEF message commands.
struct NDEFCommand: CommandGroup {
    static let configuration = CommandConfiguration(
        name: "ndef",
        abstract: "Encode and decode NDEF messages without a tag.",
        discussion: "NDEF is the format tags store URLs, texts and Wi-Fi credentials in. See docs/ndef.md.",
        subcommands: [NDEFEncodeCommand.self, NDEFDecodeCommand.self]
    )
}
