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
            /etc/nfc/devices.d say, which LIBNFC_* variables are set, and for PC/SC readers \
            whether pcscd runs, its socket, the readers it sees (with NFCKit's profile), \
            libccid, and readers both pcscd and libnfc would claim. Each item is ok, \
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
        let pcscReaders: Result<[String], NFCReaderDeviceError>
        do throws(NFCReaderDeviceError) {
            pcscReaders = .success(try await NFCReaderDiscovery.pcscReaderNames())
        } catch {
            pcscReaders = .failure(error)
        }
        let report = DoctorReport.make(
            system: DoctorSystem(root: root), environment: context.environment,
            libnfc: NFCReaderDiscovery.libnfcLoad, readers: readers, pcscReaders: pcscReaders)
        context.io.write(printsJSON ? try toolJSON(report) : report.text)
        if report.problems > 0 {
            throw CommandError("\(report.problems) problem\(report.problems == 1 ? "" : "s") found", exitCode: .failure)
        }
    }
}

extension DoctorReport {
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
}
