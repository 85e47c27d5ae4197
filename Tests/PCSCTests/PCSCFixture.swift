import CPCSCTestSocket
import Foundation
import NFCTestSupport

/// A pcscd of the tests' own, in a private mount namespace: its socket lives in a temporary
/// directory bind-mounted on /run/pcscd for it alone, so it neither meets the machine's pcscd
/// (pcsc-lite 1.9.9 serves one fixed socket path) nor shows its readers to other processes.
/// Clients reach it through pcsc-lite's `PCSCLITE_CSOCK_NAME` (``environment``). Its one
/// reader.conf.d entry is vpcd (vsmartcard) on a free port, slot 0 of which the
/// `pcsc-reader-emulator` connects to.
final class PrivatePCSCDaemon {
    let directory: URL
    let port: UInt16
    let process = Process()
    /// pcscd's name for the vpcd slot the emulator uses.
    let readerName: String
    var socketPath: String { directory.appendingPathComponent("run/pcscd.comm").path }
    /// What pcscd logged so far (info level: among others `Card inserted into <reader>` and
    /// `Card Removed From <reader>` for each card it saw come and go).
    var log: String { (try? String(contentsOf: directory.appendingPathComponent("pcscd.log"), encoding: .utf8)) ?? "" }
    /// How many cards pcscd holds in its reader by its own log: insertions minus removals.
    var cardsPresent: Int {
        let log = self.log
        return log.components(separatedBy: "Card inserted into \(readerName)").count
            - log.components(separatedBy: "Card Removed From \(readerName)").count
    }

    static let pcscd = "/usr/sbin/pcscd"
    static let vpcdDriver = "/usr/lib/pcsc/drivers/serial/libifdvpcd.so"
    static let unshare = "/usr/bin/unshare"

    /// Whether this machine can run one: root (for the mount namespace), pcscd, vpcd, unshare.
    static let available: Bool = geteuid() == 0 && [pcscd, vpcdDriver, unshare].allSatisfy { FileManager.default.isExecutableFile(atPath: $0) || FileManager.default.fileExists(atPath: $0) }

    /// Starts pcscd and waits (up to 15 s) until it lists the vpcd reader, named
    /// `friendlyName` (pcscd appends ` 00 00`); by default `NFCKit test PCD <port>`, which
    /// NFCKit's profile table gives the generic profile. A real family's name
    /// (`ACS ACR1552 1S CL Reader PICC`) makes NFCKit choose that family's profile.
    /// In CI (`CI=true`) the end-to-end suites run even when this machine cannot host one, and
    /// fail here naming what is missing.
    /// With `debugLog`, pcscd logs at debug level: among others one `Received command: NAME`
    /// line per command a client sends (``clientCommands(from:)``).
    init(friendlyName: String? = nil, debugLog: Bool = false) async throws {
        guard Self.available else {
            throw PCSCFixtureError("a private pcscd needs root, \(Self.pcscd), \(Self.vpcdDriver) (vsmartcard-vpcd) and \(Self.unshare): Scripts/setup installs them")
        }
        directory = try temporaryDirectory()
        port = try Self.freePortPair()
        let friendly = friendlyName ?? "NFCKit test PCD \(port)"
        readerName = "\(friendly) 00 00"
        let conf = directory.appendingPathComponent("conf", isDirectory: true)
        let run = directory.appendingPathComponent("run", isDirectory: true)
        try FileManager.default.createDirectory(at: conf, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: run, withIntermediateDirectories: true)
        // vpcd's reader.conf format (vsmartcard's reader.conf.in): DEVICENAME /dev/null:<port>
        // makes it listen on <port> (slot 0) and <port>+1 (slot 1) for a virtual card.
        let entry = """
            FRIENDLYNAME "\(friendly)"
            DEVICENAME   /dev/null:0x\(String(port, radix: 16, uppercase: true))
            LIBPATH      \(Self.vpcdDriver)
            CHANNELID    0x\(String(port, radix: 16, uppercase: true))

            """
        try entry.write(to: conf.appendingPathComponent("vpcd"), atomically: true, encoding: .utf8)
        let log = directory.appendingPathComponent("pcscd.log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let handle = try FileHandle(forWritingTo: log)
        process.executableURL = URL(fileURLWithPath: Self.unshare)
        process.arguments = [
            "-m", "--propagation", "private", "sh", "-c",
            "mkdir -p /run/pcscd && mount --bind '\(run.path)' /run/pcscd && exec \(Self.pcscd) -f \(debugLog ? "-d" : "-i") -c '\(conf.path)'",
        ]
        process.standardOutput = handle
        process.standardError = handle
        // The child has its own copy; Process does not close a FileHandle it was given, and a
        // whole run leaked one descriptor per daemon (past 1,300: Process.run crashed in CI).
        defer { try? handle.close() }
        try process.run()
        let deadline = Date().addingTimeInterval(15)
        while Date() < deadline {
            if FileManager.default.fileExists(atPath: socketPath),
               let listing = try? await runTool("/usr/bin/pcsc_scan", ["-r"], environment: environment, timeout: 5),
               listing.output.contains(readerName) {
                return
            }
            try? await Task.sleep(for: .milliseconds(100))
        }
        stop()
        throw PCSCFixtureError("pcscd did not list \(readerName) within 15 s: \((try? String(contentsOf: log, encoding: .utf8)) ?? "")")
    }

    /// How many bytes pcscd has logged so far: a mark for ``clientCommands(from:)``.
    var logLength: Int { log.utf8.count }

    /// The commands clients sent pcscd (`STATUS`, `TRANSMIT`,
    /// `CMD_WAIT_READER_STATE_CHANGE`…, as its debug log names them), in order, from byte
    /// `offset` of the log on. Needs `debugLog`.
    func clientCommands(from offset: Int = 0) -> [String] {
        let bytes = Array(log.utf8)
        let tail = String(decoding: bytes[min(offset, bytes.count)...], as: UTF8.self)
        return tail.split(separator: "\n").compactMap { line -> String? in
            guard let range = line.range(of: "Received command: ") else { return nil }
            return line[range.upperBound...].split(separator: " ").first.map(String.init)
        }
    }

    /// This process's environment pointed at this pcscd, libnfc told not to probe.
    var environment: [String: String] {
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("LIBNFC_") && $0.key != "NFCTOOL_DEVICE" }
        environment["PCSCLITE_CSOCK_NAME"] = socketPath
        environment["LIBNFC_AUTO_SCAN"] = "false"
        environment["LIBNFC_INTRUSIVE_SCAN"] = "false"
        return environment
    }

    /// Stops pcscd (SIGTERM, then SIGKILL, waited for on a thread of its own) and removes its
    /// directory: for a `defer`, where nothing may block the cooperative pool.
    func stop() {
        if process.isRunning { process.terminate() }
        reapInBackground(process)
        try? FileManager.default.removeItem(at: directory)
    }

    /// A port whose successor is free too (vpcd's slot 1), from the kernel's ephemeral range.
    static func freePortPair() throws -> UInt16 {
        for _ in 0..<20 {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard fd >= 0 else { break }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = INADDR_ANY
            address.sin_port = 0
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let bound = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
            }
            close(fd)
            let port = UInt16(bigEndian: address.sin_port)
            if bound, port < 65000, isFree(port + 1) { return port }
        }
        throw PCSCFixtureError("no free pair of TCP ports")
    }

    private static func isFree(_ port: UInt16) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = INADDR_ANY
        address.sin_port = port.bigEndian
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }
}

/// `pcsc-reader-emulator` holding one virtual tag, connected to a ``PrivatePCSCDaemon``'s vpcd.
final class VirtualReaderProcess {
    let process = Process()
    let logPath: String
    let outputPath: String
    /// The emulator's standard input: `remove` / `present` lines.
    let control = Pipe()
    /// The daemon whose reader holds the card.
    let daemon: PrivatePCSCDaemon

    /// Starts the emulator with `tag` (a `sim:` string; nil when `extra` gives the card another
    /// way, `--replay FILE`) and waits for its `connected` line and for pcscd to see the card
    /// (up to 15 s).
    init(tag: String?, daemon: PrivatePCSCDaemon, profile: String? = nil, extra: [String] = []) async throws {
        self.daemon = daemon
        // A reader stopped before (its card still in pcscd's reader by pcscd's log) has gone
        // first: this one's card is then a new card to pcscd.
        _ = await eventually(within: .seconds(10)) { daemon.cardsPresent <= 0 }
        guard let emulator = Executables.built("pcsc-reader-emulator") else {
            throw PCSCFixtureError("pcsc-reader-emulator is not built")
        }
        logPath = daemon.directory.appendingPathComponent("emulator-\(UUID().uuidString).log").path
        let output = daemon.directory.appendingPathComponent("emulator-\(UUID().uuidString).out")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        let handle = try FileHandle(forWritingTo: output)
        process.executableURL = emulator
        process.arguments = (tag.map { ["--tag", $0] } ?? []) + ["--port", String(daemon.port), "--log", logPath] + (profile.map { ["--profile", $0] } ?? []) + extra
        process.standardOutput = handle
        process.standardError = handle
        process.standardInput = control
        outputPath = output.path
        defer { try? handle.close() }
        try process.run()
        let deadline = Date().addingTimeInterval(15)
        while Date() < deadline {
            let text = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
            if text.contains("Error") { break }
            if text.contains("connected"),
               let cards = try? await runTool("/usr/bin/pcsc_scan", ["-c", "-t", "1"], environment: daemon.environment, timeout: 5),
               cards.output.contains("3B 8") {
                return
            }
            try? await Task.sleep(for: .milliseconds(100))
        }
        stop()
        throw PCSCFixtureError("the virtual reader did not come up: \((try? String(contentsOf: output, encoding: .utf8)) ?? "")")
    }

    /// The command APDUs the emulator received, as lowercase hex, in order.
    var receivedAPDUs: [String] {
        ((try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "").split(separator: "\n").filter { $0.hasPrefix("> ") }.map { String($0.dropFirst(2)) }
    }

    /// Sends a control line (`remove`, `present`) and waits up to 10 s for the emulator to
    /// answer it (`removed`, or one more `connected`).
    func send(_ line: String) async throws {
        let before = ((try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "")
        try control.fileHandleForWriting.write(contentsOf: Data((line + "\n").utf8))
        let wanted = line == "remove" ? "removed" : "connected"
        let count = before.components(separatedBy: wanted).count
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            if ((try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "").components(separatedBy: wanted).count > count { return }
            try? await Task.sleep(for: .milliseconds(20))
        }
        throw PCSCFixtureError("the emulator did not answer '\(line)'")
    }

    /// What the emulator printed (`connected`, `removed`, `empty`…).
    var output: String { (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "" }

    /// Ends it without waiting (for a `defer`): SIGTERM, its end waited for on a thread of its
    /// own. vpcd sees the card leave; the next reader started on the same daemon waits until
    /// pcscd has seen it go too (``init(tag:daemon:profile:extra:)``).
    func stop() {
        if process.isRunning { process.terminate() }
        reapInBackground(process)
        // The control pipe's write end, the one descriptor this side keeps (stop may run twice).
        try? control.fileHandleForWriting.close()
    }

    /// Ends it and waits until it has gone and pcscd has seen the card go (up to 10 s), so that
    /// what the test does next meets an empty reader (vpcd notices an absence only at its next
    /// presence poll).
    func stopped() async {
        await reaped(process)
        try? control.fileHandleForWriting.close()
        _ = await eventually(within: .seconds(10)) { daemon.cardsPresent <= 0 }
    }
}

/// `nfctool watch --device pcsc --events arrive,leave --timeout 60` against a private pcscd,
/// its standard output in a file of the daemon's directory.
final class PCSCWatchProcess {
    let process = Process()
    let output: URL

    /// Starts the built `tool` with `daemon`'s environment.
    init(tool: String, daemon: PrivatePCSCDaemon) throws {
        output = daemon.directory.appendingPathComponent("watch.out")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = ["watch", "--device", "pcsc", "--events", "arrive,leave", "--timeout", "60"]
        process.environment = daemon.environment
        let handle = try FileHandle(forWritingTo: output)
        defer { try? handle.close() }
        process.standardOutput = handle
        process.standardError = FileHandle.nullDevice
        try process.run()
    }

    /// What the watch printed so far.
    var printed: String { (try? String(contentsOf: output, encoding: .utf8)) ?? "" }

    /// Waits (up to 20 s) until what was printed satisfies `condition`.
    func waitUntil(_ condition: (String) -> Bool) async -> Bool {
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            if condition(printed) { return true }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return false
    }

    /// Stops the watch without waiting (for a `defer`): SIGTERM, its end waited for (SIGKILL
    /// should it linger) on a thread of its own, as ``VirtualReaderProcess/stop()`` does.
    func stop() {
        if process.isRunning { process.terminate() }
        reapInBackground(process)
    }
}

/// Why the PC/SC fixture could not start.
struct PCSCFixtureError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}


/// pcsc-lite in the test process itself (``PCSC/PCSCReader`` opened here rather than by nfctool):
/// the library reads `PCSCLITE_CSOCK_NAME` once per process, so in-process clients reach every
/// test's daemon through one fixed path, a symbolic link pointed at the current daemon's socket.
enum InProcessPCSC {
    /// The path this process's pcsc-lite keeps, fixed when the test bundle loaded
    /// (Tests/Support/CPCSCTestSocket), whichever test called the library first.
    static let socketLink = String(cString: nfckit_test_pcsc_socket_link())

    /// Points this process's pcsc-lite at `daemon`.
    static func use(_ daemon: PrivatePCSCDaemon) throws {
        let link = socketLink
        unlink(link)
        guard symlink(daemon.socketPath, link) == 0 else { throw PCSCFixtureError("cannot link \(link) to \(daemon.socketPath): errno \(errno)") }
    }
}
