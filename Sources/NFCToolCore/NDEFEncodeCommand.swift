import CommandLineKit
import Foundation
import NDEF
import NFCCore

/// `nfctool ndef encode`: builds one NDEF message from flags, records in the order given.
struct NDEFEncodeCommand: ToolCommand {
    // Output.
    static let json = CommandOption.flag("json", help: "Print the message as JSON instead of hex.")
    static let raw = CommandOption.flag("raw", help: "Write the raw bytes to standard output (refused on a terminal).")
    static let output = CommandOption.option("output", short: "o", valueName: "file", help: "Write the raw bytes to a file.")
    static let chunkSize = CommandOption.option("chunk-size", valueName: "n", help: "Split payloads longer than n bytes into chunked records.")

    static let configuration = CommandConfiguration(
        name: "encode",
        abstract: "Build an NDEF message from records given as options.",
        discussion: """
            Records appear in the message in the order their options are given. Options such as \
            --lang, --data or --wifi-auth change the record started just before them.

            Examples:
              nfctool ndef encode --url https://example.com/t/42
              nfctool ndef encode --text Hello --lang en --text Bonjour --lang fr
              nfctool ndef encode --mime text/vcard --data-file card.vcf -o card.ndef
              NFCTOOL_WIFI_KEY=secret123 nfctool ndef encode --wifi-ssid Guest
              nfctool ndef encode --smart-poster tel:+1555 --title "Call us" --action do
            """,
        options: RecordOptions.all + [json, raw, output, chunkSize]
    )

    /// The parsed options in order; records are built in `run` (files and the environment are
    /// read there), but every value that can be checked without I/O is checked here.
    let occurrences: [ParsedArguments.Occurrence]
    let printsJSON: Bool
    let writesRaw: Bool
    let outputPath: String?
    let chunk: Int?

    init(_ arguments: ParsedArguments) throws(CommandError) {
        occurrences = arguments.occurrences
        printsJSON = arguments.contains(Self.json)
        writesRaw = arguments.contains(Self.raw)
        outputPath = arguments.value(of: Self.output)
        chunk = try arguments.value(of: Self.chunkSize) { Int($0).flatMap { $0 >= 1 ? $0 : nil } }
        if printsJSON && writesRaw { throw .usage("--json and --raw cannot be used together") }
        guard occurrences.contains(where: { RecordOptions.starters.contains($0.option) }) else {
            throw .usage("no record given: add at least one of --url, --text, --mime, --external, --absolute-uri, --aar, --wifi-ssid, --smart-poster, --bluetooth, --json-file")
        }
    }

    func run(_ context: CommandContext) async throws(CommandError) {
        let message = NDEFMessage(records: try RecordOptions.records(occurrences, context))
        let bytes: [UInt8]
        do {
            bytes = try message.encoded(chunkSize: chunk)
        } catch {
            throw .usage("cannot encode the message: \(error)")
        }
        if let outputPath {
            try writeFileBytes(bytes, to: outputPath)
            context.io.printErrorLine("Wrote \(bytes.count) bytes (\(message.records.count) record\(message.records.count == 1 ? "" : "s")) to \(outputPath).")
        }
        if printsJSON {
            context.io.write(try toolJSON(message))
        } else if writesRaw {
            guard !context.io.isStandardOutputTerminal else {
                throw .usage("--raw would write binary to the terminal; redirect standard output or use --output")
            }
            context.io.write(bytes, to: .standardOutput)
        } else if outputPath == nil {
            context.io.printLine(Hex.encode(bytes))
        }
    }
}
