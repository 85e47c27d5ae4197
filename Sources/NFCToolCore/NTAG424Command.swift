import CommandLineKit
import Foundation
import NDEF
import NFCCore
import NFCTags

/// `nfctool ntag424`: NTAG 424 DNA personalization.
struct NTAG424Command: CommandGroup {
    static let configuration = CommandConfiguration(
        name: "ntag424",
        abstract: "Personalize NXP NTAG 424 DNA chips (SUN: encrypted, MAC-ed URLs).",
        discussion: "See docs/genuine-and-dynamic.md.",
        subcommands: [NTAG424SetupCommand.self]
    )
}

/// `nfctool ntag424 setup --url URL --keys FILE`: the factory chip to a SUN sticker.
struct NTAG424SetupCommand: ToolCommand {
    /// The environment variable that may hold the keys, in the keys file's form.
    static let keysVariable = "NFCTOOL_NTAG424_KEYS"
    static let url = CommandOption.option(
        "url", valueName: "url", help: "The URL, with {sun:picc} (encrypted UID and counter) and {sun:mac} where the chip mirrors them.")
    static let keys = CommandOption.option(
        "keys", valueName: "file",
        help: "The keys file: key0 (new AppMasterKey), sdmFileRead, sdmMetaRead, optionally key3/key4 (else $\(keysVariable) in the same form).")
    static let currentKeys = CommandOption.option(
        "current-keys", valueName: "file",
        help: "For a chip set up before: the keys file of its current keys (key0 opens it; the others are the old values of the keys changed).")

    static let configuration = CommandConfiguration(
        name: "setup",
        abstract: "Write a SUN URL to a factory NTAG 424 DNA, enable SDM, change its keys.",
        discussion: """
            Authenticates with the factory key 0 (all zero), writes the NDEF file with the URL \
            (placeholders as '0's), enables Secure Dynamic Messaging with encrypted PICC data \
            (SDMMetaRead key 2) and the SDMMAC (SDMFileRead key 1) at the placeholders' offsets, \
            then changes keys 1-4 the keys file gives and key 0 last. Afterwards the chip is \
            read once as a phone would and the URL checked (SDMReadCtr 1). Keys come from \
            --keys FILE or $\(keysVariable) ('key0=HEX;sdmMetaRead=HEX;sdmFileRead=HEX'), never \
            from the command line, and are never printed. --plan lists every command, keys \
            masked, and sends nothing. Key 0 changes for good: the setup asks first, as lock \
            does, and needs --yes when standard input is not a terminal. Check a tap with \
            'nfctool sun verify URL --keys FILE'.

            Examples:
              nfctool ntag424 setup --url 'https://ex.io/t?e={sun:picc}&c={sun:mac}' --keys sticker.keys --yes
              nfctool ntag424 setup --url 'https://ex.io/t?e={sun:picc}&c={sun:mac}' --keys sticker.keys --plan
            """,
        options: TagCommandSupport.readerOptions + [TagCommandSupport.timeout, url, keys, currentKeys, TagCommandSupport.json, TagWriteSupport.yes, TagWriteSupport.plan]
    )

    let options: TagCommandOptions
    let template: String

    init(_ arguments: ParsedArguments) throws(CommandError) {
        options = try TagCommandOptions(arguments)
        guard let template = arguments.value(of: Self.url) else { throw .usage("ntag424 setup needs --url with {sun:picc} and {sun:mac}") }
        self.template = template
    }

    /// The setup's report: what was done, never a key.
    struct Report: Encodable, Sendable {
        var uid: String?
        var url: String
        var written: String
        var steps: [NTAG424Setup.Step]
        var keysChanged: [Int]
        var planned: Bool
        var check: Check?
        struct Check: Encodable, Sendable {
            var url: String
            var valid: Bool
            var readCounter: UInt32?
        }
    }

    func run(_ context: CommandContext) async throws(CommandError) {
        let keyFile = try KeysFileSupport.load(path: options.arguments.value(of: Self.keys), variable: Self.keysVariable, command: "ntag424 setup", context: context)
        var current: NTAG424KeyFile?
        if let path = options.arguments.value(of: Self.currentKeys) {
            current = try KeysFileSupport.load(path: path, variable: Self.keysVariable, command: "ntag424 setup", option: "--current-keys", context: context)
        }
        let urlTemplate: SDMURLTemplate
        do { urlTemplate = try SDMURLTemplate(template) } catch { throw .usage("--url: \(error)") }
        let setup: NTAG424Setup
        do {
            setup = try NTAG424Setup(template: urlTemplate, keys: keyFile, currentKeys: current)
        } catch {
            // The keys file lacks a key the URL or the setup needs: its content is at fault.
            throw .dataError("\(error)")
        }
        var report = Report(
            uid: nil, url: template, written: setup.template.text, steps: setup.steps, keysChanged: setup.changedKeys.map(Int.init),
            planned: options.planning, check: nil)
        if options.planning {
            print(report, context: context, reader: nil)
            return
        }
        let confirmed = options.arguments.contains(TagWriteSupport.yes)
        if !confirmed && !context.io.isStandardInputTerminal {
            throw .usage("ntag424 setup changes the chip's key 0 for good (the factory key no longer opens it). Add --yes to confirm (standard input is not a terminal, so nobody can be asked).")
        }
        let sdmKeys = try? keyFile.sdmKeys()
        let (done, reader) = try await TagOperation(options, context).run(alone: true) { tag, _ in
            guard case .iso7816(let iso) = tag else {
                throw CommandError("the \(tag.identity.model) is not an NTAG 424 DNA (no ISO-DEP); nothing was written", exitCode: .unsupported)
            }
            try context.confirm(
                "the chip with UID \(TagWriteSupport.spacedHex(iso.identifier)) gets new keys: key 0 changes for good and only the keys file opens it afterwards.",
                confirmed: confirmed)
            var chip = NTAG424Tag(iso)
            var result = report
            do throws(NTAG424Error) {
                try await setup.run(on: &chip)
                result.uid = Hex.encode(iso.identifier, uppercase: true)
                let url = try await Self.readURL(chip)
                let tap = sdmKeys.flatMap { try? SUNVerifier.verify(url: url, keys: $0) }
                result.check = Report.Check(url: url, valid: tap != nil, readCounter: tap?.readCounter)
            } catch {
                var failure = CommandError.ntag424(error)
                if error.code == .authenticationFailed, options.arguments.value(of: Self.currentKeys) == nil {
                    failure.message += "\nGive the chip's current keys with --current-keys FILE to set it up again."
                }
                throw failure
            }
            return result
        }
        report = done
        print(report, context: context, reader: reader)
        if report.check?.valid != true {
            throw CommandError("the URL read back after the setup does not verify with the keys given", exitCode: .verifyMismatch)
        }
    }

    /// The URL the chip shows now, read as a phone reads it.
    static func readURL(_ chip: NTAG424Tag) async throws(NTAG424Error) -> String { try await chip.readURL() }

    private func print(_ report: Report, context: CommandContext, reader: ReaderLabel?) {
        if options.printsJSON {
            let text = reader.map { try? taggedJSON($0, report) } ?? (try? toolJSON(report))
            context.io.write(text.flatMap { $0 } ?? "{}\n")
            return
        }
        var lines: [String] = []
        lines.append(report.planned ? "Plan (nothing is sent):" : "Set up NTAG 424 DNA \(report.uid ?? "?"):")
        for (index, step) in report.steps.enumerated() { lines.append("  \(index + 1). \(step.command): \(step.detail)") }
        if let check = report.check {
            lines.append("Read back: \(check.url)")
            lines.append(check.valid ? "Verified: SUN URL valid, SDMReadCtr \(check.readCounter.map(String.init) ?? "?")" : "NOT verified with the keys given")
        }
        context.io.write(lines.joined(separator: "\n") + "\n")
    }
}
