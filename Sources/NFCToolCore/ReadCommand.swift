import CommandLineKit
import Foundation
import NDEF
import NFCCore
import NFCTags

/// `nfctool read`: prints the NDEF message a tag holds.
struct ReadCommand: TagCommand {
    static let raw = CommandOption.flag("raw", help: "Print the message as hex (its encoded bytes) instead of decoding it.")

    static let configuration = CommandConfiguration(
        name: "read",
        abstract: "Read the NDEF message of a tag and show its records.",
        discussion: """
            Each record is decoded as 'nfctool ndef decode' shows it; --json prints the message \
            in the JSON form of docs/ndef.md with the tag's uid and model. An NDEF tag holding \
            no message says so and exits 0; a tag without NDEF exits 4. A read-protected \
            NTAG21x needs its password (--password-file or NFCTOOL_PASSWORD), a read-protected \
            MIFARE Ultralight C or AES its 3DES or AES key (--keys FILE). A Type 5 tag whose \
            message lies in blocks read-protected by a password (ICODE SLIX2, SLIX-S, NTAG 5, \
            ST25DV, ST25TV02K) exits 9: read takes no Type 5 password, 'nfctool unprotect' \
            removes the protection; a message below the protected blocks is read.

            Examples:
              nfctool read --device sim:ntag215
              nfctool read --device pn532_uart:/dev/ttyUSB0 --json
              nfctool read --raw | nfctool ndef decode
            """,
        options: TagCommandSupport.readerOptions + [TagCommandSupport.timeout, TagCommandSupport.json, raw, TagWriteSupport.passwordFile,
                  TagWriteSupport.ultralightCKeyFile],
        exclusions: [CommandExclusion(TagCommandSupport.json, raw)]
    )

    let options: TagCommandOptions

    func run(_ context: CommandContext) async throws(CommandError) {
        let password = try options.password(context)
        let ultralightCKey = try options.ultralightCKey()
        let (output, _) = try await TagOperation(options, context).run(password: password, ultralightCKey: ultralightCKey) { tag, reader in
            let reading: NDEFReading
            do {
                // One reading: a Type 4 tag's NDEF file is selected once (an NTAG 424 DNA counts
                // one read, as a phone's tap does).
                reading = try await tag.ndef.readNDEFWithStatus()
            } catch let error as NFCTagError where error.code == .tagResponse && password == nil {
                guard case .miFare(let mifare) = tag, mifare.type1 == nil else { throw error }
                throw CommandError.tag(
                    error, message: error.description + " (a read-protected NTAG needs its password: \(TagCommandSupport.passwordHint))")
            }
            guard let message = reading.message, reading.query.status != .notSupported else {
                if let reason = reading.notSupportedReason {
                    throw CommandError.tag(reason, message: "the \(tag.identity.model) holds no NDEF it lets be read: \(reason.description)")
                }
                throw CommandError("the \(tag.identity.model) holds no NDEF (not formatted for NDEF)", exitCode: .notNDEF)
            }
            return try render(message, query: reading.query, tag: tag, reader: await ReaderLabel(reader))
        }
        context.io.write(output)
    }

    /// What is printed for `message`.
    private func render(_ message: NDEFMessage, query: NDEFQuery, tag: NFCTag, reader: ReaderLabel) throws(CommandError) -> String {
        let isEmpty = query.messageLength == 0 || message.records.allSatisfy { $0.typeNameFormat == .empty }
        let encoded: [UInt8]
        do {
            encoded = try message.encoded()
        } catch {
            throw .dataError("the message read cannot be encoded again: \(error)")
        }
        if options.printsJSON {
            let fields = ReadFields(
                uid: Hex.encode(tag.identifier, uppercase: true), model: tag.identity.model,
                status: query.status.rawValue, capacity: query.capacity, messageLength: query.messageLength)
            return try taggedJSON(reader, MergedJSON(first: message, second: fields))
        }
        if options.arguments.contains(Self.raw) {
            // The empty message is D0 00 00, as verify --expect-ndef and ndef decode call it; never an empty line.
            return Hex.encode(encoded) + "\n"
        }
        let access = query.status == .readOnly ? "read-only" : "read-write"
        var text = "\(tag.identity.model) \(TagWriteSupport.spacedHex(tag.identifier)), NDEF \(access), "
        text = (text + "\(query.messageLength) of \(query.capacity) bytes used").wrapped(to: HelpFormatter.screenWidth) + "\n"
        if isEmpty {
            return text + "The tag holds an empty NDEF message (no records).\n"
        }
        return text + NDEFDisplay.describe(message, byteCount: encoded.count)
    }

    /// `read --json`: the message's JSON form (docs/ndef.md) with the tag's fields beside it.
    private struct ReadFields: Encodable, Sendable {
        var uid: String
        var model: String
        var status: String
        var capacity: Int
        var messageLength: Int
    }
}
