import CommandLineKit
import Foundation
import NFCCore

/// The bundle of a self-test (`--bundle DIR`): a directory holding `report.json` and
/// `trace.jsonl`. The directory is created when missing; an existing path that is not a
/// directory is refused, and the files are written with ``FileAccess``'s checked writes (a
/// link, FIFO or device there is written through or in place, never replaced).
struct SelfTestBundle: Sendable {
    /// The bundle directory.
    let path: String

    /// Checks or creates the directory.
    /// - Throws: ``ExitCode/usage`` for an empty path; ``ExitCode/failure`` for a path that is
    ///   not a directory or a directory that cannot be created.
    init(_ path: String) throws(CommandError) {
        guard !path.isEmpty else { throw .usage("--bundle needs a directory name") }
        self.path = path
        switch FileAccess.fileKind(path) {
        case .directory: return
        case nil:
            do {
                try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
            } catch {
                throw .failure("cannot create the bundle directory \(path): \(error.localizedDescription)")
            }
        case .some:
            throw .failure("the bundle \(path) exists and is not a directory: nothing was run")
        }
    }

    /// Where the trace goes.
    var tracePath: String { path + "/trace.jsonl" }

    /// Writes `report.json`.
    /// - Throws: ``ExitCode/failure`` when the write fails (a full disk).
    func writeReport(_ json: String) throws(CommandError) {
        let file = path + "/report.json"
        do {
            try FileAccess.write(Array(json.utf8), to: file)
        } catch {
            throw .failure("cannot write the bundle report \(file): \(error)")
        }
    }
}
