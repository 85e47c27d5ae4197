import Foundation

/// The standard output of a `--json` run that printed its answer and then failed, split: the
/// answer (every line but the error object's) and the error object (the last line).
public enum JSONAnswer {
    /// The lines of `stdout` without a last line holding the error object, each ending in a newline.
    public static func answer(_ stdout: String) -> String {
        var lines = stdout.split(separator: "\n", omittingEmptySubsequences: false)
        if lines.last == "" { lines.removeLast() }
        if let last = lines.last, last.hasPrefix("{\"error\":{") { lines.removeLast() }
        return lines.isEmpty ? "" : lines.joined(separator: "\n") + "\n"
    }

    /// The error object's fields, from the last line of `stdout`; nil when it holds none.
    public static func error(_ stdout: String) -> [String: Any]? {
        guard let last = stdout.split(separator: "\n").last,
              let object = try? JSONSerialization.jsonObject(with: Data(last.utf8)) as? [String: Any] else { return nil }
        return object["error"] as? [String: Any]
    }
}
