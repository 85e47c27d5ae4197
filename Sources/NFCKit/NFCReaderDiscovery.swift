import Foundation
public import NFCTags
import LibNFC
import PCSC
import VirtualTags

/// A reader found on this machine: what `nfctool devices` lists and `doctor` counts.
public struct NFCReaderDescription: Sendable, Hashable {
    /// The name its driver reports once opened, e.g. `ACS / ACR122U PICC Interface`; `nil`
    /// when it could not be opened to ask (busy, no permission, gone since the scan).
    public var name: String?
    /// The connection string that opens it, e.g. `pn53x_usb:001:004`.
    public var connectionString: String

    /// A reader description.
    public init(name: String?, connectionString: String) {
        self.name = name
        self.connectionString = connectionString
    }
}

/// Finding the readers of this machine, whatever stack drives them: libnfc's, then pcscd's.
public enum NFCReaderDiscovery {
    /// libnfc's version, e.g. `1.8.0`.
    public static var libnfcVersion: String { LibNFCContext.version }

    /// libnfc's version when it loads, else why it cannot be loaded (for `doctor`).
    public static var libnfcLoad: Result<String, NFCReaderDeviceError> {
        LibNFCContext.loadedVersion.mapError { NFCReaderDeviceError(.notSupported, $0.reason) }
    }

    /// The tag models the simulator knows, as `sim:MODEL` connection strings name them
    /// (`ntag215`, `type4`, …), in the simulator's order: what `--device` completes to besides
    /// the readers found.
    public static var simulatorModelNames: [String] { TagModel.all.map(\.name) }

    /// Whether libnfc's own log, down to debug messages, reaches standard error (`LIBNFC_LOG_LEVEL`
    /// set by the user wins over this).
    public static func setVerboseLogging(_ verbose: Bool) async {
        await LibNFCContext.shared.setLogging(verbose ? .debug : .silent)
    }

    /// The readers libnfc finds, in libnfc's order, then the PC/SC readers pcscd knows (as
    /// `pcsc:NAME`, in pcscd's order); none of the latter when pcscd is not running.
    /// - Throws: ``NFCReaderDeviceError`` `io` when libnfc cannot be initialised or cannot list.
    public static func listReaders() async throws(NFCReaderDeviceError) -> [NFCReaderDescription] {
        try await listLibNFCReaders() + (await listPCSCReaders())
    }

    /// The readers libnfc finds, in libnfc's order: the only ones that can have target mode
    /// (card emulation), which PC/SC readers and the simulator lack.
    /// - Throws: ``NFCReaderDeviceError`` `io` when libnfc cannot be initialised or cannot list.
    public static func listLibNFCReaders() async throws(NFCReaderDeviceError) -> [NFCReaderDescription] {
        do {
            return try await LibNFCContext.shared.listDevices().map {
                NFCReaderDescription(name: $0.name, connectionString: $0.connectionString)
            }
        } catch {
            throw NFCReaderDeviceError(.io, "libnfc could not list readers: \(error)")
        }
    }

    /// The names of the PC/SC readers pcscd knows, in its order (`pcsc:#N` numbering).
    /// - Throws: ``NFCReaderDeviceError`` `deviceNotFound` when pcscd is not running, `io` otherwise.
    public static func pcscReaderNames() async throws(NFCReaderDeviceError) -> [String] {
        try await PCSCReader.readerNames()
    }

    /// The title of the reader profile NFCKit uses for a PC/SC reader of this name
    /// (`ACS ACR1552U`, `generic PC/SC Part 3`).
    public static func pcscProfileTitle(forReaderNamed name: String) -> String {
        PCSCReaderProfile.matching(readerName: name).title
    }

    /// The PC/SC readers pcscd knows, in its order; empty when pcscd is not running or fails.
    public static func listPCSCReaders() async -> [NFCReaderDescription] {
        let names = (try? await PCSCReader.readerNames()) ?? []
        return names.map { NFCReaderDescription(name: $0, connectionString: "pcsc:" + $0) }
    }
}

/// The Linux kernel's own NFC drivers, which claim USB readers before libnfc can open them: the
/// one place that tells whether they are loaded (read from `/proc/modules`).
public enum KernelNFCDrivers {
    /// The modules that claim PN53x USB readers, `pn533_usb` first.
    public static let modules = ["pn533_usb", "pn533", "nfc"]

    /// The NFC modules loaded now, in ``modules`` order; `nil` when `/proc/modules` (under
    /// `root`, for tests against fixture trees) cannot be read.
    public static func loaded(root: String = "/") -> [String]? {
        let path = (root == "/" ? "" : (root.hasSuffix("/") ? String(root.dropLast()) : root)) + "/proc/modules"
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        let names = Set(String(decoding: data, as: UTF8.self).split(separator: "\n").compactMap {
            $0.split(separator: " ").first.map(String.init)
        })
        return modules.filter(names.contains)
    }
}
