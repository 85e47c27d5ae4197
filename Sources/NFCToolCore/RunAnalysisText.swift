import Foundation
import NFCCore
import Provisioning

/// `ledger stats`' lines for a ``RunAnalysis``: span, rate, failures by cause, and the splits
/// per reader, chip model and station. Every name from the ledger is shown terminal-safe.
enum RunAnalysisText {
    static func lines(_ analysis: RunAnalysis) -> [String] {
        var lines: [String] = []
        if let first = analysis.firstStart, let last = analysis.lastFinish {
            let span = analysis.seconds.map { " (\(duration($0)))" } ?? ""
            lines.append("span:         \(safe(first)) – \(safe(last))\(span)")
        } else {
            lines.append("span:         none (no attempts)")
        }
        lines.append("rate:         " + (analysis.tagsPerMinute.map { String(format: "%.1f tags/min", $0) } ?? "-"))
        lines.append("failures by cause:" + (analysis.failuresByCause.isEmpty ? " none" : ""))
        let width = analysis.failuresByCause.map { safe($0.cause).count }.max() ?? 0
        for entry in analysis.failuresByCause {
            let name = safe(entry.cause)
            lines.append("  " + name + String(repeating: " ", count: width - name.count) + "  \(entry.count)")
        }
        for (title, splits) in [("per reader", analysis.readers), ("per model", analysis.models), ("per station", analysis.stations)] where !splits.isEmpty {
            lines.append(title + ":")
            for split in splits {
                lines.append("  \(safe(split.name)): \(split.attempts) attempts, \(split.done) done, \(split.failed) failed, \(split.counterfeit) counterfeit")
            }
        }
        return lines
    }

    /// `1 h 02 min`, `3 min 05 s`, `12.3 s`.
    static func duration(_ seconds: Double) -> String {
        if seconds < 60 { return String(format: "%.1f s", seconds) }
        let whole = Int(seconds.rounded())
        if whole < 3600 { return String(format: "%d min %02d s", whole / 60, whole % 60) }
        return String(format: "%d h %02d min", whole / 3600, (whole % 3600) / 60)
    }

    private static func safe(_ text: String) -> String { TerminalSafeText.escaping(text, newlines: .escape) }
}
