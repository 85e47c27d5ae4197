import CommandLineKit
import NFCCore
import NFCTags

/// `nfctool format`: initialises a blank tag for NDEF.
struct FormatCommand: TagCommand {
    static let force = CommandOption.flag(
        "force", help: "Empty a tag that already holds an NDEF message instead of refusing; on a DESFire holding other applications, add the NDEF application beside them.")
    static let ndefSize = TypedOption(
        .option("ndef-size", valueName: "bytes", help: "MIFARE DESFire (EV1, EV2, EV3) only: the NDEF file's size, 32 to 32767 bytes (default: as much as free memory allows). Any other tag is refused with nothing written (exit 64)."),
        .integer(in: DESFire.TypeFourMapping.minimumNDEFFileSize...DESFire.TypeFourMapping.maximumNDEFFileSize))
    static let keys = CommandOption.option(
        "keys", valueName: "file",
        help: "MIFARE DESFire: the keys, read from this file: the PICC master key, and 'application' then the NDEF application's key 0; each optionally typed des, 2k3des, 3k3des or aes, then its hex digits (default: the factory DES keys); a MIFARE DESFire Light takes 'application aes' only. Any other tag is refused with nothing written (exit 64). See docs/tags.md.")

    static let configuration = CommandConfiguration(
        name: "format",
        abstract: "Format a blank tag for NDEF, holding an empty message.",
        discussion: """
            Writes the platform's NDEF structures (Type 2 capability container and TLV area, \
            Type 3 attribute block, Type 5 CC, the MIFARE Classic MAD and NFC sectors). A tag \
            that already holds data is left alone (exit 11) unless --force is given; then its \
            message is emptied. A Type 2 capability container is one-time programmable: one \
            that no write can turn into the NDEF CC the tag needs (CC3 F0 refuses reading for \
            good) exits 10, nothing written; otherwise format asks first, as lock does, and \
            without a terminal it needs --yes (else exit 64). An NTAG213/215/216 mirror is \
            turned off. --plan lists the writes, marking the one-time programmable ones, and \
            sends none.

            A blank MIFARE DESFire gets the NFC Forum Type 4 application as NXP AN11004 \
            describes (DF name D2760000850101, CC file E103, NDEF file E104 of --ndef-size \
            bytes or as large as free memory allows), authenticating with the PICC master key: \
            the factory key, or the one --keys FILE holds (never on the command line): DES, \
            2K3DES, 3K3DES or AES, e.g. a line 'picc aes' and 32 hex digits. An \
            'application' key in the file gives the NDEF application that key type and key \
            (set by ChangeKey right after creating it; otherwise the factory DES key). A \
            DESFire holding other applications is refused (exit 11) unless --force, which adds \
            the NDEF application beside them and deletes none. A format cut short is completed \
            by running it again.

            Examples:
              nfctool format --device sim:ultralight
              nfctool format --force --yes
              nfctool format --plan --json
              nfctool format --device sim:desfire-ev1 --ndef-size 1024 --yes
            """,
        options: TagCommandSupport.readerOptions + [TagCommandSupport.timeout, TagCommandSupport.json, force, ndefSize.option, keys, TagWriteSupport.yes,
                  TagWriteSupport.passwordFile, TagWriteSupport.plan]
    )

    let options: TagCommandOptions

    func run(_ context: CommandContext) async throws(CommandError) {
        let confirmed = try TagWriteSupport.confirmation("format writes the tag's NDEF structures (on a Type 2 tag a one-time programmable capability container, which cannot be undone)", options, context)
        let password = try options.password(context)
        let forced = options.arguments.contains(Self.force)
        let desfire = try Self.desfireOptions(options.arguments)
        try await TagWriteOperation.run(
            "format", options, password: password, context,
            body: { tag, _, planning in
                var desfire = desfire
                desfire.planning = planning
                if desfire.ndefFileSize != nil && tag.identity.family != .desfire {
                    throw CommandError.usage(
                        "--ndef-size applies to a MIFARE DESFire (EV1, EV2, EV3) only, whose NDEF file format creates; this is a \(tag.identity.model): nothing was written")
                }
                if options.arguments.value(of: Self.keys) != nil && ![.desfire, .desfireLight].contains(tag.identity.family) {
                    throw CommandError.usage(
                        "--keys applies to a MIFARE DESFire or DESFire Light only, whose keys format authenticates with; this is a \(tag.identity.model): nothing was written")
                }
                let tag = Self.tag(tag, desfire: desfire)
                if !planning {
                    try context.confirm(Self.warning(tag), confirmed: confirmed)
                }
                do {
                    try await tag.ndef.format(force: forced)
                } catch let error as NFCTagError where error.code == .alreadyFormatted {
                    // On a DESFire holding other applications --force adds the NDEF
                    // application beside them (the reason says so); elsewhere it empties the
                    // stored message.
                    let hint = error.reason.hasSuffix(DESFireTag.forceAddsBesideOthers) ? "" : " (add --force to empty it)"
                    throw CommandError("\(error.reason); nothing was written\(hint)", exitCode: .holdsData)
                }
                return try await tag.ndef.queryNDEFStatus()
            },
            report: { tag, query in TagCapacityReport(tag, capacity: query.capacity) },
            sentence: { tag, query in
                "Formatted \(tag.identity.model) \(TagWriteSupport.spacedHex(tag.identifier)) for NDEF: an empty message, \(query.capacity) bytes free."
            })
    }

    /// The DESFire PICC master key of `--keys` and the NDEF size of `--ndef-size`.
    /// - Throws: a usage error (64) for an unreadable key file or one that is not a key, never
    ///   showing its digits.
    static func desfireOptions(_ arguments: ParsedArguments) throws(CommandError) -> DESFireFormatOptions {
        var options = try desfireKeys(arguments)
        options.ndefFileSize = try arguments.value(of: ndefSize)
        return options
    }

    /// The DESFire keys of `--keys` (format and lock): the PICC master key and the NDEF
    /// application's key, each the factory DES key unless the file names it.
    /// - Throws: a usage error (64) for an unreadable key file or one that holds no key, never
    ///   showing its digits.
    static func desfireKeys(_ arguments: ParsedArguments) throws(CommandError) -> DESFireFormatOptions {
        var options = DESFireFormatOptions()
        if let path = arguments.value(of: keys) {
            let text = try TagWriteSupport.keyFileText(path, what: "key file")
            do {
                let file = try DESFireFormatOptions.keys(fromText: text)
                if let picc = file.picc { options.piccKey = picc }
                if let application = file.application { options.applicationKey = application }
            } catch {
                throw .usage("--keys '\(path)': \(error.reason)")
            }
        }
        return options
    }

    /// `tag` with the DESFire format options set (other tags as they are).
    static func tag(_ tag: NFCTag, desfire: DESFireFormatOptions) -> NFCTag {
        if case .iso7816(var iso) = tag, iso.identity.family == .desfireLight {
            iso.desfireLightApplicationKey = desfire.applicationKey.type == .aes ? desfire.applicationKey.bytes : nil
            iso.desfireLightPlanning = desfire.planning
            return .iso7816(iso)
        }
        guard case .miFare(var miFare) = tag, miFare.mifareFamily == .desfire else { return tag }
        miFare.desfireFormat = desfire
        return .miFare(miFare)
    }

    /// What is said before formatting: the tag, and that the capability container is for good.
    static func warning(_ tag: NFCTag) -> String {
        if tag.identity.family == .desfireLight {
            return "formatting the \(tag.identity.model) with UID \(TagWriteSupport.spacedHex(tag.identifier)) writes an empty NDEF file and the capability container into its files 04 and 00."
        }
        if tag.identity.family == .desfire {
            return "formatting the \(tag.identity.model) with UID \(TagWriteSupport.spacedHex(tag.identifier)) creates the NFC Forum Type 4 application and its files with the PICC master key (NXP AN11004)."
        }
        return "formatting the \(tag.identity.model) with UID \(TagWriteSupport.spacedHex(tag.identifier)) writes its capability container, which is one-time programmable: this cannot be undone."
    }
}
