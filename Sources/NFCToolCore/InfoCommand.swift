import CommandLineKit
import Foundation
import NFCCore
import NFCTags

/// `nfctool info`: everything the tag tells about itself: identifiers, chip, NDEF state, locks,
/// password protection and originality signature. What cannot be read is reported as unknown.
struct InfoCommand: TagCommand {
    static let configuration = CommandConfiguration(
        name: "info",
        abstract: "Show a tag's identifiers, chip, NDEF state, locks and protection.",
        discussion: """
            Reports the technology and UID (ATQA/SAK/ATS, FeliCa IDm/PMm/system code, or ISO \
            15693 DSFID/AFI), the chip model and memory size, the NDEF status, capacity and \
            message length, the lock state (Type 2: CC3, static and dynamic lock bytes, CFGLCK; \
            Type 3: RWFlag and MC; Type 5: CC access and block security; Classic: GPB of the \
            NFC sectors; Type 4: CC write access), the password protection (Type 2: AUTH0 and \
            PROT) and the originality signature (READ_SIG; ICODE READ SIGNATURE) with whether \
            it is genuine: valid under one of NXP's published keys ('genuine: yes (NXP NTAG21x \
            key)'), not valid ('no'), or 'no signature on this chip' (JSON genuine true, false \
            or null, and signatureKey). On an NTAG 424 DNA, each file's settings and its SDM \
            configuration (JSON ntag424, null on other chips). On a MIFARE DESFire, hardware \
            and software version, storage, free memory, the PICC key settings and the \
            applications with their key settings (JSON desfire, null on other chips). On a \
            MIFARE Ultralight AES, its three one-way counters (READ_CNT; JSON counters, null on \
            other chips). Whatever the tag refuses to tell \
            is shown as unknown.

            Examples:
              nfctool info --device sim:ntag215
              nfctool info --device pn532_uart:/dev/ttyUSB0 --json
            """,
        options: TagCommandSupport.readerOptions + [TagCommandSupport.timeout, TagCommandSupport.json]
    )

    let options: TagCommandOptions

    func run(_ context: CommandContext) async throws(CommandError) {
        let connection = options.connection(context.environment)
        try await TagOperation(options, context).report(tagsReader: false) { tag, reader in
            await TagInfoReport.inspect(tag, reader: reader, connection: await TagCommandSupport.shownConnection(connection, reader))
        } text: { $0.text }
    }
}
