import Foundation
public import Testing

/// Whether the tests run in CI (`CI=true` or `CI=1`): there an independent oracle or a libnfc tool
/// that is missing fails the run instead of being skipped.
public let isContinuousIntegration: Bool = {
    let value = ProcessInfo.processInfo.environment["CI"]?.lowercased() ?? ""
    return value == "true" || value == "1" || value == "yes"
}()

/// An external program a test needs as an independent oracle (a libnfc or libfreefare tool, or
/// Python with ndeflib or nfcpy), and the one policy for when it is missing: outside CI the test
/// is skipped with a message naming what to install; in CI (``isContinuousIntegration``) the test
/// runs and fails at ``require()`` with the same message.
///
/// Use it as a trait and fetch the path in the body:
/// ```swift
/// @Test("…", ExternalTool.nfcList.trait)
/// func t() throws { let tool = try ExternalTool.nfcList.require() }
/// ```
public struct ExternalTool: Sendable {
    /// The program's name (`nfc-list`, or `python3 with nfcpy`).
    public let name: String
    /// What provides it: a Debian package (`libnfc-bin`) or a pip package (`pip: ndeflib`).
    public let package: String
    /// The executable to run, when installed.
    public let path: String?
    /// Why it is unusable although installed (e.g. /dev is not writable for nfcpy's link).
    public let obstacle: String?

    /// Creates a tool description.
    public init(name: String, package: String, path: String?, obstacle: String? = nil) {
        self.name = name
        self.package = package
        self.path = path
        self.obstacle = obstacle
    }

    /// Whether the tool can be used here.
    public var isAvailable: Bool { path != nil && obstacle == nil }

    /// What is missing and how to get it.
    public var missingMessage: String {
        if path != nil, let obstacle { return "\(name) cannot run here: \(obstacle)" }
        let install = package.hasPrefix("pip: ")
            ? "pip install \(package.dropFirst(5)) (Scripts/setup does it)"
            : "apt-get install \(package) (Scripts/setup does it)"
        return "\(name) is not installed: \(install)"
    }

    /// The trait of a test that needs this tool: enabled when the tool is usable, and always in
    /// CI, where ``require()`` then fails the test.
    public var trait: ConditionTrait {
        .enabled(if: isAvailable || isContinuousIntegration, Comment(rawValue: missingMessage))
    }

    /// The tool's path; throws (failing the test) when it is not usable.
    public func require() throws -> String {
        guard let path, obstacle == nil else { throw MissingExternalTool(message: missingMessage) }
        return path
    }

    /// A libnfc (or libfreefare) tool on PATH, provided by the Debian package `package`.
    public static func program(_ name: String, package: String) -> ExternalTool {
        ExternalTool(name: name, package: package, path: Executables.libnfcTool(name))
    }

    /// `python3` when it imports `module` (pip package `package`).
    public static func python(importing module: String, package: String, python: String? = nil) -> ExternalTool {
        let candidate = python ?? Executables.libnfcTool("python3")
        let works = candidate.map { python in
            (try? runToolSynchronously(python, ["-c", "import \(module)"], environment: ProcessInfo.processInfo.environment, timeout: 30))?.status == 0
        } ?? false
        return ExternalTool(name: "python3 with \(package)", package: "pip: \(package)", path: works ? candidate : nil)
    }

    // The tools the suite uses, each with the Debian package that ships it (Debian 12: nfc-list,
    // nfc-mfultralight, nfc-mfclassic, nfc-read-forum-tag3 in libnfc-bin; nfc-poll in
    // libnfc-examples; the mifare-classic-*-ndef tools in libfreefare-bin).

    /// `nfc-list` (libnfc-bin).
    public static let nfcList = program("nfc-list", package: "libnfc-bin")
    /// `nfc-poll` (libnfc-examples).
    public static let nfcPoll = program("nfc-poll", package: "libnfc-examples")
    /// `nfc-mfultralight` (libnfc-bin).
    public static let nfcMfUltralight = program("nfc-mfultralight", package: "libnfc-bin")
    /// `nfc-mfclassic` (libnfc-bin).
    public static let nfcMfClassic = program("nfc-mfclassic", package: "libnfc-bin")
    /// `nfc-jewel` (libnfc-bin): reads and writes the 120 static bytes of a Jewel/Topaz.
    public static let nfcJewel = program("nfc-jewel", package: "libnfc-bin")
    /// `nfc-read-forum-tag3` (libnfc-bin).
    public static let nfcReadForumTag3 = program("nfc-read-forum-tag3", package: "libnfc-bin")
    /// `mifare-classic-read-ndef` (libfreefare-bin).
    public static let mifareClassicReadNDEF = program("mifare-classic-read-ndef", package: "libfreefare-bin")
    /// `mifare-classic-write-ndef` (libfreefare-bin).
    public static let mifareClassicWriteNDEF = program("mifare-classic-write-ndef", package: "libfreefare-bin")
    /// `mifare-ultralight-info` (libfreefare-bin): names a MIFARE Ultralight or Ultralight C.
    public static let mifareUltralightInfo = program("mifare-ultralight-info", package: "libfreefare-bin")
    /// `mifare-desfire-info` (libfreefare-bin).
    public static let mifareDESFireInfo = program("mifare-desfire-info", package: "libfreefare-bin")
    /// `mifare-desfire-format` (libfreefare-bin): FormatPICC after authenticating with the PICC
    /// master key.
    public static let mifareDESFireFormat = program("mifare-desfire-format", package: "libfreefare-bin")
    /// `mifare-desfire-create-ndef` (libfreefare-bin).
    public static let mifareDESFireCreateNDEF = program("mifare-desfire-create-ndef", package: "libfreefare-bin")
    /// `mifare-desfire-write-ndef` (libfreefare-bin).
    public static let mifareDESFireWriteNDEF = program("mifare-desfire-write-ndef", package: "libfreefare-bin")
    /// `mifare-desfire-read-ndef` (libfreefare-bin).
    public static let mifareDESFireReadNDEF = program("mifare-desfire-read-ndef", package: "libfreefare-bin")
    /// `cc` with libfreefare's and libnfc's headers and libraries (Debian libfreefare-dev,
    /// libnfc-dev): compiles the DESFire key judge (Tests/Oracle/desfire_key_judge.c) at test
    /// time, a program on libfreefare's library (its AES authentication), which its tools lack.
    public static let libfreefareCompiler: ExternalTool = {
        let headers = ["/usr/include/freefare.h", "/usr/include/nfc/nfc.h"].allSatisfy { FileManager.default.fileExists(atPath: $0) }
        return ExternalTool(name: "cc with libfreefare-dev", package: "libfreefare-dev", path: headers ? Executables.libnfcTool("cc") : nil)
    }()
    /// `setpriv` (util-linux): runs a check as another user (`nobody`) when the tests run as root.
    public static let setpriv = program("setpriv", package: "util-linux")
    /// `chromium` (Debian `chromium`): renders an HTML page headless to a PNG.
    public static let chromium = program("chromium", package: "chromium")
    /// Python 3 with its standard library's `pty`, `json` and `datetime` (Debian `python3`): a
    /// pseudo-terminal to run a tool on, and an independent JSON and ISO 8601 reader.
    public static let python3 = python(importing: "pty, json, datetime", package: "python3")
    /// Python with ndeflib (`import ndef`).
    public static let ndeflib = python(importing: "ndef", package: "ndeflib")
    /// Python with nfcpy (`import nfc`): `NFCPY_PYTHON` if set, else `python3`. nfcpy opens a
    /// serial reader as `/dev/tty<NAME>`, so the emulator's `--link /dev/NAME` needs /dev writable.
    public static let nfcpy: ExternalTool = {
        let named = ProcessInfo.processInfo.environment["NFCPY_PYTHON"].flatMap { $0.isEmpty ? nil : $0 }
        let tool = python(importing: "nfc", package: "nfcpy", python: named)
        let devWritable = FileManager.default.isWritableFile(atPath: "/dev")
        return ExternalTool(name: tool.name, package: tool.package, path: tool.path,
                            obstacle: devWritable ? nil : "/dev is not writable (nfcpy finds a PN532 only as /dev/tty<NAME>)")
    }()
}

/// A test needed an ``ExternalTool`` that is not usable here.
public struct MissingExternalTool: Error, CustomStringConvertible {
    /// What is missing and how to install it.
    public let message: String
    /// The message.
    public var description: String { message }
}

/// Runs `executable` with `arguments` as the unprivileged user `nobody` (uid and gid 65534, no
/// supplementary groups) through `setpriv`: a root test run checks the paths a normal user takes.
public func runAsNobody(_ executable: String, _ arguments: [String], environment: [String: String], timeout: Double = 120) async throws -> ToolRun {
    try await runTool(try ExternalTool.setpriv.require(), ["--reuid=65534", "--regid=65534", "--clear-groups", executable] + arguments,
                      environment: environment, timeout: timeout)
}

/// Runs `script` with `python3 -c` and `arguments` (for oracles such as Python's sqlite3 module,
/// a reader of a file independent of ours): its exit status and standard output.
public func runPython(_ script: String, _ arguments: [String]) async throws -> (status: Int32, standardOutput: String) {
    let run = try await runTool("/usr/bin/env", ["python3", "-c", script] + arguments, environment: ProcessInfo.processInfo.environment,
                                timeout: 120, mergingStandardError: false)
    return (run.status, run.standardOutput)
}
