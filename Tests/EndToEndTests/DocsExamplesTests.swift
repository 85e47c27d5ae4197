import Foundation
import NFCTestSupport
import Testing

/// The shell examples of README.md and docs/*.md, run as a reader of the docs runs them.
///
/// An example is a fenced block in `sh` or `console`, or any fence whose first line starts with
/// `$ `. Each document's examples run in order in one `bash`, in a fresh directory, with the
/// built `nfctool` and `pn532-emulator` first on `PATH` (so a variable or a file made by one
/// example is there for the next, as for a reader following the page).
///
/// - A fence with `$ ` lines is a session: each `$ ` line is a command (`> ` lines continue it)
///   and the lines up to the next `$ ` are its output (standard output and error, as a terminal
///   shows them). A line `…` stands for any number of lines, `…` inside a line for any text, and
///   a last line `[exit N]` for the exit status N (0 when absent).
/// - A fence without `$ ` lines is a script: it must run to its end with status 0; its output is
///   not compared.
/// - `<!-- example: hardware REASON -->` or `<!-- example: skip REASON -->` on the line before a
///   fence keeps it from running (a reader is needed, or it builds or installs something); the
///   test lists them.
/// - `<!-- example: built -->` runs a fence that builds first with the build taken as done:
///   `Scripts/setup && ` and `swift build … && ` are dropped, `.build/release/nfctool` is the
///   built tool, and a `Scripts/test` line (this suite) is left out.
///
/// Outputs are compared after ``DocExamples/normalise(_:)``: rates, durations, timestamps,
/// temporary paths and pty numbers do not count.
enum DocExamples {
    /// The repository root.
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// README.md and docs/*.md, relative to the root.
    /// `DOCS_EXAMPLES=docs/batch.md,README.md` limits the run to those (to work on one page).
    static let documents: [String] = {
        let docs = (try? FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("docs").path)) ?? []
        let all = ["README.md"] + docs.filter { $0.hasSuffix(".md") }.sorted().map { "docs/" + $0 }
        guard let only = ProcessInfo.processInfo.environment["DOCS_EXAMPLES"] else { return all }
        let chosen = Set(only.split(separator: ",").map(String.init))
        return all.filter { chosen.contains($0) }
    }()

    /// One command of a session and what the doc says it prints.
    struct Step: Sendable {
        var command: String
        var expected: [String]
        var expectedStatus: Int32
        /// Whether the output is compared (sessions) or only the status (scripts).
        var comparesOutput: Bool
    }

    /// One fenced example.
    struct Example: Sendable {
        var document: String
        /// 1-based line of the opening fence.
        var line: Int
        /// `hardware …` / `skip …` from the marker, or nil when it runs.
        var skipReason: String?
        var steps: [Step]
        var label: String { "\(document):\(line)" }
    }

    /// The examples of `document`, in order.
    static func examples(in document: String) throws -> [Example] {
        let text = try String(contentsOf: root.appendingPathComponent(document), encoding: .utf8)
        let lines = text.components(separatedBy: "\n")
        var examples: [Example] = []
        var index = 0
        while index < lines.count {
            let line = lines[index]
            guard line.hasPrefix("```"), line.count > 3 || index + 1 < lines.count else { index += 1; continue }
            let language = String(line.dropFirst(3)).trimmingCharacters(in: .whitespaces)
            var end = index + 1
            while end < lines.count, !lines[end].hasPrefix("```") { end += 1 }
            var body = Array(lines[(index + 1)..<min(end, lines.count)])
            defer { index = end + 1 }
            let isSession = body.first?.hasPrefix("$ ") == true
            guard language == "sh" || language == "console" || isSession else { continue }
            var skip: String?
            if index > 0, let marker = markerText(lines[index - 1]) {
                if marker == "built" { body = withoutBuild(body) } else { skip = marker }
            }
            examples.append(Example(document: document, line: index + 1, skipReason: skip, steps: steps(of: body)))
        }
        return examples
    }

    /// A fence's lines with its build steps taken as done (see `built` above).
    static func withoutBuild(_ body: [String]) -> [String] {
        body.filter { $0.trimmingCharacters(in: .whitespaces) != "Scripts/test" }.map { line in
            line.replacingOccurrences(of: "Scripts/setup && ", with: "")
                .replacingOccurrences(of: #"swift build [^&]*&& "#, with: "", options: .regularExpression)
                .replacingOccurrences(of: ".build/release/", with: "")
                .replacingOccurrences(of: ".build/debug/", with: "")
        }
    }

    /// `hardware …`, `skip …` or `built` from `<!-- example: … -->`, else nil.
    static func markerText(_ line: String) -> String? {
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        guard trimmed.hasPrefix("<!-- example:"), trimmed.hasSuffix("-->") else { return nil }
        return String(trimmed.dropFirst("<!-- example:".count).dropLast(3)).trimmingCharacters(in: .whitespaces)
    }

    /// The commands of a fence with their expected output.
    static func steps(of body: [String]) -> [Step] {
        guard body.contains(where: { $0.hasPrefix("$ ") }) else {
            return [Step(command: body.joined(separator: "\n"), expected: [], expectedStatus: 0, comparesOutput: false)]
        }
        var steps: [Step] = []
        for line in body {
            if line.hasPrefix("$ ") {
                steps.append(Step(command: String(line.dropFirst(2)), expected: [], expectedStatus: 0, comparesOutput: true))
            } else if line.hasPrefix("> "), var last = steps.popLast(), last.expected.isEmpty {
                last.command += "\n" + line.dropFirst(2)
                steps.append(last)
            } else if var last = steps.popLast() {
                last.expected.append(line)
                steps.append(last)
            }
        }
        for i in steps.indices {
            while steps[i].expected.last?.trimmingCharacters(in: .whitespaces).isEmpty == true { steps[i].expected.removeLast() }
            if let last = steps[i].expected.last, last.hasPrefix("[exit "), last.hasSuffix("]"),
               let status = Int32(last.dropFirst(6).dropLast()) {
                steps[i].expectedStatus = status
                steps[i].expected.removeLast()
            }
        }
        return steps
    }

    /// Output with what changes from run to run replaced: rates, durations, ISO 8601 times,
    /// temporary paths, pty numbers; trailing blanks and blank last lines dropped.
    static func normalise(_ lines: [String]) -> [String] {
        let rules: [(String, String)] = [
            (#"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z"#, "TIME"),
            (#"\d+(\.\d+)? tags/s"#, "N tags/s"),
            (#"\d+(\.\d+)? tags/min"#, "N tags/min"),
            (#"\b\d+(\.\d+)? (s|ms)\b"#, "N $2"),
            (#"/tmp/[^\s"'`),;]*"#, "/tmp/…"),
            (#"/dev/pts/\d+"#, "/dev/pts/N"),
        ]
        var result = lines.map { line -> String in
            var line = line
            for (pattern, replacement) in rules {
                line = line.replacingOccurrences(of: pattern, with: replacement, options: .regularExpression)
            }
            while line.last == " " || line.last == "\t" { line.removeLast() }
            return line
        }
        while result.last?.isEmpty == true { result.removeLast() }
        return result
    }

    /// Whether `actual` fits `expected` (both normalised): `…` alone matches any number of
    /// lines, `…` within a line any text.
    static func matches(_ actual: [String], _ expected: [String]) -> Bool {
        func lineMatches(_ line: String, _ pattern: String) -> Bool {
            guard pattern.contains("…") else { return line == pattern }
            let parts = pattern.components(separatedBy: "…").map { NSRegularExpression.escapedPattern(for: $0) }
            return line.range(of: "^" + parts.joined(separator: ".*") + "$", options: .regularExpression) != nil
        }
        func match(_ a: Int, _ e: Int) -> Bool {
            if e == expected.count { return a == actual.count }
            if expected[e] == "…" { return (a...actual.count).contains { match($0, e + 1) } }
            return a < actual.count && lineMatches(actual[a], expected[e]) && match(a + 1, e + 1)
        }
        return match(0, 0)
    }

    /// What one command printed and how it ended.
    struct Outcome: Sendable {
        var output: [String]
        var status: Int32
    }

    static let separator = "\u{1E}"

    /// The script that runs `examples` in order, printing the separator, the step number and
    /// the status after each command.
    static func script(_ examples: [Example]) -> String {
        var script = "exec 2>&1\ncd \"$1\"\ntrap 'kill $(jobs -p) 2>/dev/null' EXIT\ntrap 'exit 143' TERM\n"
        var number = 0
        for example in examples where example.skipReason == nil {
            for step in example.steps {
                if step.comparesOutput {
                    script += step.command + "\n"
                    script += "printf '\\036%d %d\\n' \(number) $?\n"
                } else {
                    // A script block: stop at its first failing command.
                    script += "set -e\n" + step.command + "\nset +e\n"
                    script += "printf '\\036%d %d\\n' \(number) 0\n"
                }
                number += 1
            }
        }
        return script
    }

    /// Runs `document`'s examples; the outcome of each step in order (fewer when the script
    /// stopped early), and everything it printed.
    static func run(_ examples: [Example], timeout: Duration) async throws -> (outcomes: [Outcome], transcript: String) {
        let tools = try #require(Executables.built("nfctool"), "nfctool is not next to the test runner").deletingLastPathComponent()
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("docs-examples-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        let scriptURL = work.appendingPathComponent(".examples.sh")
        try Data(script(examples).utf8).write(to: scriptURL)
        var environment = ProcessInfo.processInfo.environment.filter {
            !$0.key.hasPrefix("LIBNFC_") && !$0.key.hasPrefix("NFCTOOL_")
        }
        environment["PATH"] = tools.path + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        environment["LC_ALL"] = "C.UTF-8"
        // NFCTestSupport's runner: awaits the shell's end (no thread waits for it) and kills it at
        // the time limit; the script's traps end its background jobs.
        let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
        let run = try await runTool("/bin/bash", [scriptURL.path, work.path], environment: environment, timeout: seconds, in: work)
        let transcript = run.output
        #expect(!run.timedOut, "the examples did not finish within \(timeout):\n\(transcript)")
        var outcomes: [Outcome] = []
        var pending = ""
        for chunk in transcript.components(separatedBy: separator).enumerated() {
            if chunk.offset == 0 { pending = chunk.element; continue }
            // "N STATUS\n" then the next command's output.
            let text = chunk.element
            let newline = text.firstIndex(of: "\n") ?? text.endIndex
            let status = Int32(text[..<newline].split(separator: " ").last ?? "") ?? -1
            var lines = pending.components(separatedBy: "\n")
            if lines.last == "" { lines.removeLast() }
            outcomes.append(Outcome(output: lines, status: status))
            pending = newline < text.endIndex ? String(text[text.index(after: newline)...]) : ""
        }
        if !pending.isEmpty { outcomes.append(Outcome(output: pending.components(separatedBy: "\n"), status: -1)) }
        return (outcomes, transcript)
    }
}

@Suite("The docs' shell examples do what the docs say", .tags(.endToEnd), .timeLimit(.minutes(5)))
struct DocsExamplesTests {
    @Test("each document's examples run in order and print what the document shows", arguments: DocExamples.documents)
    func documentExamples(_ document: String) async throws {
        let examples = try DocExamples.examples(in: document)
        let skipped = examples.filter { $0.skipReason != nil }
        for example in skipped {
            print("docs examples: not run \(example.label) (\(example.skipReason ?? ""))")
        }
        let running = examples.filter { $0.skipReason == nil }
        guard !running.isEmpty else { return }
        let (outcomes, transcript) = try await DocExamples.run(running, timeout: .seconds(90))
        var number = 0
        for example in running {
            for step in example.steps {
                defer { number += 1 }
                guard number < outcomes.count else {
                    Issue.record("\(example.label): `\(step.command)` never ran; the examples stopped before it.\n\(transcript)")
                    return
                }
                let outcome = outcomes[number]
                if !step.comparesOutput {
                    #expect(outcome.status == 0, "\(example.label): the script block failed:\n\(outcome.output.joined(separator: "\n"))")
                    continue
                }
                #expect(outcome.status == step.expectedStatus,
                        "\(example.label): `\(step.command)` exited \(outcome.status), the doc says \(step.expectedStatus)\n\(outcome.output.joined(separator: "\n"))")
                let actual = DocExamples.normalise(outcome.output)
                let expected = DocExamples.normalise(step.expected)
                #expect(DocExamples.matches(actual, expected), """
                    \(example.label): `\(step.command)` printed
                    \(outcome.output.joined(separator: "\n"))
                    but the doc shows
                    \(step.expected.joined(separator: "\n"))
                    """)
            }
        }
    }

    @Test("the examples that cannot run here are marked and say why")
    func skippedExamplesAreListed() throws {
        var skipped: [String] = []
        for document in DocExamples.documents {
            for example in try DocExamples.examples(in: document) {
                guard let reason = example.skipReason else { continue }
                #expect(reason.hasPrefix("hardware") || reason.hasPrefix("skip"), "\(example.label): marker '\(reason)'")
                #expect(reason.split(separator: " ").count > 1, "\(example.label): say why it does not run")
                skipped.append("\(example.label) (\(reason))")
            }
        }
        print("docs examples not run:\n  " + skipped.joined(separator: "\n  "))
    }

    @Test("the comparison: … matches lines and text, rates, times and temporary paths do not count")
    func normaliserAndMatcher() {
        let actual = DocExamples.normalise([
            "[sim] 1/40 done 04: URI x (0 failed, 89.9 tags/s)", "Batch: 1 done in 0.4 s; ledger /tmp/x-1/run.db", "a", "b",
        ])
        let expected = DocExamples.normalise([
            "[sim] 1/40 done 04: URI x (0 failed, 120.0 tags/s)", "Batch: 1 done in 2.1 s; ledger /tmp/y/run.db", "…",
        ])
        #expect(DocExamples.matches(actual, expected))
        #expect(DocExamples.matches(["Tag on pn532_uart:/home/u/pn532"], ["Tag on pn532_uart:…/pn532"]))
        #expect(!DocExamples.matches(["Wrote 36 bytes"], ["Wrote 37 bytes"]))
        #expect(!DocExamples.matches(["a", "b"], ["a"]))
        let steps = DocExamples.steps(of: ["$ false; echo", "", "$ x", "out", "[exit 5]"])
        #expect(steps.map(\.command) == ["false; echo", "x"])
        #expect(steps.map(\.expectedStatus) == [0, 5])
        #expect(steps[1].expected == ["out"])
    }
}
