import CommandLineKit
import Foundation
import NDEF
import NFCCore

/// `nfctool ndef encode`: builds one NDEF message from flags, records in the order given.
struct NDEFEncodeCommand: ToolCommand {
    // Record-starting options: each begins a new record, in command-line order.
    static let url = CommandOption.option("url", valueName: "uri", help: "Add a URI record (a scheme is required: https://, tel:, mailto:, …).", repeatable: true)
    static let text = CommandOption.option("text", valueName: "text", help: "Add a Text record (language from --lang, default en).", repeatable: true)
    static let mime = CommandOption.option("mime", valueName: "type", help: "Add a MIME record of this media type; its data from --data, --data-hex or --data-file.", repeatable: true)
    static let external = CommandOption.option("external", valueName: "domain:type", help: "Add an NFC Forum external type record; data as for --mime.", repeatable: true)
    static let absoluteURI = CommandOption.option("absolute-uri", valueName: "uri", help: "Add a record whose type is this absolute URI; data as for --mime.", repeatable: true)
    static let aar = CommandOption.option("aar", valueName: "package", help: "Add an Android Application Record (e.g. com.example.app).", repeatable: true)
    static let wifiSSID = CommandOption.option("wifi-ssid", valueName: "ssid", help: "Add a Wi-Fi credential record for this network (see --wifi-*).", repeatable: true)
    static let smartPoster = CommandOption.option("smart-poster", valueName: "uri", help: "Add a Smart Poster for this URI (see --title, --action).", repeatable: true)
    static let bluetooth = CommandOption.option("bluetooth", valueName: "address", help: "Add a Bluetooth OOB pairing record for AA:BB:CC:DD:EE:FF (see --bt-*).", repeatable: true)
    static let jsonFile = CommandOption.option("json-file", valueName: "file", help: "Add the records of a JSON message file (docs/ndef.md); '-' reads standard input.", repeatable: true)
    // Modifiers of the record started last.
    static let lang = CommandOption.option("lang", valueName: "tag", help: "Language of the preceding --text or --title (default en).", repeatable: true)
    static let utf16 = CommandOption.flag("utf16", help: "Store the preceding --text or --title as UTF-16.", repeatable: true)
    static let data = CommandOption.option("data", valueName: "text", help: "Data (UTF-8 text) of the preceding --mime, --external or --absolute-uri.", repeatable: true)
    static let dataHex = CommandOption.option("data-hex", valueName: "hex", help: "Data, as hex, of the preceding --mime, --external or --absolute-uri.", repeatable: true)
    static let dataFile = CommandOption.option("data-file", valueName: "file", help: "Data, read from a file, of the preceding --mime, --external or --absolute-uri.", repeatable: true)
    static let id = CommandOption.option("id", valueName: "id", help: "Record ID of the preceding record.", repeatable: true)
    static let wifiAuth = CommandOption.option("wifi-auth", valueName: "auth", help: "open, wpa-personal, wpa2-personal (default), wpa-wpa2-personal, shared, wpa-enterprise, wpa2-enterprise.", repeatable: true)
    static let wifiEncryption = CommandOption.option("wifi-encryption", valueName: "enc", help: "none, wep, tkip, aes (default; none for an open network), aes-tkip.", repeatable: true)
    static let wifiKeyFile = CommandOption.option("wifi-key-file", valueName: "file", help: "Read the network key from a file (or set NFCTOOL_WIFI_KEY); keys never go in arguments.", repeatable: true)
    static let wifiMAC = CommandOption.option("wifi-mac", valueName: "mac", help: "The access point's MAC address (default FF:FF:FF:FF:FF:FF, any).", repeatable: true)
    static let title = CommandOption.option("title", valueName: "text", help: "Add a title to the preceding --smart-poster (language from a following --lang).", repeatable: true)
    static let action = CommandOption.option("action", valueName: "action", help: "Recommended action of the preceding --smart-poster: do, save or edit.", repeatable: true)
    static let btName = CommandOption.option("bt-name", valueName: "name", help: "Local name of the preceding --bluetooth device.", repeatable: true)
    static let btClass = CommandOption.option("bt-class", valueName: "hex", help: "24-bit class of device of the preceding --bluetooth device, e.g. 0x240404.", repeatable: true)
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
        options: [url, text, mime, external, absoluteURI, aar, wifiSSID, smartPoster, bluetooth, jsonFile,
                  lang, utf16, data, dataHex, dataFile, id, wifiAuth, wifiEncryption, wifiKeyFile, wifiMAC,
                  title, action, btName, btClass, json, raw, output, chunkSize]
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
        let starters: Set<CommandOption> = [Self.url, Self.text, Self.mime, Self.external, Self.absoluteURI, Self.aar,
                                            Self.wifiSSID, Self.smartPoster, Self.bluetooth, Self.jsonFile]
        guard occurrences.contains(where: { starters.contains($0.option) }) else {
            throw .usage("no record given: add at least one of --url, --text, --mime, --external, --absolute-uri, --aar, --wifi-ssid, --smart-poster, --bluetooth, --json-file")
        }
    }

    func run(_ context: CommandContext) async throws(CommandError) {
        let message = NDEFMessage(records: try Self.buildRecords(from: occurrences, context))
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

    /// A record being built, with the modifiers it accepts.
    private enum Draft {
        case uri(String)
        case text(NDEFText)
        case data(kind: CommandOption, type: String, data: Bytes?)
        case aar(String)
        case wifi(ssid: String, auth: WiFiCredential.Authentication?, encryption: WiFiCredential.Encryption?, key: Bytes?, mac: [UInt8]?)
        case smartPoster(NDEFSmartPoster)
        case bluetooth(BluetoothOOB)
        case fromJSON([NDEFPayload])
    }

    /// The records the record options among `occurrences` describe, in command-line order (other
    /// options are skipped): shared with `nfctool write`.
    /// - Throws: ``CommandError`` (usage) for a bad value, a modifier without its record, an
    ///   unreadable file or a record that cannot be built.
    static func buildRecords(from occurrences: [ParsedArguments.Occurrence], _ context: CommandContext) throws(CommandError) -> [NDEFPayload] {
        var drafts: [(draft: Draft, id: String?, starter: CommandOption)] = []

        func requireDraft(_ o: ParsedArguments.Occurrence, _ allowed: String) throws(CommandError) -> Int {
            guard let last = drafts.indices.last else {
                throw .usage("\(o.option.synopsis) must follow \(allowed)")
            }
            return last
        }
        func mismatch(_ o: ParsedArguments.Occurrence, _ allowed: String, _ index: Int) -> CommandError {
            .usage("\(o.option.synopsis) must follow \(allowed), not \(drafts[index].starter.synopsis)")
        }

        for o in occurrences {
            let value = o.value ?? ""
            switch o.option {
            case Self.url:
                let utf8 = Array(value.utf8)
                guard let colon = utf8.firstIndex(of: UInt8(ascii: ":")), colon > 0,
                      utf8[..<colon].allSatisfy({ ($0 | 0x20) >= 0x61 && ($0 | 0x20) <= 0x7A || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2B || $0 == 0x2D || $0 == 0x2E }),
                      (utf8[0] | 0x20) >= 0x61 && (utf8[0] | 0x20) <= 0x7A
                else {
                    throw .invalidValue(value, for: o.option, reason: "a URI needs a scheme, e.g. https://\(value)")
                }
                if value.lowercased().hasPrefix("http://") || value.lowercased().hasPrefix("https://") {
                    let afterScheme = value.split(separator: "/", maxSplits: 3, omittingEmptySubsequences: false)
                    if afterScheme.count < 3 || afterScheme[2].isEmpty {
                        throw .invalidValue(value, for: o.option, reason: "an http(s) URL needs a host")
                    }
                }
                drafts.append((.uri(value), nil, o.option))
            case Self.text:
                drafts.append((.text(NDEFText(text: value, language: "en")), nil, o.option))
            case Self.mime, Self.external, Self.absoluteURI:
                drafts.append((.data(kind: o.option, type: value, data: nil), nil, o.option))
            case Self.aar:
                drafts.append((.aar(value), nil, o.option))
            case Self.wifiSSID:
                drafts.append((.wifi(ssid: value, auth: nil, encryption: nil, key: nil, mac: nil), nil, o.option))
            case Self.smartPoster:
                drafts.append((.smartPoster(NDEFSmartPoster(uri: value)), nil, o.option))
            case Self.bluetooth:
                guard let address = BluetoothOOB.parseAddress(value) else {
                    throw .invalidValue(value, for: o.option, reason: "expected 6 hex bytes like 00:1A:7D:DA:71:13")
                }
                drafts.append((.bluetooth(BluetoothOOB(address: address)), nil, o.option))
            case Self.jsonFile:
                let bytes = value == "-" ? try context.io.readStandardInput() : try readFileBytes(value, what: "JSON file")
                do {
                    let message = try JSONDecoder().decode(NDEFMessage.self, from: Data(bytes))
                    drafts.append((.fromJSON(message.records), nil, o.option))
                } catch {
                    throw .usage("JSON file '\(value)' is not an NDEF message: \(describeDecodingError(error))")
                }
            case Self.lang, Self.utf16:
                let allowed = "--text or --title"
                let i = try requireDraft(o, allowed)
                func apply(_ t: inout NDEFText) {
                    if o.option == Self.lang { t.language = value } else { t.encoding = .utf16 }
                }
                switch drafts[i].draft {
                case .text(var t):
                    apply(&t)
                    drafts[i].draft = .text(t)
                case .smartPoster(var p) where !p.titles.isEmpty:
                    apply(&p.titles[p.titles.count - 1])
                    drafts[i].draft = .smartPoster(p)
                default: throw mismatch(o, allowed, i)
                }
            case Self.data, Self.dataHex, Self.dataFile:
                let allowed = "--mime, --external or --absolute-uri"
                let i = try requireDraft(o, allowed)
                guard case .data(let kind, let type, let existing) = drafts[i].draft else { throw mismatch(o, allowed, i) }
                guard existing == nil else { throw .usage("\(drafts[i].starter.synopsis) '\(type)' already has its data") }
                let bytes: [UInt8]
                switch o.option {
                case Self.data: bytes = Array(value.utf8)
                case Self.dataHex:
                    do { bytes = try Hex.decode(value) } catch { throw .invalidValue(value, for: o.option, reason: error.description) }
                default: bytes = try readFileBytes(value, what: "data file")
                }
                drafts[i].draft = .data(kind: kind, type: type, data: Bytes(bytes))
            case Self.id:
                let i = try requireDraft(o, "a record option")
                drafts[i].id = value
            case Self.wifiAuth, Self.wifiEncryption, Self.wifiKeyFile, Self.wifiMAC:
                let i = try requireDraft(o, "--wifi-ssid")
                guard case .wifi(let ssid, var auth, var enc, var key, var mac) = drafts[i].draft else { throw mismatch(o, "--wifi-ssid", i) }
                switch o.option {
                case Self.wifiAuth:
                    guard let a = WiFiCredential.Authentication(name: value) else {
                        throw .invalidValue(value, for: o.option, reason: "use one of \(WiFiCredential.Authentication.names.map(\.0).joined(separator: ", "))")
                    }
                    auth = a
                case Self.wifiEncryption:
                    guard let e = WiFiCredential.Encryption(name: value) else {
                        throw .invalidValue(value, for: o.option, reason: "use one of \(WiFiCredential.Encryption.names.map(\.0).joined(separator: ", "))")
                    }
                    enc = e
                case Self.wifiKeyFile:
                    var bytes = try readFileBytes(value, what: "Wi-Fi key file")
                    while let last = bytes.last, last == 0x0A || last == 0x0D { bytes.removeLast() }
                    key = Bytes(bytes)
                default:
                    guard let m = try? Hex.decode(value), m.count == 6 else {
                        throw .invalidValue(value, for: o.option, reason: "expected 6 hex bytes like 00:11:22:33:44:55")
                    }
                    mac = m
                }
                drafts[i].draft = .wifi(ssid: ssid, auth: auth, encryption: enc, key: key, mac: mac)
            case Self.title, Self.action:
                let i = try requireDraft(o, "--smart-poster")
                guard case .smartPoster(var p) = drafts[i].draft else { throw mismatch(o, "--smart-poster", i) }
                if o.option == Self.title {
                    p.titles.append(NDEFText(text: value, language: "en"))
                } else {
                    guard let a = NDEFSmartPoster.Action(name: value) else {
                        throw .invalidValue(value, for: o.option, reason: "use do, save or edit")
                    }
                    p.action = a
                }
                drafts[i].draft = .smartPoster(p)
            case Self.btName, Self.btClass:
                let i = try requireDraft(o, "--bluetooth")
                guard case .bluetooth(var b) = drafts[i].draft else { throw mismatch(o, "--bluetooth", i) }
                if o.option == Self.btName {
                    b.localName = value
                } else {
                    let digits = value.hasPrefix("0x") || value.hasPrefix("0X") ? String(value.dropFirst(2)) : value
                    guard let c = UInt32(digits, radix: 16), c <= 0xFF_FFFF else {
                        throw .invalidValue(value, for: o.option, reason: "expected a 24-bit hex number like 0x240404")
                    }
                    b.deviceClass = c
                }
                drafts[i].draft = .bluetooth(b)
            default:
                continue  // output options
            }
        }

        var records: [NDEFPayload] = []
        for (index, entry) in drafts.enumerated() {
            let label = "record \(index + 1) (\(entry.starter.synopsis))"
            do throws(NDEFError) {
                var built: [NDEFPayload]
                switch entry.draft {
                case .uri(let uri): built = [try .wellKnownTypeURIPayload(url: uri)]
                case .text(let t): built = [try .textPayload(t)]
                case .data(let kind, let type, let data):
                    let d = data ?? Bytes()
                    switch kind {
                    case Self.mime: built = [try .mimeTypePayload(type: type, data: d)]
                    case Self.external: built = [try .externalTypePayload(type: type, data: d)]
                    default: built = [try .absoluteURIPayload(uri: type, data: d)]
                    }
                case .aar(let name): built = [try .androidApplicationRecord(packageName: name)]
                case .wifi(let ssid, let auth, let enc, let key, let mac):
                    let keyBytes = key ?? context.environment["NFCTOOL_WIFI_KEY"].map { Bytes(utf8: $0) } ?? Bytes()
                    // No silent downgrade: without --wifi-auth the network is wpa2-personal, which needs a key.
                    let authentication = auth ?? .wpa2Personal
                    let encryption = enc ?? (authentication == .open ? .none : .aes)
                    if authentication != .open && keyBytes.isEmpty {
                        throw NDEFError(.invalidValue, "\(authentication.name) needs a network key: --wifi-key-file FILE or NFCTOOL_WIFI_KEY (for an open network, say --wifi-auth open)")
                    }
                    built = [try .wifiCredentialPayload(WiFiCredential(
                        ssid: Bytes(utf8: ssid), authentication: authentication, encryption: encryption,
                        networkKey: keyBytes, macAddress: mac ?? [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]))]
                case .smartPoster(let p): built = [try .smartPosterPayload(p)]
                case .bluetooth(let b): built = [try .bluetoothOOBPayload(b)]
                case .fromJSON(let r): built = r
                }
                if let id = entry.id {
                    guard built.count == 1, built[0].typeNameFormat != .empty else {
                        throw NDEFError(.invalidValue, "--id applies to one non-empty record")
                    }
                    guard id.utf8.count <= 255 else { throw NDEFError(.fieldTooLong, "ID is \(id.utf8.count) bytes; at most 255") }
                    built[0].identifier = Bytes(utf8: id)
                }
                records.append(contentsOf: built)
            } catch {
                throw .usage("\(label): \(error.reason)")
            }
        }
        return records
    }
}

/// A one-line explanation of a JSON decoding failure, with the path to the bad value.
func describeDecodingError(_ error: any Error) -> String {
    func path(_ keys: [any CodingKey]) -> String {
        keys.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
    }
    switch error as? DecodingError {
    case .dataCorrupted(let c):
        if let underlying = c.underlyingError as NSError?, c.codingPath.isEmpty {
            return "not valid JSON (\(underlying.userInfo[NSDebugDescriptionErrorKey] as? String ?? underlying.localizedDescription))"
        }
        return "\(path(c.codingPath)): \(c.debugDescription)"
    case .keyNotFound(let key, let c): return "\(path(c.codingPath)): missing \"\(key.stringValue)\""
    case .typeMismatch(_, let c), .valueNotFound(_, let c): return "\(path(c.codingPath)): \(c.debugDescription)"
    default: return String(describing: error)
    }
}
