import CommandLineKit
import Foundation
import NFCCore
import NFCKit

/// What `nfctool devices` prints, as text for people or JSON for scripts.
struct DevicesReport: Sendable, Hashable {
    /// libnfc's version, e.g. `1.8.0`.
    let libnfcVersion: String
    /// The readers found, in libnfc's order.
    let devices: [NFCReaderDescription]

    /// Where to look when no reader shows up.
    static let noReaderHints = """
        Hints:
          - USB reader: check the cable, and that the kernel's pn533_usb module has not
            claimed it (sudo modprobe -r pn533_usb pn533 nfc).
          - Serial reader: libnfc finds one only when told where it is, e.g.
            LIBNFC_DEFAULT_DEVICE=pn532_uart:/dev/ttyUSB0 nfctool devices
          - Permissions: a udev rule for the reader, or the plugdev/dialout group.
          - 'nfctool devices --verbose' shows libnfc's own log.
        """

    /// The text form, ending in a newline.
    var text: String {
        guard !devices.isEmpty else {
            return "No NFC reader found (libnfc \(libnfcVersion)).\n\(Self.noReaderHints)\n"
        }
        let count = devices.count == 1 ? "1 NFC reader" : "\(devices.count) NFC readers"
        var text = "\(count) found (libnfc \(libnfcVersion)):\n"
        for device in devices {
            text += "- \(device.name ?? "(name unknown: the reader could not be opened)")\n"
            text += "  connection: \(device.connectionString)\n"
        }
        return text
    }

    /// The JSON form on one line, keys sorted, ending in a newline:
    /// `{"devices":[{"connection":"…","name":"…"}],"libnfc":"1.8.0"}`; an unknown name is
    /// `null`.
    var json: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding strings and optional strings cannot fail.
        let data = (try? encoder.encode(JSONForm(self))) ?? Data()
        return TerminalSafeText.escapingInJSON(String(decoding: data, as: UTF8.self)) + "\n"
    }

    /// The JSON shape: stable key names independent of the Swift property names.
    private struct JSONForm: Encodable {
        struct Device: Encodable {
            let name: String?
            let connection: String

            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode(name, forKey: .name)  // null when unknown, never left out
                try container.encode(connection, forKey: .connection)
            }

            private enum CodingKeys: String, CodingKey { case name, connection }
        }

        let libnfc: String
        let devices: [Device]

        init(_ report: DevicesReport) {
            libnfc = report.libnfcVersion
            devices = report.devices.map { Device(name: $0.name, connection: $0.connectionString) }
        }
    }
}
