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
        options: [TagCommandSupport.device, TagCommandSupport.timeout, allowPayment, TagCommandSupport.json],
        arguments: [apdus]
    )

    let connection: String?
    let seconds: Double
    let commands: [ISO7816APDU]
    let allowsPayment: Bool
    let printsJSON: Bool

    init(_ arguments: ParsedArguments) throws(CommandError) {
        connection = arguments.value(of: TagCommandSupport.device)
        seconds = try TagCommandSupport.timeoutSeconds(arguments)
        allowsPayment = arguments.contains(Self.allowPayment)
        printsJSON = arguments.contains(TagCommandSupport.json)
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
        let connection = TagCommandSupport.connection(connection, context.environment)
        let (commands, allowsPayment) = (self.commands, self.allowsPayment)
        let exchanges = try await TagCommandSupport.withTag(connection: connection, seconds: seconds) {
            (tag, _) async throws(CommandError) -> [Exchange] in
            var exchanges: [Exchange] = []
            for apdu in commands {
                let answer: (Bytes, UInt8, UInt8)
                do throws(NFCTagError) {
                    switch tag {
                    case .iso7816(var iso):
                        iso.allowsPaymentApplications = allowsPayment
                        answer = try await iso.sendCommand(apdu: apdu)
                    case .miFare(let mifare):
                        answer = try await mifare.sendMiFareISO7816Command(apdu, allowsPaymentApplications: allowsPayment)
                    default:
                        throw NFCTagError(.notSupported, "\(tag.identity.model) does not speak ISO-DEP: no APDUs")
                    }
                } catch where error.code == .refused {
                    throw CommandError("\(error.reason.split(separator: ":").first ?? "refused"): pass --allow-payment to talk to payment cards", exitCode: .unsupported)
                } catch {
                    throw TagCommandSupport.map(error)
                }
                let exchange = Exchange(
                    command: Hex.encode(apdu.encoded(), uppercase: true), data: Hex.encode(answer.0, uppercase: true),
                    sw: Hex.encode([answer.1, answer.2], uppercase: true))
                exchanges.append(exchange)
            }
            return exchanges
        }
        if printsJSON {
            context.io.write(try toolJSON(exchanges))
            return
        }
        for exchange in exchanges {
            context.io.printLine("> \(spacedHex(exchange.command))")
            if !exchange.data.isEmpty { context.io.printLine("< \(spacedHex(exchange.data))") }
            context.io.printLine("< SW \(exchange.sw)")
        }
    }
}
