import CommandLineKit
import Foundation
import NDEF
import NFCCore

/// `nfctool ndef decode`: shows what an NDEF message holds.
struct NDEFDecodeCommand: ToolCommand {
    static let hexArgument = CommandArgument("hex", help: "The message as hex (spaces and colons allowed); several arguments are joined.", isOptional: true, isRepeatable: true)
    static let input = CommandOption.option("input", short: "i", valueName: "file", help: "Read the message from a file, raw bytes or hex text ('-' for standard input).")
    static let json = CommandOption.flag("json", help: "Print the message as JSON (docs/ndef.md): raw fields and decoded meaning.")
    static let lenient = CommandOption.flag("lenient", help: "Show what can be read of damaged data, with warnings, instead of failing.")

    static let configuration = CommandConfiguration(
        name: "decode",
        abstract: "Decode an NDEF message and show its records.",
        discussion: """
            The message comes from the arguments (hex), from --input, or from standard input (raw \
            bytes or hex text). Exits with 65 when the bytes are not a valid NDEF message or a \
            record breaks its type's rules; --lenient shows what can be read and exits 0.

            Examples:
              nfctool ndef decode d1010c55046578616d706c652e636f6d
              nfctool ndef decode --input tag.ndef --json
              nfctool ndef encode --url https://example.com | nfctool ndef decode
            """,
        options: [input, json, lenient],
        arguments: [hexArgument]
    )

    let hexText: String?
    let inputPath: String?
    let printsJSON: Bool
    let isLenient: Bool

    init(_ arguments: ParsedArguments) throws(CommandError) {
        let hex = arguments.values(of: Self.hexArgument)
        hexText = hex.isEmpty ? nil : hex.joined(separator: " ")
        inputPath = arguments.value(of: Self.input)
        printsJSON = arguments.contains(Self.json)
        isLenient = arguments.contains(Self.lenient)
        if hexText != nil && inputPath != nil {
            throw .usage("give the message either as hex arguments or with --input, not both")
        }
    }

    func run(_ context: CommandContext) async throws(CommandError) {
        let bytes = try readMessageBytes(context)
        var warnings: [NDEFError] = []
        let message: NDEFMessage
        if isLenient {
            let result = NDEFMessage.decodeLeniently(bytes)
            message = result.message
            warnings = result.warnings
        } else {
            do {
                message = try NDEFMessage(bytes: bytes)
            } catch {
                throw .ndef("not a valid NDEF message: \(error). Try --lenient to see what can be read.", error)
            }
        }
        // Records whose payload breaks its type's rules.
        var recordProblems: [(Int, NDEFError)] = []
        for (index, record) in message.records.enumerated() {
            do { _ = try record.content() } catch { recordProblems.append((index, error)) }
        }

        if printsJSON {
            if isLenient {
                context.io.write(try toolJSON(LenientOutput(records: message.records, warnings: warnings.map(WarningOutput.init))))
            } else {
                context.io.write(try toolJSON(message))
            }
        } else {
            context.io.write(NDEFDisplay.describe(message, byteCount: bytes.count))
        }
        for warning in warnings { context.io.printErrorLine("warning: \(warning)") }
        if isLenient {
            for (index, problem) in recordProblems { context.io.printErrorLine("warning: record \(index + 1): \(problem)") }
        } else if let (index, problem) = recordProblems.first {
            // The problem's offset counts from its record's payload, not the input: only the code goes along.
            throw .dataError("record \(index + 1) breaks its type's rules: \(problem)", code: problem.code.rawValue)
        }
    }

    /// The message bytes from hex arguments, a file or standard input.
    private func readMessageBytes(_ context: CommandContext) throws(CommandError) -> [UInt8] {
        if let hexText {
            do { return try Hex.decode(hexText) } catch {
                throw .invalidValue(hexText, for: Self.hexArgument, reason: error.description)
            }
        }
        let raw: [UInt8]
        if let inputPath, inputPath != "-" {
            raw = try readFileBytes(inputPath, what: "input file", limit: InputLimits.ndefMessage)
        } else {
            if inputPath == nil && context.io.isStandardInputTerminal {
                throw .usage("no message given: pass hex, --input FILE, or pipe the bytes in")
            }
            raw = try context.io.readStandardInput(limit: InputLimits.ndefMessage)
        }
        return Self.hexOrRaw(raw)
    }

    /// Input that is entirely hex text (with separators) is read as hex; anything else as raw
    /// bytes. An NDEF message starts with a header byte with MB set (0x80 or above), which is
    /// never an ASCII character, so the two cannot be confused.
    static func hexOrRaw(_ bytes: [UInt8]) -> [UInt8] {
        guard let first = bytes.first, first < 0x80,
              let text = String(validating: bytes, as: UTF8.self),
              let decoded = try? Hex.decode(text.trimmingCharacters(in: .whitespacesAndNewlines))
        else { return bytes }
        return decoded
    }

    private struct LenientOutput: Encodable {
        var records: [NDEFPayload]
        var warnings: [WarningOutput]
    }

    private struct WarningOutput: Encodable {
        var code: String
        var offset: Int?
        var reason: String
        init(_ e: NDEFError) {
            code = e.code.rawValue
            offset = e.offset
            reason = e.reason
        }
    }
}

/// The human-readable form of a message: one block per record with its type, fields and sizes.
enum NDEFDisplay {
    static func describe(_ message: NDEFMessage, byteCount: Int) -> String {
        var out = "NDEF message: \(message.records.count) record\(message.records.count == 1 ? "" : "s"), \(byteCount) bytes\n"
        for (index, record) in message.records.enumerated() {
            out += "\nRecord \(index + 1): \(title(record))\n"
            for (name, value) in fields(record) {
                // A value stays on its line: a tag cannot forge lines of output.
                out += "  " + name + ": " + String(repeating: " ", count: max(0, 10 - name.count))
                    + TerminalSafeText.escaping(value, newlines: .escape) + "\n"
            }
        }
        return out
    }

    private static func title(_ record: NDEFPayload) -> String {
        let kind: String
        switch try? record.content() {
        case .uri: kind = "URI"
        case .text: kind = "Text"
        case .smartPoster: kind = "Smart Poster"
        case .wifi: kind = "Wi-Fi credential"
        case .bluetooth: kind = "Bluetooth pairing"
        case .mime: kind = "MIME"
        case .absoluteURI: kind = "Absolute URI"
        case .androidApplication: kind = "Android app"
        case .external: kind = "External"
        case .otherWellKnown: kind = "Well-known"
        case .unknown: kind = "Unknown type"
        case .empty: kind = "Empty"
        case nil: kind = "Malformed"
        }
        let type = record.typeString.map { "\"\(TerminalSafeText.escaping($0, newlines: .escape))\"" } ?? "0x" + Hex.encode(record.type)
        let tnf = record.typeNameFormat
        let typePart = tnf == .empty || tnf == .unknown ? tnf.name : "\(tnf.name) \(type)"
        return "\(kind) (\(typePart)), payload \(record.payload.count) byte\(record.payload.count == 1 ? "" : "s")"
    }

    private static func fields(_ record: NDEFPayload) -> [(String, String)] {
        var out: [(String, String)] = []
        if !record.identifier.isEmpty {
            out.append(("id", record.typeString != nil ? quoted(record.identifier) : Hex.encode(record.identifier)))
        }
        let content: NDEFContent
        do {
            content = try record.content()
        } catch {
            out.append(("error", error.description))
            out.append(("payload", preview(record.payload, asText: false)))
            return out
        }
        switch content {
        case .empty: break
        case .uri(let uri): out.append(("uri", uri))
        case .text(let t):
            out += [("text", t.text), ("language", t.language), ("encoding", t.encoding.rawValue)]
        case .smartPoster(let p):
            out.append(("uri", p.uri))
            for t in p.titles { out.append(("title", "\(t.text) [\(t.language)]")) }
            if let a = p.action { out.append(("action", a.name)) }
            if let s = p.size { out.append(("size", "\(s) bytes")) }
            if let m = p.mimeType { out.append(("type", m)) }
            for icon in p.icons { out.append(("icon", "\(icon.mimeType), \(icon.data.count) bytes")) }
            for other in p.otherRecords { out.append(("record", "\(other.typeNameFormat.name) \(other.typeString ?? "?"), \(other.payload.count) bytes")) }
        case .wifi(let w):
            out.append(("ssid", w.ssidString ?? Hex.encode(w.ssid)))
            out.append(("auth", w.authentication.name))
            out.append(("encryption", w.encryption.name))
            out.append(("key", w.networkKey.isEmpty ? "(none)" : "(\(w.networkKey.count) bytes; --json shows it)"))
            out.append(("mac", Hex.encode(w.macAddress, uppercase: true, separator: ":")))
        case .bluetooth(let b):
            out.append(("address", b.addressString))
            if let n = b.localName { out.append(("name", n)) }
            if let c = b.deviceClass { out.append(("class", "0x" + String(c, radix: 16))) }
            for item in b.otherItems { out.append(("eir 0x" + Hex.encode([item.type]), Hex.encode(item.data))) }
        case .mime(_, let data), .external(_, let data), .absoluteURI(_, let data), .otherWellKnown(_, let data), .unknown(let data):
            out.append(("data", preview(data, asText: true)))
        case .androidApplication(let name): out.append(("package", name))
        }
        return out
    }

    private static func quoted(_ bytes: Bytes) -> String {
        "\"" + TerminalSafeText.escaping(utf8: bytes, newlines: .escape) + "\""
    }

    /// Printable UTF-8 as a quoted string, anything else as hex; long data shortened.
    private static func preview(_ data: Bytes, asText: Bool) -> String {
        if data.isEmpty { return "(none)" }
        if asText, case .success(let s) = UnicodeValidation.decodeUTF8(data),
           !s.unicodeScalars.contains(where: { ($0.value < 0x20 && $0 != "\n" && $0 != "\t") || $0.value == 0x7F }) {
            let shown = s.count > 200 ? String(s.prefix(200)) + "…" : s
            return "\"" + shown.replacingOccurrences(of: "\n", with: "\\n") + "\""
        }
        let limit = 64
        let hex = Hex.encode(data.prefix(limit), separator: " ")
        return data.count > limit ? hex + " … (\(data.count) bytes)" : hex
    }
}
