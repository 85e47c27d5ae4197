public import NFCCore
import Synchronization

/// An ISO-DEP tag spoken to with APDUs (ISO/IEC 7816-4 over ISO 14443-4): CoreNFC's
/// `NFCISO7816Tag`. NDEF goes through the NFC Forum Type 4 mapping (``Type4Tag``).
///
/// Payment applications are out of bounds unless the caller opts in with
/// ``allowsPaymentApplications``: a SELECT by name of one (``PaymentApplications``) is refused
/// before anything is sent.
public struct ISO7816Tag: Sendable {
    /// The reader that selected and activated the tag.
    public let reader: any NFCReader
    /// What selection returned (type A with ATS, or type B).
    public let target: TargetInfo
    /// What identification found.
    public let identity: ChipIdentity
    /// The timeout of each command.
    public var commandTimeout: Duration
    /// The application (AID, upper-case hex) already selected when the tag was handed over, as
    /// CoreNFC's `initialSelectedAID`; `nil` when none was selected.
    public let initialSelectedAID: String?
    /// Whether ``sendCommand(apdu:)`` may SELECT payment applications (PPSE, PSE, the card
    /// schemes' AIDs). Off by default: such a SELECT throws ``NFCTagError/Code/refused``.
    public var allowsPaymentApplications: Bool
    /// The application selected since; shared by copies of this value.
    let selection: ISO7816Selection
    /// A MIFARE DESFire Light's application key 0 (16 bytes, AES) for ``ndefPlatform``'s lock;
    /// nil: the factory key (zeros). Never printed.
    public var desfireLightApplicationKey: [UInt8]?
    /// Whether ``ndefPlatform``'s DESFire Light lock runs under a write plan (`--plan`).
    public var desfireLightPlanning = false

    /// Wraps a selected, ISO-DEP-activated target.
    /// - Parameters:
    ///   - initialSelectedAID: the AID in hex that the code handing over the tag selected, if any.
    ///   - allowsPaymentApplications: lets ``sendCommand(apdu:)`` select payment applications.
    public init(
        reader: any NFCReader, target: TargetInfo, identity: ChipIdentity, commandTimeout: Duration = .seconds(1),
        initialSelectedAID: String? = nil, allowsPaymentApplications: Bool = false
    ) {
        self.reader = reader
        self.target = target
        self.identity = identity
        self.commandTimeout = commandTimeout
        self.initialSelectedAID = initialSelectedAID?.uppercased()
        self.allowsPaymentApplications = allowsPaymentApplications
        self.selection = ISO7816Selection(initialSelectedAID?.uppercased())
    }

    /// The UID (type A) or PUPI (type B).
    public var identifier: Bytes { target.identifier }

    /// The historical bytes of the ATS (type A); empty for type B.
    public var historicalBytes: Bytes {
        if case .iso14443A(let a) = target { return a.historicalBytes }
        return Bytes()
    }

    /// The application (AID, upper-case hex) the card last confirmed selecting: by a SELECT by
    /// name sent through ``sendCommand(apdu:)`` or by the NDEF mapping; ``initialSelectedAID``
    /// until then.
    public var selectedAID: String? { selection.aid }

    /// Sends a command APDU and returns the response data with SW1 SW2, as CoreNFC's
    /// `sendCommand(apdu:)`. Response chaining is followed: `61 xx` is answered with GET
    /// RESPONSE (Le = xx) and the data accumulated, `6C xx` by sending the command again with
    /// Le = xx (ISO/IEC 7816-4, 5.3.4 and 7.6.1); both loops are bounded.
    /// - Throws: ``NFCTagError`` `refused` for a SELECT of a payment application without
    ///   ``allowsPaymentApplications`` (nothing sent); `connectionLost`, `tagResponse` (an
    ///   answer without a status word, or endless chaining).
    public func sendCommand(apdu: ISO7816APDU) async throws(NFCTagError) -> (Bytes, UInt8, UInt8) {
        if !allowsPaymentApplications, let name = PaymentApplications.refusedName(in: apdu) {
            throw NFCTagError(
                .refused,
                "SELECT of payment application \(name) refused: set allowsPaymentApplications to talk to payment cards")
        }
        let response = try await ISO7816Exchange.send(apdu, reader: reader, timeout: commandTimeout)
        if apdu.instructionCode == ISO7816Exchange.select, apdu.p1Parameter == ISO7816Exchange.selectByName,
            response.statusWord.isSuccess
        {
            selection.aid = Hex.encode(apdu.data).uppercased()
        }
        return (response.data, response.sw1, response.sw2)
    }

    /// The NDEF mapping (NFC Forum Type 4); on a MIFARE DESFire Light, ``DESFireLightNDEFTag``
    /// (Type 4 with the Light's format and lock).
    public var ndefPlatform: any NFCNDEFTag {
        identity.family == .desfireLight ? DESFireLightNDEFTag(self, applicationKey: desfireLightApplicationKey, planning: desfireLightPlanning) : type4Platform
    }

    /// The NFC Forum Type 4 mapping itself, for what only it offers (its capability container
    /// and files, read for inspection).
    public var type4Platform: Type4Tag {
        var tag = Type4Tag(reader: reader, commandTimeout: commandTimeout)
        tag.selection = selection
        return tag
    }
}

/// NDEF through the Type 4 mapping (``ndefPlatform``).
extension ISO7816Tag: NFCNDEFPlatformTag {
    /// Whether this tag is still in the field: ``NFCReader/isTargetPresent()`` of its reader.
    public func isPresent() async -> Bool { await reader.isTargetPresent() }
}

/// The selected application, shared by the copies of an ``ISO7816Tag`` value.
final class ISO7816Selection: Sendable {
    private let state: Mutex<String?>

    init(_ aid: String?) { state = Mutex(aid) }

    var aid: String? {
        get { state.withLock { $0 } }
        set { state.withLock { $0 = newValue } }
    }
}

/// Payment applications, which ``ISO7816Tag/sendCommand(apdu:)`` and
/// ``MiFareTag/sendMiFareISO7816Command(_:allowsPaymentApplications:)`` refuse to SELECT unless
/// the caller opts in: reading a payment card is not what an NDEF toolkit is for.
///
/// Names from EMV Book 1 (12.2, 12.3.2: the PSE `1PAY.SYS.DDF01`) and EMV Contactless Book B
/// (the PPSE `2PAY.SYS.DDF01`); the RIDs (the 5-byte registered application provider
/// identifiers of ISO/IEC 7816-5 that open every AID of a scheme) as the schemes publish them
/// in their AIDs, e.g. Visa `A0000000031010`, Mastercard `A0000000041010`.
public enum PaymentApplications {
    /// The directory names: `1PAY.SYS.DDF01` (PSE, contact) and `2PAY.SYS.DDF01` (PPSE, contactless).
    public static let directoryNames: [String] = ["1PAY.SYS.DDF01", "2PAY.SYS.DDF01"]

    /// Card scheme RIDs (hex) with their scheme.
    public static let registeredProviders: [(rid: String, scheme: String)] = [
        ("A000000003", "Visa"),
        ("A000000004", "Mastercard"),
        ("A000000025", "American Express"),
        ("A000000152", "Discover / Diners Club"),
        ("A000000324", "Discover"),
        ("A000000065", "JCB"),
        ("A000000333", "UnionPay"),
        ("A000000277", "Interac"),
        ("A000000524", "RuPay"),
        ("A000000658", "Mir"),
        ("A000000042", "Cartes Bancaires"),
        ("A000000121", "Dankort"),
        ("A000000141", "PagoBANCOMAT"),
        ("A000000359", "girocard"),
        ("A000000384", "eftpos"),
    ]

    /// The payment application a SELECT by name (INS `A4`, P1 `04`) would reach, or `nil`:
    /// the name starts with a directory name or a RID, or is a beginning of one (a partial
    /// name selects the first application it opens, ISO/IEC 7816-4 7.1.1).
    public static func refusedName(in apdu: ISO7816APDU) -> String? {
        guard apdu.instructionCode == ISO7816Exchange.select, apdu.p1Parameter == ISO7816Exchange.selectByName else {
            return nil
        }
        let name = apdu.data.array
        func clashes(_ protected: [UInt8]) -> Bool {
            name.count >= protected.count ? Array(name.prefix(protected.count)) == protected : Array(protected.prefix(name.count)) == name
        }
        for directory in directoryNames where clashes(Array(directory.utf8)) { return directory }
        for provider in registeredProviders {
            guard let rid = try? Hex.decode(provider.rid) else { continue }
            if clashes(Array(rid)) { return "\(Hex.encode(name).uppercased()) (\(provider.scheme), RID \(provider.rid))" }
        }
        return nil
    }
}

/// Sending one APDU with response chaining: shared by ``ISO7816Tag``, ``Type4Tag`` and MIFARE
/// DESFire's ISO 7816 wrapping.
enum ISO7816Exchange {
    /// SELECT (`A4`).
    static let select = Type4Command.select
    /// SELECT P1 `04`: by DF name (an AID).
    static let selectByName = Type4Command.selectByNameP1
    /// GET RESPONSE (`C0`, ISO/IEC 7816-4 7.6.1).
    static let getResponse: UInt8 = 0xC0
    /// The most GET RESPONSE commands one exchange sends: 256 × 256 bytes = the 65 536 of the
    /// largest extended Le.
    static let maximumGetResponses = 256

    /// Sends `apdu`, follows `61 xx` with GET RESPONSE and `6C xx` with one resend.
    static func send(_ apdu: ISO7816APDU, reader: any NFCReader, timeout: Duration) async throws(NFCTagError) -> ISO7816Response {
        var response = try await transmit(apdu, reader: reader, timeout: timeout)
        if response.sw1 == ISO7816StatusWord.wrongLeSW1 {
            var again = apdu
            again.expectedResponseLength = response.sw2 == 0 ? 256 : Int(response.sw2)
            response = try await transmit(again, reader: reader, timeout: timeout)
        }
        var collected = response.data.array
        var rounds = 0
        while response.sw1 == ISO7816StatusWord.bytesAvailableSW1 {
            rounds += 1
            guard rounds <= maximumGetResponses else {
                throw NFCTagError(.tagResponse, "the card still announced more data (61xx) after \(maximumGetResponses) GET RESPONSE commands")
            }
            var get = ISO7816APDU(
                unchecked: apdu.instructionClass & 0xEF, getResponse, 0x00, 0x00,
                expectedResponseLength: response.sw2 == 0 ? 256 : Int(response.sw2))
            response = try await transmit(get, reader: reader, timeout: timeout)
            if response.sw1 == ISO7816StatusWord.wrongLeSW1 {
                get.expectedResponseLength = response.sw2 == 0 ? 256 : Int(response.sw2)
                response = try await transmit(get, reader: reader, timeout: timeout)
            }
            collected += response.data
        }
        return ISO7816Response(data: Bytes(collected), sw1: response.sw1, sw2: response.sw2)
    }

    /// One command, one response APDU.
    static func transmit(_ apdu: ISO7816APDU, reader: any NFCReader, timeout: Duration) async throws(NFCTagError) -> ISO7816Response {
        let answer: Bytes
        do {
            answer = try await reader.transceive(apdu.encoded(), mode: .standard, timeout: timeout)
        } catch {
            throw NFCTagError(error, during: "APDU \(apdu.description)")
        }
        do {
            return try ISO7816Response(bytes: answer)
        } catch {
            throw NFCTagError(.tagResponse, "APDU \(apdu.description): \(error.reason)")
        }
    }
}
