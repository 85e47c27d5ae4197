import NFCCore
import NFCTags

/// What `info` shows of a MIFARE DESFire: GetVersion (hardware and software version, storage),
/// free memory, the PICC key settings and the applications with their key settings, read
/// without authentication; what the card refuses is left out.
struct DESFireInfo: Encodable, Sendable, Hashable {
    /// One application.
    struct Application: Encodable, Sendable, Hashable {
        /// The AID as users write it (most significant byte first).
        var aid: String
        /// Key settings and number-of-keys byte, hex; nil when refused.
        var keySettings: String?
        /// Whether this is AN11004's NDEF Tag Application (AID 000001).
        var ndef: Bool
    }

    var hardwareVersion: String
    var softwareVersion: String
    var storageBytes: Int?
    var freeMemory: Int?
    var piccKeySettings: String?
    /// The AIDs; nil when the listing needs the PICC master key.
    var applications: [Application]?

    /// Reads what the DESFire tells without a key; nil when it does not answer GetVersion.
    static func read(_ tag: DESFireTag) async -> DESFireInfo? {
        guard (try? await tag.selectApplication(DESFire.piccApplicationID)) != nil, let version = try? await tag.version() else { return nil }
        var info = DESFireInfo(
            hardwareVersion: "\(version.hardware.major).\(version.hardware.minor)", softwareVersion: "\(version.software.major).\(version.software.minor)",
            storageBytes: version.hardware.storageBytes)
        info.freeMemory = try? await tag.freeMemory()
        info.piccKeySettings = (try? await tag.keySettings()).map { Hex.encode([$0.settings, $0.keyCount], uppercase: true) }
        if let aids = try? await tag.applicationIDs() {
            var applications: [Application] = []
            for aid in aids {
                var settings: String?
                if (try? await tag.selectApplication(aid)) != nil {
                    settings = (try? await tag.keySettings()).map { Hex.encode([$0.settings, $0.keyCount], uppercase: true) }
                }
                applications.append(Application(
                    aid: Hex.encode(aid.reversed(), uppercase: true), keySettings: settings, ndef: aid == DESFire.TypeFourMapping.applicationID))
            }
            _ = try? await tag.selectApplication(DESFire.piccApplicationID)
            info.applications = applications
        }
        return info
    }

    /// The lines `info` prints.
    var lines: [String] {
        var lines = ["  DESFire:      hardware \(hardwareVersion), software \(softwareVersion)"
            + (storageBytes.map { ", storage \($0) bytes" } ?? "")]
        lines.append("  free memory:  " + (freeMemory.map { "\($0) bytes" } ?? "unknown"))
        lines.append("  PICC keys:    settings " + (piccKeySettings ?? "refused"))
        if let applications {
            lines.append("  applications: \(applications.isEmpty ? "none" : String(applications.count))")
            for application in applications {
                lines.append("    \(application.aid)\(application.ndef ? " (NFC Forum Type 4, AN11004)" : "") key settings \(application.keySettings ?? "refused")")
            }
        } else {
            lines.append("  applications: listing needs the PICC master key")
        }
        return lines
    }
}
