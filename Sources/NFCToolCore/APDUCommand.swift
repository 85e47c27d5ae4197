import CommandLineKit
import Foundation
import NFCCore
import NFCTags

/// `nfctool apdu`: sends ISO 7816 APDUs to an ISO-DEP tag and prints each answer.
struct APDUCommand: ToolCommand {
    static let apdus = CommandArgument(
        "apdu", help: "A command APDU in hex (spaces allowed within one argument), e.g. 00A4040007D2760000850101.",
        isRepeatable: true)
    static let allowPayment = CommandOption.flag(
        "allow-payment", help: "Allow SELECT of payment applications (PPSE, card schemes); refused otherwise.")

    static let configuration = CommandConfiguration(
        name: "apdu",
        abstract: "Send ISO 7816 APDUs to an ISO-DEP tag; print each answer.",
        discussion: """
            Sends the APDUs in order (each one after the previous answer) to an ISO-DEP tag: a \
            Type 4 tag, a smart card, or a MIFARE DESFire. Prints the response data and SW1SW2 \
            of each. A SELECT of a payment application is refused (exit 10) unless \
            --allow-payment is given; so is a tag that does not speak ISO-DEP.

            Examples:
              nfctool apdu --device sim:type4 00A4040007D2760000850101 00A4000C02E103
              nfctool apdu --json 00A4040007D2760000850101
            """,
        options: TagCommandSupport.readerOptions + [TagCommandSupport.timeout, allowPayment, TagCommandSupport.json],
        arguments: [apdus]
    )

    let options: TagCommandOptions
    let commands: [ISO7816APDU]

    init(_ arguments: ParsedArguments) throws(CommandError) {
        options = try TagCommandOptions(arguments)
        var commands: [ISO7816APDU] = []
        for text in arguments.values(of: Self.apdus) {
            let bytes: [UInt8]
            do {
                bytes = try Hex.decode(text)
            } catch {
                throw .invalidValue(text, for: Self.apdus, reason: error.description)
            }
            do {
                commands.append(try ISO7816APDU(bytes: Bytes(bytes)))
            } catch {
                throw .invalidValue(text, for: Self.apdus, reason: error.reason)
            }
        }
        guard !commands.isEmpty else { throw .usage("Missing expected argument '<apdu> ...'") }
        self.commands = commands
    }

    /// One exchange as `--json` shows it.
    struct Exchange: Encodable, Sendable {
        var command: String
        var data: String
        var sw: String
    }

    func run(_ context: CommandContext) async throws(CommandError) {
        let (commands, allowsPayment) = (self.commands, options.arguments.contains(Self.allowPayment))
        try await TagOperation(options, context).report(tagsReader: false) { tag, _ in
            var exchanges: [Exchange] = []
            for apdu in commands {
                let answer: (Bytes, UInt8, UInt8)
                do {
                    switch tag {
                    case .iso7816(var iso):
                        iso.allowsPaymentApplications = allowsPayment
                        answer = try await iso.sendCommand(apdu: apdu)
                    case .miFare(let mifare):
                        answer = try await mifare.sendMiFareISO7816Command(apdu, allowsPaymentApplications: allowsPayment)
                    default:
                        throw NFCTagError(.notSupported, "\(tag.identity.model) does not speak ISO-DEP: no APDUs")
                    }
                } catch let error as NFCTagError where error.code == .refused {
                    throw CommandError("\(error.reason.split(separator: ":").first ?? "refused"): pass --allow-payment to talk to payment cards", exitCode: .unsupported)
                }
                exchanges.append(Exchange(
                    command: Hex.encode(apdu.encoded(), uppercase: true), data: Hex.encode(answer.0, uppercase: true),
                    sw: Hex.encode([answer.1, answer.2], uppercase: true)))
            }
            return exchanges
        } text: { exchanges in
            exchanges.map { exchange in
                "> \(spacedHex(exchange.command))\n" + (exchange.data.isEmpty ? "" : "< \(spacedHex(exchange.data))\n")
                    + "< SW \(exchange.sw)\n"
            }.joined()
        }
    }
}
