import Foundation
public import NFCTags

/// doctor's PC/SC checks: pcscd running, its socket, the readers it sees, libccid, and USB
/// readers that both pcscd (through libccid) and libnfc would claim.
extension DoctorReport {
    /// pcsc-lite's socket: `$PCSCLITE_CSOCK_NAME`, else pcsc-lite 1.9's fixed path (under the
    /// root).
    public static func pcscSocket(_ system: DoctorSystem, _ environment: [String: String]) -> (shown: String, path: String) {
        if let set = environment["PCSCLITE_CSOCK_NAME"] { return (set, set) }
        return ("/run/pcscd/pcscd.comm", system.path("/run/pcscd/pcscd.comm"))
    }

    /// Where Debian and pcsc-lite's default build put reader drivers.
    public static let pcscDriverDirectories = ["/usr/lib/pcsc/drivers", "/usr/local/lib/pcsc/drivers", "/usr/lib64/pcsc/drivers"]

    /// Every PC/SC check, in order.
    public static func pcscChecks(
        _ system: DoctorSystem, environment: [String: String], readers: Result<[String], NFCReaderDeviceError>
    ) -> [DoctorItem] {
        let running = system.list("/proc").filter { $0.allSatisfy(\.isNumber) }.contains {
            system.text("/proc/\($0)/comm")?.trimmingCharacters(in: .whitespacesAndNewlines) == "pcscd"
        }
        var checks: [DoctorItem] = []
        checks.append(running
            ? DoctorItem(name: "pcscd", status: .ok, detail: "pcscd is running", fix: "")
            : DoctorItem(
                name: "pcscd", status: .warning, detail: "pcscd is not running: PC/SC readers (--device pcsc) are unreachable",
                fix: "sudo apt install pcscd && sudo systemctl start pcscd.socket (only for PC/SC readers)"))
        let socket = pcscSocket(system, environment)
        let socketThere = FileManager.default.fileExists(atPath: socket.path)
        checks.append(socketThere
            ? DoctorItem(name: "pcscd socket", status: .ok, detail: socket.shown, fix: "")
            : DoctorItem(
                name: "pcscd socket", status: running ? .problem : .warning, detail: "no socket at \(socket.shown)",
                fix: running ? "pcscd runs without its socket: restart it (sudo systemctl restart pcscd)" : "start pcscd"))
        switch readers {
        case .success(let names) where names.isEmpty:
            checks.append(DoctorItem(name: "PC/SC readers", status: .warning, detail: "pcscd sees no reader", fix: "plug a reader in; a USB CCID reader needs libccid"))
        case .success(let names):
            let described = names.enumerated().map { "pcsc:#\($0.offset) \($0.element) (\(NFCReaderDiscovery.pcscProfileTitle(forReaderNamed: $0.element)) profile)" }
            checks.append(DoctorItem(name: "PC/SC readers", status: .ok, detail: "\(names.count) seen: " + described.joined(separator: ", "), fix: ""))
        case .failure(let error):
            checks.append(DoctorItem(name: "PC/SC readers", status: .warning, detail: "cannot ask pcscd: \(error.reason)", fix: running ? "check pcscd's log (journalctl -u pcscd)" : "start pcscd"))
        }
        let ccid = pcscDriverDirectories.map { "\($0)/ifd-ccid.bundle/Contents/Info.plist" }.first { system.text($0) != nil }
        checks.append(ccid != nil
            ? DoctorItem(name: "libccid", status: .ok, detail: "USB CCID reader driver: \(ccid ?? "")", fix: "")
            : DoctorItem(name: "libccid", status: .warning, detail: "no libccid: pcscd cannot drive USB CCID readers", fix: "sudo apt install libccid"))
        let claimed = ccid.flatMap { system.text($0) }.map { pluggedReaders(system).filter(Self.ccidSupports(parse: $0)) } ?? []
        if claimed.isEmpty {
            checks.append(DoctorItem(name: "claimed twice", status: .ok, detail: "no plugged-in reader is claimed by both pcscd and libnfc", fix: ""))
        } else {
            let names = claimed.map(\.name).joined(separator: ", ")
            checks.append(running
                ? DoctorItem(
                    name: "claimed twice", status: .warning,
                    detail: "\(names): pcscd (libccid) holds it, so libnfc cannot open it",
                    fix: "use it through pcscd (--device pcsc), or stop pcscd to use it through libnfc")
                : DoctorItem(
                    name: "claimed twice", status: .ok,
                    detail: "\(names): libccid would claim it once pcscd starts (then use --device pcsc)", fix: ""))
        }
        return checks
    }

    /// The known USB readers plugged in (sysfs).
    public static func pluggedReaders(_ system: DoctorSystem) -> [USBReaderID] {
        system.list("/sys/bus/usb/devices").compactMap { device in
            let base = "/sys/bus/usb/devices/\(device)"
            guard let vendor = system.text("\(base)/idVendor")?.trimmingCharacters(in: .whitespacesAndNewlines).lowercased(),
                  let product = system.text("\(base)/idProduct")?.trimmingCharacters(in: .whitespacesAndNewlines).lowercased() else { return nil }
            return USBReaderID.known.first { $0.vendor == vendor && $0.product == product }
        }
    }

    /// Whether libccid's Info.plist lists a reader: its `ifdVendorID` and `ifdProductID`
    /// arrays, paired by index (`0x072F`, `0x2200`).
    public static func ccidSupports(parse plist: String) -> (USBReaderID) -> Bool {
        func strings(after key: String) -> [String] {
            guard let keyRange = plist.range(of: "<key>\(key)</key>"),
                  let open = plist.range(of: "<array>", range: keyRange.upperBound..<plist.endIndex),
                  let close = plist.range(of: "</array>", range: open.upperBound..<plist.endIndex) else { return [] }
            return plist[open.upperBound..<close.lowerBound].components(separatedBy: "<string>").dropFirst().compactMap {
                $0.components(separatedBy: "</string>").first?.trimmingCharacters(in: .whitespaces).lowercased()
            }
        }
        let pairs = Set(zip(strings(after: "ifdVendorID"), strings(after: "ifdProductID")).map { "\($0)|\($1)" })
        return { reader in pairs.contains("0x\(reader.vendor)|0x\(reader.product)") }
    }
}
