import CommandLineKit
import NFCCore
import NFCTags

/// `nfctool lock`: makes a tag permanently read-only.
struct LockCommand: TagCommand {
    static let configuration = CommandConfiguration(
        name: "lock",
        abstract: "Make a tag read-only for good (cannot be undone).",
        discussion: """
            Uses the platform's own mechanism: Type 1 CC write access and lock bits (LOCK0, \
            LOCK1 and a Lock Control TLV's); Type 2 lock bits, CC write access and CFGLCK; \
            MIFARE Classic access conditions; Type 3 and Type 5 lock mechanisms. Names the tag \
            and asks first; without a terminal it needs --yes (else exit 64). Afterwards the tag \
            is selected again and must report read-only (else exit 8). A Type 4 tag has no \
            permanent lock: exit 10. A MIFARE DESFire formatted as NXP AN11004 describes is \
            the exception: its NDEF file's access rights become EFFF (write, read-write and \
            change never) by ChangeFileSettings under the application's key 0 (the factory \
            key format gives it, or the 'application' key --keys FILE holds: DES, 2K3DES, \
            3K3DES or AES), then the CC's write access byte FF; a refused key exits 9, nothing \
            written. A Type 2 tag whose block-locking bits freeze a lock bit \
            the lock needs cannot be locked for good: exit 10 before anything is written. \
            A MIFARE Ultralight AES gets CC write access 0F, its static lock bytes and CFGLCK; \
            its dynamic lock bytes (pages 10h-27h) have no public layout, so a message reaching \
            past page 0Fh (over 44 bytes) is refused, exit 10, nothing written; a protected one \
            needs its key (--keys FILE). --plan lists the writes and sends none.

            Examples:
              nfctool lock --device sim:ntag215
              nfctool lock --device pn532_uart:/dev/ttyUSB0 --yes
              nfctool lock --plan
              nfctool lock --device sim:desfire-ev1 --yes
            """,
        options: TagCommandSupport.readerOptions + [TagCommandSupport.timeout, TagCommandSupport.json, TagWriteSupport.yes,
                  TagWriteSupport.passwordFile, keys, TagWriteSupport.plan]
    )

    let options: TagCommandOptions

    func run(_ context: CommandContext) async throws(CommandError) {
        let confirmed = try TagWriteSupport.confirmation("lock makes the tag read-only for good and cannot be undone", options, context)
        let password = try options.password(context)
        let (key, desfireKeys) = try Self.keys(options.arguments)
        try await TagWriteOperation.run(
            "lock", options, password: password, ultralightCKey: key, context,
            body: { tag, reader, planning in
                var tag = tag
                if tag.identity.family == .desfire || tag.identity.family == .desfireLight {
                    var desfire = try desfireKeys.get()
                    if tag.identity.family == .desfireLight, desfire.applicationKey.type != .aes, desfire.applicationKey != DESFireFormatOptions().applicationKey {
                        throw CommandError.usage("--keys: a MIFARE DESFire Light's keys are AES: give 'application aes' and 32 hex digits")
                    }
                    desfire.planning = planning
                    tag = FormatCommand.tag(tag, desfire: desfire)
                }
                if !planning {
                    try context.confirm(Self.warning(tag), confirmed: confirmed)
                }
                try await Self.lock(tag, planning: planning)
                if !planning { try await Self.requireReadOnly(after: tag, on: reader, password: password, key: key) }
            },
            report: { tag, _ in LockReport(uid: TagWriteOperation.uid(tag), model: tag.identity.model, readOnly: true) },
            sentence: { tag, _ in "Locked \(tag.identity.model) \(TagWriteSupport.spacedHex(tag.identifier)): it now reports read-only." })
    }

    /// `--keys FILE`: one file for the chips that need a key to lock. An Ultralight C or AES
    /// takes 32 hex digits, a DESFire the keys file `format --keys` reads.
    static let keys = CommandOption.option(
        "keys", valueName: "file",
        help: "MIFARE Ultralight C or AES: the key, 32 hex digits; MIFARE DESFire: the keys file as format --keys reads it (see docs/tags.md). Read from this file, never from the command line.")

    /// The `--keys` file read as both kinds of key file: the Ultralight key when it is one, and
    /// the DESFire keys or why they are not (thrown only when the tag is a DESFire, before
    /// anything is written). No file: no Ultralight key and the DESFire factory keys.
    /// - Throws: ``CommandError`` `usage` when the file cannot be read or is neither kind.
    static func keys(_ arguments: ParsedArguments) throws(CommandError) -> (UltralightCKey?, Result<DESFireFormatOptions, CommandError>) {
        guard let path = arguments.value(of: keys) else { return (nil, .success(DESFireFormatOptions())) }
        let text = try TagWriteSupport.keyFileText(path, what: "key file")
        let ultralight = try? UltralightCKey(hex: text)
        var desfire = DESFireFormatOptions()
        do {
            let file = try DESFireFormatOptions.keys(fromText: text)
            if let picc = file.picc { desfire.piccKey = picc }
            if let application = file.application { desfire.applicationKey = application }
            return (ultralight, .success(desfire))
        } catch {
            let failure = CommandError.usage("--keys '\(path)': \(error.reason)")
            if ultralight == nil { throw failure }
            return (ultralight, .failure(failure))
        }
    }

    /// What is said before locking: the tag, and that it is for good.
    static func warning(_ tag: NFCTag) -> String {
        "the \(tag.identity.model) with UID \(TagWriteSupport.spacedHex(tag.identifier)) becomes read-only for good: this cannot be undone."
    }

    /// `writeLock()` of the tag's platform. When planning, a failed read-back of lock bits that
    /// were never sent is expected and passed over.
    /// - Throws: the tag error (`notSupported` for a Type 4 tag, with the platform's reason).
    static func lock(_ tag: NFCTag, planning: Bool) async throws {
        try await TagWriteSupport.write(planning: planning) { try await tag.ndef.writeLock() }
    }

    /// Selects the tag again (lock bits take effect at the next activation), connects it afresh
    /// and checks (with `password` for a read-protected NTAG, `key` for a read-protected
    /// Ultralight C or AES) that it reports read-only.
    /// - Throws: ``ExitCode/verifyMismatch`` when it still reports writable or no longer
    ///   answers as an NDEF tag; ``ExitCode/tagLost`` when it is gone (also while its state is
    ///   read: the lock may have been done).
    static func requireReadOnly(
        after tag: NFCTag, on reader: any NFCReader, password: NTAGPassword?, key: UltralightCKey? = nil
    ) async throws(CommandError) {
        let target: TargetInfo?
        do {
            target = try await reader.poll(for: ScanCommand.modulations(await reader.supportedModulations), timeout: .seconds(2))
        } catch {
            throw CommandError("the tag could not be selected again after locking: \(error)", exitCode: .tagLost)
        }
        guard let target, target.identifier == tag.identifier else {
            throw CommandError("the tag left the field before it could be checked: run lock again to complete and check it", exitCode: .tagLost)
        }
        let status: NDEFStatus
        do {
            let fresh = TagWriteSupport.tag(try await NFCTag.connect(to: target, on: reader), password: password, ultralightCKey: key)
            _ = try? await reader.poll(for: [target.modulation], timeout: .milliseconds(500))
            status = try await fresh.ndef.queryNDEFStatus().status
        } catch where error.code == .connectionLost {
            // Lost, as the same loss one command earlier: the lock may well have been done.
            throw CommandError(
                "the tag left the field while it was checked after locking (\(error)): the lock may have been done; run lock again (or nfctool info) to check it",
                exitCode: .tagLost, code: error.code.rawValue)
        } catch {
            throw CommandError("after locking, the tag's NDEF state cannot be read: \(error)", exitCode: .verifyMismatch)
        }
        guard status == .readOnly else {
            throw CommandError("after locking, the tag still reports \(status.rawValue), not read-only", exitCode: .verifyMismatch)
        }
    }

    /// `lock --json`.
    private struct LockReport: Encodable, Sendable {
        var uid: String
        var model: String
        var readOnly: Bool
    }
}
