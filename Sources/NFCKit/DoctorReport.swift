import Foundation
public import NFCTags

// The Linux set-up checklist for NFC readers (`nfctool doctor`): which facts are read where, and
// what counts as ok, a warning or a problem. Every path is read under a root directory, so tests
// run it against fixture trees. The CLI only prints it.
/// The files doctor reads, under a root directory.
public struct DoctorSystem: Sendable {
    /// The directory standing for `/`.
    public let root: String

    /// The files under `root` (`/` for this machine).
    public init(root: String) { self.root = root }

    /// `path` (absolute) under the root.
    public func path(_ path: String) -> String {
        root == "/" ? path : (root.hasSuffix("/") ? String(root.dropLast()) : root) + path
    }

    /// The file's text, or nil when it cannot be read.
    public func text(_ path: String) -> String? {
        FileManager.default.contents(atPath: self.path(path)).map { String(decoding: $0, as: UTF8.self) }
    }

    /// The names in a directory, sorted; empty when it cannot be read.
    public func list(_ path: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: self.path(path))) ?? []).sorted()
    }

    /// The permission bits of a file, if it exists.
    public func mode(_ path: String) -> Int? {
        ((try? FileManager.default.attributesOfItem(atPath: self.path(path)))?[.posixPermissions] as? NSNumber)?.intValue
    }

    /// The group owning a file (its ID), if it exists.
    public func groupID(_ path: String) -> Int? {
        ((try? FileManager.default.attributesOfItem(atPath: self.path(path)))?[.groupOwnerAccountID] as? NSNumber)?.intValue
    }
}

/// One USB reader model: vendor and product ID, as lsusb shows them.
public struct USBReaderID: Sendable, Hashable {
    /// The USB vendor ID, four lower-case hex digits.
    public let vendor: String
    /// The USB product ID, four lower-case hex digits.
    public let product: String
    /// The reader's name for people.
    public let name: String

    /// The USB readers libnfc 1.8.0 drives: the device tables of its `pn53x_usb` driver
    /// (`pn53x_usb_model` list) and its `acr122_usb` driver (ACR122, Touchatag, ACR1222); the
    /// same list as Scripts/udev/99-nfckit.rules. libnfc's own `contrib/udev/93-pn53x.rules`
    /// lacks the ACR1222 (`072f:2214`).
    public static let known: [USBReaderID] = [
        USBReaderID(vendor: "04cc", product: "0531", name: "Philips/NXP PN531"),
        USBReaderID(vendor: "054c", product: "0193", name: "Sony PN531"),
        USBReaderID(vendor: "04cc", product: "2533", name: "NXP PN533"),
        USBReaderID(vendor: "04e6", product: "5591", name: "SCM SCL3711"),
        USBReaderID(vendor: "04e6", product: "5594", name: "SCM SCL3712"),
        USBReaderID(vendor: "1fd3", product: "0608", name: "ASK LoGO"),
        USBReaderID(vendor: "054c", product: "02e1", name: "Sony RC-S360"),
        USBReaderID(vendor: "072f", product: "2200", name: "ACS ACR122U"),
        USBReaderID(vendor: "072f", product: "90cc", name: "Touchatag (ACR122U)"),
        USBReaderID(vendor: "072f", product: "2214", name: "ACS ACR1222"),
    ]
}

/// One line of the checklist.
public struct DoctorItem: Encodable, Sendable, Hashable {
    /// `ok`, `warning` or `problem`.
    public enum Status: String, Encodable, Sendable {
        case ok, warning, problem
    }

    /// What is checked, e.g. `kernel modules`.
    public var name: String
    /// The verdict.
    public var status: Status
    /// What was found.
    public var detail: String
    /// How to fix it; empty when ok.
    public var fix: String
}

/// The checklist.
public struct DoctorReport: Encodable, Sendable {
    /// The items, in checking order.
    public var checks: [DoctorItem]
    /// How many items are problems.
    public var problems: Int { checks.filter { $0.status == .problem }.count }
    /// How many items are warnings.
    public var warnings: Int { checks.filter { $0.status == .warning }.count }

    private enum CodingKeys: String, CodingKey { case checks, problems, warnings }

    /// Encodes the items with the problem and warning counts.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(checks, forKey: .checks)
        try container.encode(problems, forKey: .problems)
        try container.encode(warnings, forKey: .warnings)
    }


    /// The blacklist file doctor and docs/hardware.md recommend.
    public static let blacklistFile = "/etc/modprobe.d/blacklist-nfc.conf"

    /// Runs every check.
    public static func make(
        system: DoctorSystem, environment: [String: String], libnfc: Result<String, NFCReaderDeviceError>,
        readers: Result<[NFCReaderDescription], NFCReaderDeviceError>,
        pcscReaders: Result<[String], NFCReaderDeviceError> = .success([])
    ) -> DoctorReport {
        var checks: [DoctorItem]
        switch libnfc {
        case .success(let version):
            checks = [DoctorItem(name: "libnfc", status: .ok, detail: "libnfc \(version) loaded", fix: "")]
        case .failure(let error):
            // Not loadable is a problem, not "libnfc unavailable (…) loaded" marked ok.
            checks = [DoctorItem(name: "libnfc", status: .problem, detail: error.reason, fix: "apt install libnfc6")]
        }
        switch readers {
        case .success(let devices) where devices.isEmpty:
            checks.append(DoctorItem(
                name: "readers", status: .warning, detail: "libnfc finds no reader",
                fix: "plug a reader in; for a serial one set LIBNFC_DEFAULT_DEVICE or add /etc/nfc/devices.d/NAME.conf"))
        case .success(let devices):
            let names = devices.map { $0.name ?? $0.connectionString }.joined(separator: ", ")
            checks.append(DoctorItem(name: "readers", status: .ok, detail: "\(devices.count) found: \(names)", fix: ""))
        case .failure(let error):
            checks.append(DoctorItem(
                name: "readers", status: .problem, detail: error.reason,
                fix: "run 'nfctool devices --verbose' to see libnfc's log"))
        }
        checks.append(kernelCheck(system))
        checks += usbChecks(system)
        checks.append(configurationCheck(system))
        checks.append(environmentCheck(environment))
        checks += pcscChecks(system, environment: environment, readers: pcscReaders)
        return DoctorReport(checks: checks)
    }

    /// Whether pn533_usb/pn533/nfc are loaded (/proc/modules) or blacklisted (/etc/modprobe.d).
    public static func kernelCheck(_ system: DoctorSystem) -> DoctorItem {
        let blacklisted = Set(system.list("/etc/modprobe.d").filter { $0.hasSuffix(".conf") }.flatMap { name -> [String] in
            (system.text("/etc/modprobe.d/\(name)") ?? "").split(separator: "\n").compactMap { line in
                let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
                return words.count >= 2 && words[0] == "blacklist" ? String(words[1]) : nil
            }
        })
        let fix = "sudo modprobe -r pn533_usb pn533 nfc, then blacklist them in \(blacklistFile) (docs/hardware.md)"
        guard let loadedNFC = KernelNFCDrivers.loaded(root: system.root) else {
            return DoctorItem(name: "kernel drivers", status: .warning, detail: "cannot read /proc/modules", fix: fix)
        }
        let missing = ["pn533_usb", "pn533"].filter { !blacklisted.contains($0) }
        if !loadedNFC.isEmpty {
            return DoctorItem(
                name: "kernel drivers", status: .problem,
                detail: "loaded: \(loadedNFC.joined(separator: ", ")) (they claim USB readers before libnfc)", fix: fix)
        }
        if !missing.isEmpty {
            return DoctorItem(
                name: "kernel drivers", status: .warning,
                detail: "not loaded, but not blacklisted: \(missing.joined(separator: ", ")) will load when a reader is plugged in",
                fix: "put 'blacklist pn533_usb', 'blacklist pn533' and 'blacklist nfc' in \(blacklistFile)")
        }
        return DoctorItem(name: "kernel drivers", status: .ok, detail: "pn533_usb and pn533 not loaded and blacklisted", fix: "")
    }

    /// The udev rule for the known USB readers, and the permissions of those plugged in.
    public static func usbChecks(_ system: DoctorSystem) -> [DoctorItem] {
        let install = "sudo cp Scripts/udev/99-nfckit.rules /etc/udev/rules.d/ && sudo udevadm control --reload && sudo udevadm trigger"
        var ruled = false
        for directory in ["/etc/udev/rules.d", "/lib/udev/rules.d", "/usr/lib/udev/rules.d"] {
            for name in system.list(directory) where name.hasSuffix(".rules") {
                let text = (system.text("\(directory)/\(name)") ?? "").lowercased()
                if USBReaderID.known.contains(where: { text.contains("\"\($0.vendor)\"") && text.contains("\"\($0.product)\"") }) {
                    ruled = true
                }
            }
        }
        var checks = [ruled
            ? DoctorItem(name: "udev rules", status: .ok, detail: "a udev rule covers the common USB readers", fix: "")
            : DoctorItem(name: "udev rules", status: .warning, detail: "no udev rule for NFC readers: only root can open USB readers", fix: install)]
        var plugged: [DoctorItem] = []
        for device in system.list("/sys/bus/usb/devices") {
            let base = "/sys/bus/usb/devices/\(device)"
            guard let vendor = system.text("\(base)/idVendor")?.trimmingCharacters(in: .whitespacesAndNewlines).lowercased(),
                  let product = system.text("\(base)/idProduct")?.trimmingCharacters(in: .whitespacesAndNewlines).lowercased(),
                  let model = USBReaderID.known.first(where: { $0.vendor == vendor && $0.product == product }),
                  let bus = system.text("\(base)/busnum").flatMap({ Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }),
                  let number = system.text("\(base)/devnum").flatMap({ Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) })
            else { continue }
            let node = String(format: "/dev/bus/usb/%03d/%03d", bus, number)
            guard let mode = system.mode(node) else {
                plugged.append(DoctorItem(name: "USB permissions", status: .warning, detail: "\(model.name): \(node) is missing", fix: "unplug and plug the reader in again"))
                continue
            }
            let bits = String(mode & 0o777, radix: 8)
            // Open to all; to a group other than root's (plugdev, with the rule); or to this
            // (non-root) user through a group or a uaccess ACL.
            let group = system.groupID(node) ?? 0
            if mode & 0o006 == 0o006 {
                plugged.append(DoctorItem(name: "USB permissions", status: .ok, detail: "\(model.name) at \(node) (mode \(bits)) opens for every user", fix: ""))
            } else if mode & 0o060 == 0o060 && group != 0 {
                plugged.append(DoctorItem(
                    name: "USB permissions", status: .ok,
                    detail: "\(model.name) at \(node) (mode \(bits)) opens for group \(group) members", fix: ""))
            } else if geteuid() != 0 && access(system.path(node), R_OK | W_OK) == 0 {
                plugged.append(DoctorItem(name: "USB permissions", status: .ok, detail: "\(model.name) at \(node) (mode \(bits)) opens for you", fix: ""))
            } else {
                plugged.append(DoctorItem(name: "USB permissions", status: .problem, detail: "\(model.name) at \(node) (mode \(bits)): non-root users cannot open it", fix: install))
            }
        }
        checks += plugged.isEmpty
            ? [DoctorItem(name: "USB permissions", status: .ok, detail: "no known USB reader plugged in", fix: "")]
            : plugged
        return checks
    }

    /// What libnfc.conf and devices.d set.
    public static func configurationCheck(_ system: DoctorSystem) -> DoctorItem {
        func settings(_ text: String) -> [String] {
            text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty && !$0.hasPrefix("#") }
        }
        var found: [String] = []
        if let text = system.text("/etc/nfc/libnfc.conf") {
            found.append("libnfc.conf: " + (settings(text).isEmpty ? "(only comments)" : settings(text).joined(separator: "; ")))
        }
        for name in system.list("/etc/nfc/devices.d") where name.hasSuffix(".conf") {
            found.append("devices.d/\(name): " + settings(system.text("/etc/nfc/devices.d/\(name)") ?? "").joined(separator: "; "))
        }
        guard !found.isEmpty else {
            return DoctorItem(name: "libnfc.conf", status: .ok, detail: "no /etc/nfc/libnfc.conf: libnfc's defaults (USB readers found by scanning)", fix: "")
        }
        let text = found.joined(separator: " | ")
        if text.contains("allow_intrusive_scan = true") || text.contains("allow_intrusive_scan=true") {
            return DoctorItem(
                name: "libnfc.conf", status: .warning, detail: text,
                fix: "allow_intrusive_scan probes every serial port: prefer a device.connstring or a devices.d file")
        }
        return DoctorItem(name: "libnfc.conf", status: .ok, detail: text, fix: "")
    }

    /// Which LIBNFC_* variables are set.
    public static func environmentCheck(_ environment: [String: String]) -> DoctorItem {
        let set = environment.keys.filter { $0.hasPrefix("LIBNFC_") }.sorted()
        guard !set.isEmpty else { return DoctorItem(name: "environment", status: .ok, detail: "no LIBNFC_* variable set", fix: "") }
        return DoctorItem(
            name: "environment", status: .ok,
            detail: set.map { "\($0)=\(environment[$0] ?? "")" }.joined(separator: ", "), fix: "")
    }
}
