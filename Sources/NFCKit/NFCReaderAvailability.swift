import Foundation
import LibNFC
import NFCTags
import VirtualTags

/// Whether a reader is there to start a session on, and if not, why: CoreNFC's
/// `readingAvailable`, for a connection string. Check it with ``check(connection:)``.
///
/// Only what can be known from here is said: whether libnfc lists any device, whether a device
/// node named in the connection string exists and may be opened read-write, whether the Linux
/// kernel's `pn533_usb` module is loaded (it claims PN533/ACR122 USB readers before libnfc can),
/// and what opening the reader answered.
public struct NFCReaderAvailability: Sendable, Hashable, CustomStringConvertible {
    /// The verdict.
    public enum Status: String, Sendable, Hashable, CaseIterable {
        /// The reader opened: a session can begin on it.
        case available
        /// libnfc found no device, or the device node named does not exist.
        case noReader
        /// The device node exists but this user may not open it read-write (a udev rule, or the
        /// `dialout`/`plugdev` group, is needed).
        case permissionDenied
        /// The kernel's `pn533_usb` module is loaded and may hold the USB reader libnfc wants.
        case claimedByKernelModule
        /// The connection string is malformed (a bad `sim:` string).
        case invalidConnectionString
        /// The reader is there but did not open; ``reason`` says what libnfc answered.
        case openFailed
        /// A session (of any kind, in this process or another) holds the reader; it is not
        /// opened, so the session is not disturbed.
        case busy
    }

    /// The verdict.
    public var status: Status
    /// The reader's name when it opened (`simulator (ntag215)`, `pn532_uart:/dev/pts/3`).
    public var readerName: String?
    /// A human explanation, with what to do about it.
    public var reason: String

    /// Whether a session can begin on the reader.
    public var isAvailable: Bool { status == .available }

    /// Creates a verdict.
    public init(status: Status, readerName: String? = nil, reason: String) {
        self.status = status
        self.readerName = readerName
        self.reason = reason
    }

    /// "reason [status]".
    public var description: String { "\(reason) [\(status.rawValue)]" }

    /// Opens the reader `connection` names (libnfc's connection string, `sim:…`, or `nil` /
    /// `default` for libnfc's default device), closes it again, and says whether that worked and
    /// why not. A reader a session holds (in any process) is ``Status/busy`` and left alone.
    public static func check(connection: String?) async -> NFCReaderAvailability {
        let parsed = ReaderConnectionString(connection)
        let name = parsed.text
        let isSimulator = parsed.isInProcess
        if parsed.isSimulator {
            do {
                _ = try SimulatorConfiguration(parsing: name)
            } catch {
                return NFCReaderAvailability(status: .invalidConnectionString, reason: error.reason)
            }
        } else if !isSimulator, !ReaderLease.acquire(.connection(name)) {
            return NFCReaderAvailability(status: .busy, reason: "the reader '\(name)' is in use by another session")
        }
        // Held while the reader is opened and closed, so no session begins on it meanwhile.
        defer { if !isSimulator { ReaderLease.release(.connection(name)) } }
        if !isSimulator, let path = devicePath(in: name) {
            if !FileManager.default.fileExists(atPath: path) {
                return NFCReaderAvailability(status: .noReader, reason: "no device node \(path): is the reader plugged in?")
            }
            if !FileManager.default.isReadableFile(atPath: path) || !FileManager.default.isWritableFile(atPath: path) {
                return NFCReaderAvailability(
                    status: .permissionDenied,
                    reason: "\(path) cannot be opened read-write by this user: add a udev rule or join the group that owns it (dialout, plugdev)")
            }
        } else if name == "default", (try? await NFCReaderDiscovery.listReaders())?.isEmpty ?? true {
            return unopened("libnfc found no reader", connection: name)
        }
        do {
            let reader = try await ReaderConnection.open(connection)
            let readerName = await reader.name
            await reader.close()
            return NFCReaderAvailability(status: .available, readerName: readerName, reason: "\(readerName) is ready")
        } catch {
            if error.code == .invalidArgument {
                return NFCReaderAvailability(status: .invalidConnectionString, reason: error.reason)
            }
            return unopened("cannot open reader '\(name)': \(error.reason)", connection: name)
        }
    }

    /// The verdict for a reader that did not open: the kernel module when it could be the cause.
    private static func unopened(_ reason: String, connection: String) -> NFCReaderAvailability {
        let usb = connection == "default" || connection.contains("usb")
        if usb && KernelNFCDrivers.loaded()?.contains("pn533_usb") == true {
            return NFCReaderAvailability(
                status: .claimedByKernelModule,
                reason: "\(reason); the kernel module pn533_usb is loaded and claims USB readers: sudo modprobe -r pn533_usb pn533 nfc")
        }
        let status: Status = connection == "default" ? .noReader : .openFailed
        return NFCReaderAvailability(status: status, reason: reason)
    }

    /// The device node of a libnfc connection string (`pn532_uart:/dev/ttyUSB0:115200` →
    /// `/dev/ttyUSB0`), if it names one.
    static func devicePath(in connection: String) -> String? {
        let parts = connection.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count >= 2, parts[1].hasPrefix("/") else { return nil }
        return String(parts[1])
    }
}
