import CommandLineKit
import Foundation
import NFCKit
import NFCTags

/// `nfctool doctor`: the Linux set-up checklist for libnfc readers.
///
/// Every path it reads lies under a root directory, `/` unless `$NFCTOOL_DOCTOR_ROOT` names
/// another (left out of the help: it is for tests, which run against fixture trees).
struct DoctorCommand: ToolCommand {
    static let json = CommandOption.flag("json", help: "Print the checks as JSON.")

    static let configuration = CommandConfiguration(
        name: "doctor",
        abstract: "Check the Linux set-up for NFC readers: libnfc, drivers, permissions.",
        discussion: """
            Checks that libnfc is there, which readers it finds, that the kernel's pn533_usb, \
            pn533 and nfc modules do not hold USB readers (and are blacklisted), that udev \
            lets non-root users open the readers, what /etc/nfc/libnfc.conf and \
            /etc/nfc/devices.d say, and which LIBNFC_* variables are set. Each item is ok, \
            warning or problem, with one line on how to fix it. Exits 1 when something is a \
            problem, 0 otherwise.

            Examples:
              nfctool doctor
              nfctool doctor --json
            """,
        options: [json]
    )

    let printsJSON: Bool

    init(_ arguments: ParsedArguments) {
        printsJSON = arguments.contains(Self.json)
    }

    func run(_ context: CommandContext) async throws(CommandError) {
        let root = context.environment["NFCTOOL_DOCTOR_ROOT"] ?? "/"
        await NFCReaderDiscovery.setVerboseLogging(false)
        let readers: Result<[NFCReaderDescription], NFCReaderDeviceError>
        do throws(NFCReaderDeviceError) {
            readers = .success(try await NFCReaderDiscovery.listReaders())
        } catch {
            readers = .failure(error)
        }
        let report = DoctorReport.make(
            system: DoctorSystem(root: root), environment: context.environment,
            libnfcVersion: NFCReaderDiscovery.libnfcVersion, readers: readers)
        context.io.write(printsJSON ? try toolJSON(report) : report.text)
        if report.problems > 0 {
            throw CommandError("\(report.problems) problem\(report.problems == 1 ? "" : "s") found", exitCode: .failure)
        }
    }
}

/// The files doctor reads, under a root directory.
struct DoctorSystem: Sendable {
    /// The directory standing for `/`.
    let root: String

    /// `path` (absolute) under the root.
    func path(_ path: String) -> String {
        root == "/" ? path : (root.hasSuffix("/") ? String(root.dropLast()) : root) + path
    }

    /// The file's text, or nil when it cannot be read.
    func text(_ path: String) -> String? {
        FileManager.default.contents(atPath: self.path(path)).map { String(decoding: $0, as: UTF8.self) }
    }

    /// The names in a directory, sorted; empty when it cannot be read.
    func list(_ path: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: self.path(path))) ?? []).sorted()
    }

    /// The permission bits of a file, if it exists.
    func mode(_ path: String) -> Int? {
        ((try? FileManager.default.attributesOfItem(atPath: self.path(path)))?[.posixPermissions] as? NSNumber)?.intValue
    }

    /// The group owning a file (its ID), if it exists.
    func groupID(_ path: String) -> Int? {
        ((try? FileManager.default.attributesOfItem(atPath: self.path(path)))?[.groupOwnerAccountID] as? NSNumber)?.intValue
    }
}

/// One USB reader model: vendor and product ID, as lsusb shows them.
struct USBReaderID: Sendable, Hashable {
    let vendor: String
    let product: String
    let name: String

    /// The USB readers libnfc 1.8.0 drives: the device tables of its `pn53x_usb` driver
    /// (`pn53x_usb_model` list) and its `acr122_usb` driver (ACR122, Touchatag, ACR1222); the
    /// same list as Scripts/udev/99-nfckit.rules. libnfc's own `contrib/udev/93-pn53x.rules`
    /// lacks the ACR1222 (`072f:2214`).
    static let known: [USBReaderID] = [
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
struct DoctorItem: Encodable, Sendable, Hashable {
    /// `ok`, `warning` or `problem`.
    enum Status: String, Encodable, Sendable {
        case ok, warning, problem
    }

    var name: String
    var status: Status
    var detail: String
    /// How to fix it; empty when ok.
    var fix: String
}

/// The checklist.
struct DoctorReport: Encodable, Sendable {
    var checks: [DoctorItem]
    var problems: Int { checks.filter { $0.status == .problem }.count }
    var warnings: Int { checks.filter { $0.status == .warning }.count }

    private enum CodingKeys: String, CodingKey { case checks, problems, warnings }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(checks, forKey: .checks)
        try container.encode(problems, forKey: .problems)
        try container.encode(warnings, forKey: .warnings)
    }

    /// The text form: one block per item.
    var text: String {
        var lines: [String] = []
        for item in checks {
            let tag = "[\(item.status.rawValue)]"
            let head = tag + String(repeating: " ", count: max(1, 10 - tag.count)) + "\(item.name): \(item.detail)"
            lines.append(Self.hanging(head, indent: 10))
            if !item.fix.isEmpty { lines.append(Self.hanging("          fix: " + item.fix, indent: 15)) }
        }
        lines.append("\(problems) problem\(problems == 1 ? "" : "s"), \(warnings) warning\(warnings == 1 ? "" : "s")")
        return lines.joined(separator: "\n") + "\n"
    }

    /// `text` wrapped at 80 columns, lines after the first indented by `indent` spaces.
    static func hanging(_ text: String, indent: Int) -> String {
        let lines = text.wrapped(to: 80).split(separator: "\n", omittingEmptySubsequences: false)
        guard let first = lines.first, lines.count > 1 else { return text }
        let rest = lines.dropFirst().joined(separator: " ").wrapped(to: 80, indent: indent)
        return String(first) + "\n" + rest
    }

    /// The blacklist file doctor and docs/hardware.md recommend.
    static let blacklistFile = "/etc/modprobe.d/blacklist-nfc.conf"

    /// Runs every check.
    static func make(
        system: DoctorSystem, environment: [String: String], libnfcVersion: String,
        readers: Result<[NFCReaderDescription], NFCReaderDeviceError>
    ) -> DoctorReport {
        var checks = [DoctorItem(name: "libnfc", status: .ok, detail: "libnfc \(libnfcVersion) loaded", fix: "")]
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
        return DoctorReport(checks: checks)
    }

    /// Whether pn533_usb/pn533/nfc are loaded (/proc/modules) or blacklisted (/etc/modprobe.d).
    static func kernelCheck(_ system: DoctorSystem) -> DoctorItem {
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
    static func usbChecks(_ system: DoctorSystem) -> [DoctorItem] {
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
    static func configurationCheck(_ system: DoctorSystem) -> DoctorItem {
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
    static func environmentCheck(_ environment: [String: String]) -> DoctorItem {
        let set = environment.keys.filter { $0.hasPrefix("LIBNFC_") }.sorted()
        guard !set.isEmpty else { return DoctorItem(name: "environment", status: .ok, detail: "no LIBNFC_* variable set", fix: "") }
        return DoctorItem(
            name: "environment", status: .ok,
            detail: set.map { "\($0)=\(environment[$0] ?? "")" }.joined(separator: ", "), fix: "")
    }
}
