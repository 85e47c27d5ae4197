import Foundation

/// A run's report as one self-contained HTML page (`nfctool ledger report`): no network, no
/// JavaScript, the charts inline SVG. It shows the tags over time (cumulative done and failed,
/// and done per station or reader), the rate over time, the failures by cause, the split per
/// chip model, the yield, the span and the settings the sessions were given (template,
/// manifest and its digest, readers, the key identifiers NTAG 424 DNA runs recorded — never a
/// key, which the ledger never holds).
///
/// Every text from the ledger is HTML-escaped (``HTMLText/escape(_:)``); the page is also
/// well-formed XML, so its SVG can be read by any XML parser. The figures are
/// ``RunAnalysis``'s, the one definition `ledger stats` shows too.
public struct RunReport: Sendable {
    /// The ledger, as messages name it (a SQLite path, a redacted PostgreSQL URI).
    public var location: String
    /// The named run reported on (nil: the whole ledger).
    public var run: String?
    /// The attempts, oldest first.
    public var attempts: [LedgerAttempt]
    /// The sessions, oldest first.
    public var sessions: [LedgerSession]
    /// The figures.
    public var analysis: RunAnalysis
    /// When the report was made (ISO 8601).
    public var generated: String

    /// A report of `attempts` and `sessions`.
    public init(location: String, run: String?, attempts: [LedgerAttempt], sessions: [LedgerSession], generated: String) {
        self.location = location
        self.run = run
        self.attempts = attempts
        self.sessions = sessions
        self.analysis = RunAnalysis(attempts)
        self.generated = generated
    }

    /// The report of `ledger` (of its named run `run`, when given), made now.
    /// - Throws: ``LedgerError`` when the ledger cannot be read.
    public init(ledger: any ProvisioningLedger, run: String?) throws(LedgerError) {
        self.init(location: ledger.location, run: run, attempts: try ledger.attempts(run: run), sessions: try ledger.sessions(run: run),
                  generated: SQLiteLedger.now())
    }

    /// Tags done ÷ distinct tags tried (nil when none was tried).
    public var yield: Double? {
        let tried = Set(attempts.map(\.uid)).count
        return tried == 0 ? nil : Double(analysis.done) / Double(tried)
    }

    /// The key descriptions NTAG 424 DNA sessions recorded in their attempts' summaries (the
    /// scheme and the keys' identifiers: `keys AN10922(…) v1: …`), each once.
    public var keyIdentifiers: [String] {
        var seen: [String] = []
        for attempt in attempts where attempt.summary.hasPrefix("SUN URL ") {
            guard let range = attempt.summary.range(of: "; keys ") else { continue }
            let keys = String(attempt.summary[range.upperBound...])
            if !seen.contains(keys) { seen.append(keys) }
        }
        return seen
    }

    // MARK: - The page

    /// The page.
    public func html() -> String {
        let e = HTMLText.escape
        let title = run.map { "Run \($0)" } ?? "Ledger \(location)"
        var body = "<h1>\(e(title))</h1>\n"
        body += "<p class=\"sub\">\(e(location))\(run.map { " · run " + e($0) } ?? "") · report made \(e(generated))</p>\n"
        body += summarySection()
        body += section("Tags over time", id: "over-time", overTimeChart())
        body += section("Rate over time", id: "rate", rateChart())
        body += section("Failures by cause", id: "causes", causeChart())
        body += section("Per chip model", id: "models", modelChart() + splitTable("Model", analysis.models))
        var splits = splitTable("Reader", analysis.readers)
        if !analysis.stations.isEmpty { splits += splitTable("Station", analysis.stations) }
        body += section("Per reader and station", id: "splits", splits)
        body += section("Settings", id: "settings", settingsSection())
        return """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8"/><title>\(e(title)) · nfctool report</title>
            <style>\(Self.style)</style></head>
            <body>
            \(body)</body></html>

            """
    }

    private func section(_ title: String, id: String, _ content: String) -> String {
        "<section id=\"\(id)\"><h2>\(HTMLText.escape(title))</h2>\n\(content)</section>\n"
    }

    private func summarySection() -> String {
        let a = analysis
        let span = a.seconds.map(Self.duration) ?? "–"
        var rows: [(String, String)] = [
            ("Tags done", "\(a.done)"), ("Failed attempts", "\(a.failed)"), ("Counterfeit", "\(a.counterfeit)"),
            ("Attempts", "\(a.attempts)"), ("Yield", yield.map { String(format: "%.1f %%", $0 * 100) } ?? "–"),
            ("Locked", "\(a.locked)"), ("Protected", "\(a.protected)"),
            ("Rate", a.tagsPerMinute.map { String(format: "%.1f tags/min", $0) } ?? "–"),
            ("First start", a.firstStart ?? "–"), ("Last finish", a.lastFinish ?? "–"), ("Span", span),
        ]
        // Void tags carry a row another station holds: the run is not complete while one is open.
        if a.void > 0 {
            rows.insert(("Void tags", a.voidOpen > 0 ? "\(a.void) (\(a.voidOpen) not accounted for: run incomplete)" : "\(a.void) (all accounted for)"), at: 3)
        }
        return "<section id=\"summary\"><dl class=\"summary\">"
            + rows.map { "<div><dt>\(HTMLText.escape($0.0))</dt><dd>\(HTMLText.escape($0.1))</dd></div>" }.joined()
            + "</dl></section>\n"
    }

    private func splitTable(_ what: String, _ splits: [RunAnalysis.Split]) -> String {
        guard !splits.isEmpty else { return "" }
        let e = HTMLText.escape
        return "<table><thead><tr><th>\(e(what))</th><th>Attempts</th><th>Done</th><th>Failed</th><th>Counterfeit</th></tr></thead><tbody>"
            + splits.map { "<tr><td>\(e($0.name))</td><td>\($0.attempts)</td><td>\($0.done)</td><td>\($0.failed)</td><td>\($0.counterfeit)</td></tr>" }.joined()
            + "</tbody></table>\n"
    }

    private func settingsSection() -> String {
        let e = HTMLText.escape
        var out = ""
        if sessions.isEmpty { out += "<p>No sessions recorded.</p>\n" }
        for session in sessions {
            var rows: [(String, String)] = [("Started", session.started), ("Finished", session.finished ?? "never recorded (running, or stopped hard)")]
            if let name = session.name { rows.append(("Run", name)) }
            if let station = session.station { rows.append(("Station", station)) }
            rows.append(("Template", session.template ?? "–"))
            rows.append(("Manifest", session.manifest ?? "–"))
            if let digest = session.manifestDigest { rows.append(("Manifest digest (SHA-256 of its rows)", digest)) }
            rows.append(("Readers", session.readers))
            out += "<table class=\"session\"><caption>Session \(session.id)</caption><tbody>"
                + rows.map { "<tr><th>\(e($0.0))</th><td>\(e($0.1))</td></tr>" }.joined() + "</tbody></table>\n"
        }
        let keys = keyIdentifiers
        out += keys.isEmpty
            ? "<p>Keys: none recorded (no NTAG 424 DNA personalization in these attempts). The ledger never holds a key.</p>\n"
            : "<p>Keys (scheme and identifiers as recorded; the ledger never holds a key):</p><ul>" + keys.map { "<li><code>\(e($0))</code></li>" }.joined() + "</ul>\n"
        return out
    }

    // MARK: - Charts

    /// The attempts with their end time, in seconds from the first start, by end.
    private var timeline: [(seconds: Double, attempt: LedgerAttempt)] {
        guard let first = analysis.firstStart.flatMap(LedgerTime.parse) else { return [] }
        return attempts.compactMap { a in LedgerTime.parse(a.finished).map { ($0.timeIntervalSince(first), a) } }.sorted { $0.seconds < $1.seconds }
    }

    private static let palette = ["#1b7f3b", "#c62828", "#1565c0", "#ef6c00", "#6a1b9a", "#00838f", "#8d6e63", "#5d4037", "#ad1457", "#2e7d32"]
    private static let width = 900.0, height = 300.0, left = 60.0, right = 20.0, top = 20.0, bottom = 40.0

    private func overTimeChart() -> String {
        let line = timeline
        guard !line.isEmpty else { return "<p>No attempts.</p>\n" }
        let total = max(line.last?.seconds ?? 0, 1)
        var series: [(name: String, points: [(Double, Double)])] = []
        func cumulative(_ name: String, _ include: (LedgerAttempt) -> Bool) {
            var count = 0.0, points: [(Double, Double)] = [(0, 0)]
            for (t, a) in line where include(a) {
                count += 1
                points.append((t, count))
            }
            points.append((total, count))
            series.append((name, points))
        }
        cumulative("done") { $0.status == LedgerAttemptStatus.done.rawValue }
        cumulative("failed") { $0.status != LedgerAttemptStatus.done.rawValue }
        let byStation = !analysis.stations.isEmpty
        for split in (byStation ? analysis.stations : analysis.readers) where (byStation ? analysis.stations.count : analysis.readers.count) > 1 {
            cumulative("done · " + (byStation ? "station " : "reader ") + split.name) {
                $0.status == LedgerAttemptStatus.done.rawValue && (byStation ? $0.station : $0.reader) == split.name
            }
        }
        let yMax = max(series.flatMap { $0.points.map(\.1) }.max() ?? 1, 1)
        var svg = Self.axes(xMax: total, yMax: yMax, yLabel: "tags", chart: "over-time")
        for (index, s) in series.enumerated() {
            let color = Self.palette[index % Self.palette.count]
            // A step line: each count holds until the next attempt ends.
            var path = ""
            var previousY: Double?
            for (t, y) in s.points {
                let x = Self.x(t, total), py = Self.y(y, yMax)
                if let previousY { path += " L\(Self.f(x)),\(Self.f(previousY)) L\(Self.f(x)),\(Self.f(py))" } else { path += "M\(Self.f(x)),\(Self.f(py))" }
                previousY = py
            }
            let dash = index >= 2 ? " stroke-dasharray=\"6 3\"" : ""
            svg += "<path class=\"series\" data-series=\"\(HTMLText.escape(s.name))\" data-final=\"\(Int(s.points.last?.1 ?? 0))\" d=\"\(path)\" fill=\"none\" stroke=\"\(color)\" stroke-width=\"2\"\(dash)/>\n"
        }
        svg += "</svg>\n"
        return svg + Self.legend(series.map(\.name))
    }

    private func rateChart() -> String {
        let line = timeline
        guard let span = analysis.seconds, span > 0, !line.isEmpty else { return "<p>Too few attempts for a rate.</p>\n" }
        let bucket = Self.bucketSeconds(span)
        let count = Int((span / bucket).rounded(.up)) + 1
        var done = Array(repeating: 0, count: count)
        for (t, a) in line where a.status == LedgerAttemptStatus.done.rawValue {
            done[min(count - 1, max(0, Int(t / bucket)))] += 1
        }
        let rates = done.map { Double($0) / bucket * 60 }
        let yMax = max(rates.max() ?? 1, 1)
        let xMax = Double(count) * bucket
        var svg = Self.axes(xMax: xMax, yMax: yMax, yLabel: "tags/min", chart: "rate")
        let barWidth = (Self.width - Self.left - Self.right) / Double(count)
        for (index, rate) in rates.enumerated() {
            let y = Self.y(rate, yMax)
            svg += "<rect class=\"rate-bar\" data-rate=\(Self.quoted(String(format: "%.2f", rate))) x=\"\(Self.f(Self.left + Double(index) * barWidth + 1))\" y=\"\(Self.f(y))\" width=\"\(Self.f(max(barWidth - 2, 1)))\" height=\"\(Self.f(Self.height - Self.bottom - y))\" fill=\"#1565c0\"/>\n"
        }
        svg += "</svg>\n"
        return svg + "<p class=\"note\">Tags done per minute, in steps of \(Self.duration(bucket)).</p>\n"
    }

    private func causeChart() -> String {
        let causes = analysis.failuresByCause
        guard !causes.isEmpty else { return "<p>No failures.</p>\n" }
        let row = 28.0, labelWidth = 170.0, barSpace = Self.width - labelWidth - 80
        let height = Double(causes.count) * row + 10
        let most = Double(causes.map(\.count).max() ?? 1)
        var svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" data-chart=\"causes\" viewBox=\"0 0 \(Int(Self.width)) \(Int(height))\" width=\"\(Int(Self.width))\" height=\"\(Int(height))\" role=\"img\" aria-label=\"failures by cause\">\n"
        for (index, entry) in causes.enumerated() {
            let y = 5 + Double(index) * row
            let w = max(Double(entry.count) / most * barSpace, 1)
            let name = HTMLText.escape(entry.cause)
            svg += "<g class=\"cause\" data-cause=\"\(name)\" data-count=\"\(entry.count)\">"
                + "<text x=\"\(Self.f(labelWidth - 8))\" y=\"\(Self.f(y + 18))\" text-anchor=\"end\">\(name)</text>"
                + "<rect class=\"cause-bar\" x=\"\(Self.f(labelWidth))\" y=\"\(Self.f(y + 4))\" width=\"\(Self.f(w))\" height=\"\(Self.f(row - 8))\" fill=\"\(entry.cause == FailureCause.counterfeit.rawValue ? "#6a1b9a" : "#c62828")\"/>"
                + "<text x=\"\(Self.f(labelWidth + w + 6))\" y=\"\(Self.f(y + 18))\">\(entry.count)</text></g>\n"
        }
        return svg + "</svg>\n"
    }

    private func modelChart() -> String {
        let models = analysis.models
        guard !models.isEmpty else { return "" }
        let row = 34.0, labelWidth = 170.0, barSpace = Self.width - labelWidth - 120
        let height = Double(models.count) * row + 10
        let most = Double(models.map { $0.done + $0.failed + $0.counterfeit }.max() ?? 1)
        var svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" data-chart=\"models\" viewBox=\"0 0 \(Int(Self.width)) \(Int(height))\" width=\"\(Int(Self.width))\" height=\"\(Int(height))\" role=\"img\" aria-label=\"per chip model\">\n"
        for (index, model) in models.enumerated() {
            let y = 5 + Double(index) * row
            var x = labelWidth
            svg += "<g class=\"model\" data-model=\"\(HTMLText.escape(model.name))\"><text x=\"\(Self.f(labelWidth - 8))\" y=\"\(Self.f(y + 20))\" text-anchor=\"end\">\(HTMLText.escape(model.name))</text>"
            for (kind, value, color) in [("done", model.done, "#1b7f3b"), ("failed", model.failed, "#c62828"), ("counterfeit", model.counterfeit, "#6a1b9a")] where value > 0 {
                let w = max(Double(value) / most * barSpace, 1)
                svg += "<rect class=\"model-bar\" data-kind=\"\(kind)\" data-count=\"\(value)\" x=\"\(Self.f(x))\" y=\"\(Self.f(y + 4))\" width=\"\(Self.f(w))\" height=\"\(Self.f(row - 10))\" fill=\"\(color)\"/>"
                x += w
            }
            svg += "<text x=\"\(Self.f(x + 6))\" y=\"\(Self.f(y + 20))\">\(model.done) done, \(model.failed) failed\(model.counterfeit > 0 ? ", \(model.counterfeit) counterfeit" : "")</text></g>\n"
        }
        return svg + "</svg>\n" + Self.legend(["done", "failed", "counterfeit"], colors: ["#1b7f3b", "#c62828", "#6a1b9a"])
    }

    /// An SVG element with its axes: time from 0 to `xMax` seconds along, 0 to `yMax` up.
    private static func axes(xMax: Double, yMax: Double, yLabel: String, chart: String) -> String {
        var svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" data-chart=\"\(chart)\" viewBox=\"0 0 \(Int(width)) \(Int(height))\" width=\"\(Int(width))\" height=\"\(Int(height))\" role=\"img\" aria-label=\"\(chart)\">\n"
        let x0 = left, y0 = height - bottom
        svg += "<line x1=\"\(f(x0))\" y1=\"\(f(y0))\" x2=\"\(f(width - right))\" y2=\"\(f(y0))\" stroke=\"#555\"/><line x1=\"\(f(x0))\" y1=\"\(f(top))\" x2=\"\(f(x0))\" y2=\"\(f(y0))\" stroke=\"#555\"/>\n"
        for i in 0...4 {
            let value = yMax * Double(i) / 4, y = Self.y(value, yMax)
            let label = yMax >= 8 ? String(Int(value.rounded())) : String(format: "%.1f", value)
            svg += "<line x1=\"\(f(x0))\" y1=\"\(f(y))\" x2=\"\(f(width - right))\" y2=\"\(f(y))\" stroke=\"#ddd\"/><text x=\"\(f(x0 - 6))\" y=\"\(f(y + 4))\" text-anchor=\"end\" class=\"tick\">\(label)</text>\n"
            let seconds = xMax * Double(i) / 4, x = Self.x(seconds, xMax)
            svg += "<text x=\"\(f(x))\" y=\"\(f(y0 + 18))\" text-anchor=\"middle\" class=\"tick\">\(xMax < 60 ? String(format: "%.1f s", seconds) : clock(seconds))</text>\n"
        }
        svg += "<text x=\"\(f(x0 - 44))\" y=\"\(f(top - 6))\" class=\"tick\">\(HTMLText.escape(yLabel))</text><text x=\"\(f(width - right))\" y=\"\(f(y0 + 34))\" text-anchor=\"end\" class=\"tick\">time since the first tag</text>\n"
        return svg
    }

    private static func legend(_ names: [String], colors: [String]? = nil) -> String {
        "<p class=\"legend\">" + names.enumerated().map { index, name in
            let color = colors?[index] ?? palette[index % palette.count]
            return "<span><i style=\"background:\(color)\"></i>\(HTMLText.escape(name))</span>"
        }.joined() + "</p>\n"
    }

    private static func x(_ seconds: Double, _ xMax: Double) -> Double { left + seconds / max(xMax, 1e-9) * (width - left - right) }
    private static func y(_ value: Double, _ yMax: Double) -> Double { height - bottom - value / max(yMax, 1e-9) * (height - top - bottom) }
    private static func f(_ value: Double) -> String { String(format: "%.1f", value) }
    private static func quoted(_ text: String) -> String { "\"" + HTMLText.escape(text) + "\"" }

    /// A step for the rate chart: about 30 steps over the span, at a round number of seconds.
    static func bucketSeconds(_ span: Double) -> Double {
        let steps: [Double] = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 14400, 28800, 86400]
        return steps.first { span / $0 <= 30 } ?? 86400
    }

    /// `0:00`, `12:05`, `1:02:03`: elapsed time on an axis.
    static func clock(_ seconds: Double) -> String {
        let whole = Int(seconds.rounded())
        if whole >= 3600 { return String(format: "%d:%02d:%02d", whole / 3600, whole % 3600 / 60, whole % 60) }
        return String(format: "%d:%02d", whole / 60, whole % 60)
    }

    /// `12.3 s`, `3 min 05 s`, `1 h 02 min`.
    static func duration(_ seconds: Double) -> String {
        if seconds < 60 { return String(format: "%.1f s", seconds) }
        let whole = Int(seconds.rounded())
        if whole < 3600 { return String(format: "%d min %02d s", whole / 60, whole % 60) }
        return String(format: "%d h %02d min", whole / 3600, whole % 3600 / 60)
    }

    private static let style = """
        body{font-family:system-ui,sans-serif;margin:24px;color:#222;max-width:960px}h1{margin:0 0 4px}h2{margin-top:28px;border-bottom:1px solid #ccc}\
        .sub,.note{color:#666;font-size:13px}dl.summary{display:grid;grid-template-columns:repeat(4,1fr);gap:8px}dl.summary div{background:#f4f6f8;padding:8px;border-radius:6px}\
        dt{font-size:12px;color:#666}dd{margin:0;font-size:18px;font-weight:600}table{border-collapse:collapse;margin:8px 0}td,th{border:1px solid #ddd;padding:4px 8px;text-align:left;font-size:13px}\
        caption{text-align:left;font-weight:600}svg text{font-size:12px;fill:#333}.legend span{margin-right:16px;font-size:13px}.legend i{display:inline-block;width:12px;height:12px;margin-right:4px;vertical-align:middle}\
        code{word-break:break-all}
        """
}

/// Text made safe for HTML and XML: the five markup characters as entities, and control
/// characters (not allowed in XML) shown as `\u{…}`.
public enum HTMLText {
    /// `text` escaped for an element's content or a quoted attribute value.
    public static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            case "\t", "\n", "\r": out.unicodeScalars.append(scalar)
            default:
                if scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || scalar.value == 0xFFFE || scalar.value == 0xFFFF {
                    out += "\\u{" + String(scalar.value, radix: 16) + "}"
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out
    }
}
