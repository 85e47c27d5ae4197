import CommandLineKit
import NFCCore
import NFCTags

/// `nfctool sun`: NTAG 424 DNA Secure Dynamic Messaging (SUN) on the server side.
struct SunCommand: CommandGroup {
    static let configuration = CommandConfiguration(
        name: "sun",
        abstract: "Check NTAG 424 DNA SUN URLs (Secure Dynamic Messaging) as a server does.",
        discussion: "See docs/genuine-and-dynamic.md.",
        subcommands: [SunVerifyCommand.self]
    )
}

/// `nfctool sun verify URL --keys FILE`: decrypts the PICC data, checks the SDMMAC.
struct SunVerifyCommand: ToolCommand {
    /// The environment variable that may hold the keys, in the keys file's form.
    static let keysVariable = "NFCTOOL_SUN_KEYS"

    static let url = CommandArgument("url", help: "The URL a tap produced (quote it: it holds '&').")
    static let keys = CommandOption.option(
        "keys", valueName: "file",
        help: "The keys file: 'sdmMetaRead = HEX' and 'sdmFileRead = HEX' (or 'sdmFileReadMaster = HEX') lines (else $\(keysVariable) in the same form).")
    static let piccParameter = CommandOption.option("picc-param", valueName: "name", help: "The parameter holding the encrypted PICC data (default: e).")
    static let macParameter = CommandOption.option("mac-param", valueName: "name", help: "The parameter holding the SDMMAC (default: c).")
    static let uidParameter = CommandOption.option("uid-param", valueName: "name", help: "The parameter holding a plain UID (default: uid).")
    static let counterParameter = CommandOption.option("counter-param", valueName: "name", help: "The parameter holding a plain counter (default: ctr).")
    static let encParameter = CommandOption.option("enc-param", valueName: "name", help: "The parameter holding SDMENCFileData (default: enc).")

    static let configuration = CommandConfiguration(
        name: "verify",
        abstract: "Decrypt a SUN URL's PICC data, check its SDMMAC, print UID and counter.",
        discussion: """
            Exits 0 when the SDMMAC matches, 8 when it does not (or the URL is not a SUN URL \
            these keys made). Keys come from --keys FILE or, without it, from $\(keysVariable) \
            ('sdmMetaRead=HEX;sdmFileRead=HEX'); never from the command line, and they are never \
            printed. A master-keys file (sdmFileReadMaster, as 'batch --ntag424-keys' takes) \
            checks the MAC with the SDMFileRead key diversified (AN10922) for the UID the PICC \
            data holds. sdmMetaRead decrypts the PICC data (not needed for a plain UID and \
            counter); sdmFileRead checks the MAC. The MAC covers nothing (its session key binds \
            UID and counter) unless the URL carries SDMENCFileData: then it covers the URL from \
            that value up to the MAC's, as 'ntag424 setup' lays it out.

            Examples:
              nfctool sun verify --keys sun.keys "$URL"
              NFCTOOL_SUN_KEYS="$(cat sun.keys)" nfctool sun verify --json "$URL"
              nfctool sun verify --keys k --picc-param picc_data --mac-param cmac "$URL"
            """,
        options: [keys, piccParameter, macParameter, uidParameter, counterParameter, encParameter, TagCommandSupport.json],
        arguments: [url]
    )

    let arguments: ParsedArguments
    let names: SUNParameterNames

    init(_ arguments: ParsedArguments) throws(CommandError) {
        var names = SUNParameterNames()
        for (option, path) in [(Self.piccParameter, \SUNParameterNames.picc), (Self.macParameter, \.mac), (Self.uidParameter, \.uid),
                               (Self.counterParameter, \.counter), (Self.encParameter, \.encryptedFileData)] {
            guard let value = arguments.value(of: option) else { continue }
            guard !value.isEmpty, !value.contains(where: { "&=?#".contains($0) }) else {
                throw .invalidValue(value, for: option, reason: "a query parameter name, without '&', '=', '?' or '#'")
            }
            names[keyPath: path] = value
        }
        self.names = names
        self.arguments = arguments
    }

    func run(_ context: CommandContext) async throws(CommandError) {
        let keys = try loadKeys(context)
        let url = arguments.value(of: Self.url) ?? ""
        let json = arguments.contains(TagCommandSupport.json)
        let tap: SUNTap
        do {
            switch keys {
            case .shared(let keys): tap = try SUNVerifier.verify(url: url, names: names, keys: keys)
            case .diversified(let keys): tap = try keys.verify(url: url, names: names)
            }
        } catch {
            if json { context.io.write(try toolJSON(Output(error))) }
            throw .ntag424(error, message: "not a valid tap: \(TerminalSafeText.escaping(error.description, newlines: .escape))", exitCode: .verifyMismatch)
        }
        let output = Output(tap)
        if json {
            context.io.write(try toolJSON(output))
            return
        }
        context.io.printLine("valid:     yes (the SDMMAC matches)")
        context.io.printLine("uid:       \(output.uid ?? "not mirrored")")
        context.io.printLine("counter:   \(output.counter.map(String.init) ?? "not mirrored")")
        context.io.printLine("picc data: \(tap.encryptedPICCData ? "encrypted" : "plain")")
        if let data = tap.fileData, let fileData = output.fileData {
            // The decrypted file data is the tag's: text only when it is UTF-8, the hex always.
            if let text = String(validating: data, as: UTF8.self) {
                context.io.printLine("file data: \(TerminalSafeText.escaping(text, newlines: .escape)) (\(fileData))")
            } else {
                context.io.printLine("file data: not UTF-8 text (\(fileData))")
            }
        }
    }

    /// The keys a URL is checked with: the same for every tag, or diversified per tag from
    /// master keys (`sdmFileReadMaster`, as `batch --ntag424-keys` uses them).
    enum Keys {
        case shared(SDMKeys)
        case diversified(NTAG424DiversifiedKeys)
    }

    /// The SDM keys from --keys, else from the environment.
    func loadKeys(_ context: CommandContext) throws(CommandError) -> Keys {
        let file = try KeysFileSupport.load(path: arguments.value(of: Self.keys), variable: Self.keysVariable, command: "sun verify", context: context)
        do {
            if NTAG424DiversifiedKeys.isDiversifying(file) { return .diversified(try NTAG424DiversifiedKeys(file)) }
            return .shared(try file.sdmKeys())
        } catch { throw .ntag424(error, message: error.reason, exitCode: .dataError) }
    }

    /// What `--json` prints.
    struct Output: Encodable {
        var valid: Bool
        var uid: String?
        var counter: UInt32?
        var encryptedPICCData: Bool?
        var fileData: String?
        var error: String?
        var offset: Int?
        var reason: String?

        init(_ tap: SUNTap) {
            valid = true
            uid = tap.uid.map { Hex.encode($0, uppercase: true) }
            counter = tap.readCounter
            encryptedPICCData = tap.encryptedPICCData
            fileData = tap.fileData.map { Hex.encode($0, uppercase: true) }
        }

        init(_ error: NTAG424Error) {
            valid = false
            self.error = error.code.rawValue
            offset = error.offset
            reason = error.reason
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(valid, forKey: .valid)
            if valid {
                try container.encode(uid, forKey: .uid)
                try container.encode(counter, forKey: .counter)
                try container.encode(encryptedPICCData, forKey: .encryptedPICCData)
                try container.encode(fileData, forKey: .fileData)
            } else {
                try container.encode(error, forKey: .error)
                try container.encode(offset, forKey: .offset)
                try container.encode(reason, forKey: .reason)
            }
        }

        enum CodingKeys: String, CodingKey { case valid, uid, counter, encryptedPICCData, fileData, error, offset, reason }
    }
}
