import Foundation
import NFCTestSupport
import Testing
@testable import NFCToolCore

/// The man pages and completion scripts cannot drift from the help texts: for every command of
/// the definitions, what `--help` lists (options, short names, aliases, subcommands) is in its
/// man page and in the bash, zsh and fish scripts, and independent tools (groff, mandoc, bash,
/// zsh, fish) accept and run them. Help, pages and scripts come from nfctool run in-process (one
/// `CommandContext` per run, no child process); only the shells, groff and mandoc are spawned,
/// and the built executable only where a shell's completion calls it back (`--device`).
@Suite("nfctool's man pages and completions match its help", .timeLimit(.minutes(5)))
struct ManualAndCompletionDriftTests {
    static let groff = ExternalTool.program("groff", package: "groff")
    static let mandoc = ExternalTool.program("mandoc", package: "mandoc")
    static let zsh = ExternalTool.program("zsh", package: "zsh")
    static let fish = ExternalTool.program("fish", package: "fish")

    static func executable() throws -> String {
        try #require(Executables.built("nfctool"), "nfctool is not built").path
    }

    /// Runs nfctool in-process; standard error appended.
    static func nfctool(_ arguments: [String]) async -> String {
        let run = await runNFCTool(arguments)
        #expect(run.status == .success, "nfctool \(arguments.joined(separator: " ")): \(run.standardOutput)\(run.standardError)")
        return run.standardOutput + run.standardError
    }

    /// Runs `tool` off the cooperative pool; standard error merged in.
    static func spawn(_ tool: String, _ arguments: [String], environment: [String: String], timeout: Double = 10) async throws -> (status: Int32, output: String) {
        let run = try await NFCTestSupport.runTool(tool, arguments, environment: environment, timeout: timeout)
        return (run.status, run.output)
    }

    /// The options (`--name`, `-x`) and subcommands a help text lists.
    static func listed(in help: String) -> (options: Set<String>, subcommands: [String]) {
        var options: Set<String> = [], subcommands: [String] = [], section = ""
        for line in help.split(separator: "\n", omittingEmptySubsequences: false) {
            if let title = line.firstMatch(of: /^([A-Z]+):/) { section = String(title.1); continue }
            if line.isEmpty { section = ""; continue }
            guard line.hasPrefix("  "), !line.hasPrefix("   ") else { continue }
            // The label: up to the padding before the abstract (or the whole line when long).
            let label = line.dropFirst(2).components(separatedBy: "  ").first ?? ""
            if section == "OPTIONS" {
                for token in label.split(whereSeparator: { $0 == " " || $0 == "," }) where token.hasPrefix("-") {
                    options.insert(String(token))
                }
            } else if section == "SUBCOMMANDS" {
                subcommands.append(String(label.prefix { $0 != " " }))
            }
        }
        return (options, subcommands)
    }

    @Test("help, definitions, man page and the three scripts list the same options and subcommands",
          arguments: CommandTree.all(from: NFCToolCommand.self))
    func noDrift(_ node: CommandTree.Node) async throws {
        let words = Array(node.path.dropFirst())
        let help = await Self.nfctool(words + ["--help"])
        let (options, subcommands) = Self.listed(in: help)
        // The definitions and the help agree.
        let configuration = node.command.configuration
        var declared: Set<String> = ["-h", "--help"]
        if node.path.count == 1 { declared.insert("--version") }
        for option in configuration.options {
            declared.insert("--" + option.name)
            if let short = option.shortName { declared.insert("-\(short)") }
            for alias in option.aliases { declared.insert("--" + alias) }
        }
        #expect(options == declared, "help lists \(options.sorted()), the definitions \(declared.sorted())")
        #expect(subcommands == configuration.subcommands.map { $0.configuration.name })

        let page = await Self.nfctool(["help", "--man"] + words)
        let bash = await Self.nfctool(["completion", "bash"])
        let zsh = await Self.nfctool(["completion", "zsh"])
        let fish = await Self.nfctool(["completion", "fish"])
        let key = node.path.joined(separator: " ")
        let bashNode = try #require(bash.firstRange(of: "    '\(key)')\n").map { bash[$0.upperBound...].prefix { $0 != ";" } })
        let zshFunction = "_" + node.path.map { $0.replacingOccurrences(of: "-", with: "_") }.joined(separator: "_")
        let zshStart = try #require(zsh.firstRange(of: "\n\(zshFunction)() {\n"))
        let zshBody = zsh[zshStart.upperBound...].prefix(upTo: zsh[zshStart.upperBound...].firstRange(of: "\n}\n")?.lowerBound ?? zsh.endIndex)
        let fishCondition = "complete -c nfctool -n '__nfctool_at \\'\(key)\\''"
        let fishLines = fish.split(separator: "\n").filter { $0.hasPrefix(fishCondition + " ") }
        for option in options {
            let roff = "\\fB" + option.replacingOccurrences(of: "-", with: "\\-") + "\\fR"
            #expect(page.contains(roff), "the man page of '\(key)' lacks \(option)")
            #expect(bashNode.contains(" \(option) ") || bashNode.contains("'\(option) ") || bashNode.contains(" \(option)'") || bashNode.contains("'\(option)'"),
                    "bash lacks \(option) for '\(key)'")
            // zsh specs: '--json[…]', '--url=[…]', '(-d --device)'{-d+,--device=}'[…]'.
            #expect(["[", "=", "}", ",", "+"].contains { zshBody.contains(option + $0) }, "zsh lacks \(option) for '\(key)'")
            let fishFlag = option.hasPrefix("--") ? " -l \(option.dropFirst(2)) " : " -s \(option.dropFirst()) "
            #expect(fishLines.contains { $0.contains(fishFlag) }, "fish lacks \(option) for '\(key)'")
        }
        for subcommand in subcommands {
            let subPage = "nfctool-" + (words + [subcommand]).joined(separator: "-")
            #expect(page.contains(".BR \(subPage.replacingOccurrences(of: "-", with: "\\-")) (1)"), "the man page of '\(key)' lacks \(subcommand)")
            #expect(bashNode.contains(subcommand), "bash lacks \(subcommand)")
            #expect(zshBody.contains("'\(subcommand):"), "zsh lacks \(subcommand)")
            #expect(fishLines.contains { $0.contains(" -a '\(subcommand)' ") }, "fish lacks \(subcommand)")
        }
    }

    @Test("groff (-ww) and mandoc (lint) render every page of nfctool without a warning")
    func pagesRenderCleanly() async throws {
        for node in CommandTree.all(from: NFCToolCommand.self) {
            let directory = try temporaryDirectory()
            let file = directory.appendingPathComponent(node.path.joined(separator: "-") + ".1")
            try Data(await Self.nfctool(["help", "--man"] + node.path.dropFirst()).utf8).write(to: file)
            if Self.groff.isAvailable || isContinuousIntegration {
                let run = try await Self.spawn("/bin/bash", ["-c", "\(try Self.groff.require()) -man -Tutf8 -ww -z '\(file.path)' 2>&1"], environment: [:])
                #expect(run.status == 0 && run.output.isEmpty, "\(node.path): \(run.output)")
            }
            if Self.mandoc.isAvailable || isContinuousIntegration {
                let run = try await Self.spawn(try Self.mandoc.require(), ["-T", "lint", "-W", "warning", file.path], environment: [:])
                #expect(run.status == 0 && run.output.isEmpty, "\(node.path): \(run.output)")
            }
        }
    }

    @Test("nfctool(1) holds the exit-status table help prints, from the same definitions")
    func exitStatusTable() async {
        let page = await Self.nfctool(["help", "--man"])
        let help = await Self.nfctool(["--help"])
        for status in ExitCode.nfctoolStatuses {
            #expect(page.contains(".TP\n\\fB\(status.code.rawValue)\\fR\n" + ManualPagesEscape.escape(status.meaning) + "\n"))
            #expect(help.contains("  \(status.code.rawValue)") && help.contains(status.meaning))
        }
    }

    @Test("bash -n, zsh -n and fish -n accept nfctool's scripts")
    func scriptSyntax() async throws {
        let directory = try temporaryDirectory()
        for (shell, tool) in [("bash", "/bin/bash"), ("zsh", Self.zsh.path), ("fish", Self.fish.path)] {
            guard let tool else {
                if isContinuousIntegration { Issue.record("\(shell) is not installed (Scripts/setup installs it)") }
                continue
            }
            let file = directory.appendingPathComponent("nfctool.\(shell)")
            try Data(await Self.nfctool(["completion", shell]).utf8).write(to: file)
            let run = try await Self.spawn(tool, ["-n", file.path], environment: [:])
            #expect(run.status == 0 && run.output.isEmpty, "\(shell): \(run.output)")
            if shell == "zsh" {
                // Loaded by zsh's completion system, it defines a function for every command.
                let functions = CommandTree.all(from: NFCToolCommand.self).map { "_" + $0.path.joined(separator: "_") }
                let loaded = try await Self.spawn(
                    tool, ["-f", "-c", "autoload -U compinit && compinit -u -D && source '\(file.path)' && whence -w \(functions.joined(separator: " "))"],
                    environment: ["HOME": directory.path])
                #expect(loaded.status == 0, "\(loaded.output)")
                #expect(loaded.output.split(separator: "\n").count == functions.count, "\(loaded.output)")
            }
        }
    }

    @Test("bash completes nfctool's commands, nested ones, option words, and --device from the tool itself")
    func bashCompletes() async throws {
        let tool = try Self.executable()
        let directory = try temporaryDirectory()
        let script = directory.appendingPathComponent("nfctool.bash")
        try Data(await Self.nfctool(["completion", "bash"]).utf8).write(to: script)
        func completes(_ words: [String], line: String? = nil) async throws -> [String] {
            let quoted = ([tool] + words).map { "'\($0)'" }.joined(separator: " ")
            let setup = line.map { "COMP_LINE=\"\(tool) \($0)\"; COMP_POINT=${#COMP_LINE}; " } ?? ""
            let run = try await Self.spawn(
                "/bin/bash", ["-c", "source '\(script.path)' && \(setup)COMP_WORDS=(\(quoted)); COMP_CWORD=\(words.count); _nfctool; printf '%s\\n' \"${COMPREPLY[@]}\""],
                environment: ["PATH": "/usr/bin:/bin"], timeout: 60)
            #expect(run.status == 0, "\(run.output)")
            return run.output.split(separator: "\n").map(String.init)
        }
        #expect(try await completes(["wr"]) == ["write"])
        #expect(try await completes(["ndef", "e"]) == ["encode"])
        #expect(try await completes(["ledger", "s"]) == ["stats"])
        #expect(try await completes(["completion", ""]) == ["bash", "zsh", "fish"])
        #expect(try await completes(["watch", "--events", "arrive,"]) == ["arrive,leave"])
        #expect(try await completes(["ndef", "encode", "--wifi-encryption", "aes"]) == ["aes", "aes-tkip"])
        #expect(try await completes(["write", "--dev"]) == ["--device"])
        let devices = try await completes(["read", "--device", "sim:ntag21"])
        #expect(devices == ["sim:ntag213", "sim:ntag215", "sim:ntag216"])
        // In a real shell bash has split the word at ':' and replaces what follows it.
        #expect(try await completes(["read", "--device", "sim", ":", "ntag21"], line: "read --device sim:ntag21") == ["ntag213", "ntag215", "ntag216"])
        // emulate needs target mode: libnfc readers only, never the simulator's models.
        #expect(try await completes(["emulate", "--device", "sim:ntag21"]) == [])
        #expect(try await completes(["emulate", "--device", "def"]) == ["default"])
    }

    /// Drives an interactive zsh on a pseudo-terminal (zpty): loads compinit and the script
    /// `$1`, types the line `$2` and Tab, and prints every candidate zsh's completion system
    /// offered (through a compadd wrapper), one per line.
    static let zshCapture = #"""
        zmodload zsh/zpty || exit 2
        zpty z zsh -f -i
        zpty -w z "PS1=''; autoload -U compinit; compinit -u -D"
        zpty -w z "source ${(q)1}"
        zpty -w z 'comppostfuncs=(_capture_done); _capture_done() { print -r -- "<<""END>>" }'
        zpty -w z 'compadd() { builtin compadd -O __hits "$@"; (( ${#__hits} )) && print -rl -- "<<""HIT>>"${^__hits}"<<"; builtin compadd "$@" }'
        zpty -w z 'bindkey "^I" complete-word'
        zpty -w -n z "$2"$'\t'
        output=''
        integer tries=0
        while (( tries++ < 1200 )); do
          if zpty -r -t z chunk 2>/dev/null; then
            output+=$chunk
            [[ $output == *'<<END>>'* ]] && break
          else
            sleep 0.05
          fi
        done
        print -r -- "$output" | tr -d '\r' | grep -o '<<HIT>>[^<]*' | sed 's/<<HIT>>//' | sort -u
        zpty -d z
        """#

    @Test("zsh's completion system completes nfctool's commands, option words and --device", Self.zsh.trait)
    func zshCompletes() async throws {
        let zsh = try Self.zsh.require()
        let tool = URL(fileURLWithPath: try Self.executable())
        let directory = try temporaryDirectory()
        let script = directory.appendingPathComponent("_nfctool")
        let capture = directory.appendingPathComponent("capture.zsh")
        try Data(await Self.nfctool(["completion", "zsh"]).utf8).write(to: script)
        try Data(Self.zshCapture.utf8).write(to: capture)
        func completes(_ line: String) async throws -> [String] {
            let run = try await Self.spawn(
                zsh, ["-f", capture.path, script.path, line],
                environment: ["HOME": directory.path, "PATH": tool.deletingLastPathComponent().path + ":/usr/bin:/bin", "TERM": "dumb"],
                timeout: 90)
            return run.output.split(separator: "\n").map(String.init)
        }
        #expect(try await completes("nfctool wr") == ["write"])
        #expect(try await completes("nfctool ndef e") == ["encode"])
        #expect(try await completes("nfctool watch --events ") == ["arrive", "arrive,leave", "leave"])
        #expect(try await completes("nfctool write --dev") == ["--device"])
        #expect(try await completes("nfctool read --device sim:ntag21") == ["sim:ntag213", "sim:ntag215", "sim:ntag216"])
    }

    @Test("fish completes nfctool's commands and --device", Self.fish.trait)
    func fishCompletes() async throws {
        let fish = try Self.fish.require()
        let tool = try Self.executable()
        let directory = try temporaryDirectory()
        let script = directory.appendingPathComponent("nfctool.fish")
        try Data(await Self.nfctool(["completion", "fish"]).utf8).write(to: script)
        func completes(_ line: String) async throws -> [String] {
            let run = try await Self.spawn(fish, ["--no-config", "-c", "source '\(script.path)'; function nfctool; '\(tool)' $argv; end; complete -C '\(line)'"],
                                                 environment: ["HOME": directory.path, "PATH": "/usr/bin:/bin"], timeout: 60)
            return run.output.split(separator: "\n").map { String($0.split(separator: "\t").first ?? "") }
        }
        #expect(try await completes("nfctool wr") == ["write"])
        #expect(try await completes("nfctool ndef e") == ["encode"])
        #expect(try await completes("nfctool read --device sim:ntag21").contains("sim:ntag215"))
    }

    @Test("'completion' wants a known shell; --list-devices offers default and every simulator model, --list-emulator-devices no simulator")
    func completionCommand() async throws {
        #expect(await runNFCTool(["completion"]).status == .usage)
        #expect(await runNFCTool(["completion", "tcsh"]).status == .usage)
        #expect(await runNFCTool(["completion", "bash", "--list-devices"]).status == .usage)
        let listed = await runNFCTool(["completion", "--list-devices"])
        #expect(listed.status == .success)
        let lines = listed.standardOutput.split(separator: "\n").map(String.init)
        #expect(lines.first == "default")
        #expect(lines.contains("sim:ntag215") && lines.contains("sim:type4"))
        // emulate's list: default and libnfc's readers (none here), no sim: and no pcsc: reader.
        #expect(await runNFCTool(["completion", "zsh", "--list-emulator-devices"]).status == .usage)
        #expect(await runNFCTool(["completion", "--list-devices", "--list-emulator-devices"]).status == .usage)
        let emulators = await runNFCTool(["completion", "--list-emulator-devices"])
        #expect(emulators.status == .success)
        let offered = emulators.standardOutput.split(separator: "\n").map(String.init)
        #expect(offered.first == "default")
        #expect(!offered.contains { $0.hasPrefix("sim") || $0.hasPrefix("pcsc") }, "\(offered)")
    }
}

/// The roff escaping the pages use, as the test expects it (hyphens as `\-`).
enum ManualPagesEscape {
    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\e").replacingOccurrences(of: "-", with: "\\-")
    }
}
