import NFCCore

/// Takes the secrets out of a trace's events before they are written, so that a trace can be
/// posted publicly (docs/traces.md, "Redaction"). Each redacted byte becomes `**`; the rest of
/// the command stays, so that replay still matches it. What it redacts:
///
/// - NTAG21x / Ultralight EV1 `PWD_AUTH` (`1B`): the 4 password bytes (the PACK answer stays:
///   the tool checks it);
/// - a Type 2 `WRITE` (`A2`) to a page that is a chip's password page (``Type2ChipProfile/passwordPage``
///   of every known chip: `protect` writes the password there);
/// - MIFARE Ultralight C: AUTHENTICATE's cryptograms (`1A 00` → `AF` ek(RndB), then
///   `AF` ek(RndA ‖ RndB′) → `00` ek(RndA′): the 8 or 16 bytes after the code, in both
///   directions) and the data of a `WRITE` to the key pages 2Ch–2Fh, unless the tag answered
///   GET_VERSION since it was polled (a chip that does is no Ultralight C);
/// - MIFARE Ultralight AES: AUTHENTICATE's cryptograms as above (16 and 32 bytes), and the data
///   of a `WRITE` to the key pages 30h–3Bh once the tag answered GET_VERSION as an Ultralight AES
///   (with secure messaging, its MAC too);
/// - MIFARE Classic authentication: the key, all of it; on a Classic tag (SAK bit 4), the keys
///   of a sector trailer (bytes 0–5 and 10–15) in `WRITE` (`A0`) commands and `READ` answers;
/// - NTAG 424 DNA (ISO-DEP, wrapped native commands, class `90`): AuthenticateEV2First and
///   NonFirst with their additional frames (command data and answer data), ChangeKey's data,
///   and, once an authentication has succeeded, the data of every wrapped command and answer
///   (secure messaging: MACs and ciphertext derived from the session keys) until the tag is
///   polled, selected or deselected again.
/// - MIFARE DESFire (ISO-DEP): the legacy Authenticate, AuthenticateISO and AuthenticateAES
///   (`0A`, `1A`, `AA`): the data of the answer ek(RndB) and, when that answer asked for more
///   (`91 AF`), of the additional frame that follows (`AF` ek(RndA ‖ RndB′)) and of its answer
///   (ek(RndA′)), wrapped (`90 0A 00 00 Lc …`, answers `… 91 AF`) or native (`0A 00`, answers
///   `AF …`, status first). The key number stays; an `AF` frame of any other command (GetVersion,
///   ReadData) is kept. AuthenticateEV2First on an EV2 or EV3 is redacted as NTAG 424 DNA's.
///
/// - ST25DV and ST25TV02K PRESENT PASSWORD and WRITE PASSWORD (`B3`, `B1`), ST25TV02K KILL
///   and ENABLE UNTRACEABLE (`A6`, `BA`), framed with ST's `02`: the 8 (ST25TV02K: 4, or 8
///   for its one-area password 1) password bytes.
/// - NXP ICODE SET PASSWORD, WRITE PASSWORD, DESTROY and ENABLE PRIVACY (`B3`, `B4`, `B9`,
///   `BA`, framed with NXP's `04`), addressed, unaddressed or sent to no selected tag
///   (`transceiveUnselected`, leaving privacy): the 4 password bytes that end the frame (plain in
///   WRITE PASSWORD; in the others XOR a random number the chip sent in the clear, so as good as
///   plain).
///
/// Status words and the commands' codes are never redacted.
public struct ReaderTraceRedactor: Sendable {
    /// The pages some known Type 2 chip keeps its password in.
    static let passwordPages: Set<UInt8> = Set(Type2ChipProfile.all.map { UInt8(truncatingIfNeeded: $0.passwordPage) })

    /// The target the last poll or selection found.
    var target: TargetInfo?
    /// An NTAG 424 authentication has started and not yet finished.
    var authenticating = false
    /// An NTAG 424 authentication succeeded: secure messaging is on.
    var secureMessaging = false
    /// A MIFARE Ultralight C AUTHENTICATE (`1A 00`) was answered `AF` ek(RndB): the next `AF`
    /// command is its second step.
    var ultralightCAuthenticating = false
    /// The tag answered GET_VERSION since it was polled: it is no Ultralight C, whose key pages
    /// 2Ch–2Fh are user memory on other chips.
    var answeredGetVersion = false
    /// The tag answered GET_VERSION as a MIFARE Ultralight AES: its pages 30h–3Bh hold keys.
    var answeredUltralightAESVersion = false
    /// A DESFire Authenticate, AuthenticateISO or AuthenticateAES (`0A`, `1A`, `AA`) was answered
    /// with its challenge and `AF`: the next frame, if it is `AF`, carries the host's cryptogram.
    var desfireAuthenticating = false

    /// DESFire's authentications whose three steps are cryptograms under the key: legacy
    /// Authenticate, AuthenticateISO, AuthenticateAES.
    static let desfireAuthentications: Set<UInt8> = [
        DESFire.Command.authenticateLegacy, DESFire.Command.authenticateISO, DESFire.Command.authenticateAES,
    ]

    /// A redactor that has seen nothing yet.
    public init() {}

    /// `request` and `result` with their secrets redacted (see the type's description); the
    /// redactor learns the target from polls and selections.
    public mutating func redact(_ request: ReaderTraceRequest, _ result: ReaderTraceResult) -> (ReaderTraceRequest, ReaderTraceResult) {
        switch (request, result) {
        case (.poll, .found(let found)):
            newTarget(found)
            return (request, result)
        case (.select(let target), _), (.listTargetsAlongside(let target, _), _):
            newTarget(target)
            return (request, result)
        case (.listTargets, .targets(let targets)):
            newTarget(targets.first)
            return (request, result)
        case (.deselect, _):
            newTarget(nil)
            return (request, result)
        case (.authenticateClassic(let block, let keyType, let key, let uid), _):
            var hidden = key
            hidden.redact(0..<key.values.count)
            return (.authenticateClassic(block: block, keyType: keyType, key: hidden, uid: uid), result)
        case (.transceive(let command, let mode), _):
            var answer: TraceBytes?
            if case .answer(let bytes) = result { answer = bytes }
            let (redactedCommand, redactedAnswer) = redactExchange(command, mode: mode, answer: answer)
            return (.transceive(redactedCommand, mode), redactedAnswer.map(ReaderTraceResult.answer) ?? result)
        case (.transceiveUnselected(let frame), _):
            var hidden = frame
            Self.redactICodePassword(&hidden)
            return (.transceiveUnselected(hidden), result)
        case (.checkCanSend(let command, let mode), _):
            var copy = self
            let (redactedCommand, _) = copy.redactExchange(command, mode: mode, answer: nil)
            return (.checkCanSend(redactedCommand, mode), result)
        default:
            return (request, result)
        }
    }

    mutating func newTarget(_ found: TargetInfo?) {
        target = found
        authenticating = false
        secureMessaging = false
        ultralightCAuthenticating = false
        answeredGetVersion = false
        answeredUltralightAESVersion = false
        desfireAuthenticating = false
    }

    /// Whether the target is a MIFARE Classic (SAK bit 4, 0x08: Classic 1K `08`, 4K `18`).
    var isClassic: Bool {
        guard case .iso14443A(let a)? = target else { return false }
        return a.sak & 0x08 != 0
    }

    /// Whether the target speaks ISO-DEP.
    var isISODEP: Bool {
        switch target {
        case .iso14443A(let a)?: a.supportsISODEP
        case .iso14443B(let b)?: b.supportsISODEP
        default: false
        }
    }

    /// A Classic sector trailer: block 3 of each 4-block sector below 128, block 15 of each
    /// 16-block sector above (MF1S70yyX, 8.6).
    static func isSectorTrailer(_ block: UInt8) -> Bool {
        block < 128 ? block % 4 == 3 : block % 16 == 15
    }

    mutating func redactExchange(_ command: TraceBytes, mode: TransceiveMode, answer: TraceBytes?) -> (TraceBytes, TraceBytes?) {
        var command = command
        var answer = answer
        let bytes = command.values
        guard let code = bytes.first ?? nil else { return (command, answer) }
        if case .iso15693? = target, bytes.count >= 3 + 5, bytes[2] == ST25Command.manufacturerCode,
           let custom = bytes[1], [ST25Command.presentPassword, ST25Command.writePassword, ST25TVCommand.kill, ST25TVCommand.enableUntraceable].contains(custom) {
            // ST25DV PRESENT/WRITE PASSWORD (8 bytes), ST25TV02K's (4 bytes), KILL and ENABLE
            // UNTRACEABLE (4 bytes): everything after the password number or access code, which
            // follows the UID when the frame is addressed (flag 20).
            let header = 3 + ((bytes[0] ?? 0) & 0x20 != 0 ? 8 : 0) + 1
            if header < bytes.count { command.redact(header..<bytes.count) }
            return (command, answer)
        }
        if case .iso15693? = target, Self.redactICodePassword(&command) { return (command, answer) }
        if isISODEP, mode == .standard {
            redactWrappedNative(&command, &answer)
            return (command, answer)
        }
        let continuesUltralightC = ultralightCAuthenticating
        ultralightCAuthenticating = false
        if code == Type2Command.getVersion, bytes.count == 1, answer?.values.count == 8 {
            answeredGetVersion = true
            let version = answer?.values.compactMap { $0 } ?? []
            answeredUltralightAESVersion =
                version == UltralightAESCommand.versionMF0AES20 || version == UltralightAESCommand.versionMF0AESH20
        } else if code == UltralightCCommand.authenticate, bytes.count == 2 {
            answer?.redact(1..<Int.max)
            ultralightCAuthenticating = answer?.values.first == UltralightCCommand.authenticateContinue
        } else if code == UltralightCCommand.authenticateContinue, continuesUltralightC {
            command.redact(1..<bytes.count)
            answer?.redact(1..<Int.max)
        } else if code == Type2Command.write, bytes.count == 6, !answeredGetVersion, let page = bytes[1],
            UltralightCMemory.keyPages.contains(Int(page)) {
            command.redact(2..<6)
        } else if code == Type2Command.write, bytes.count == 6 || bytes.count == 6 + UltralightAESSecureMessaging.macSize,
            answeredUltralightAESVersion, let page = bytes[1], UltralightAESMemory.keyPages.contains(Int(page)) {
            command.redact(2..<bytes.count)
        } else if code == Type2Command.passwordAuthenticate, bytes.count == 5 {
            command.redact(1..<5)
        } else if code == Type2Command.write, bytes.count == 6, let page = bytes[1], Self.passwordPages.contains(page) {
            command.redact(2..<6)
        } else if isClassic, code == ClassicCommand.write, bytes.count == 18, let block = bytes[1], Self.isSectorTrailer(block) {
            command.redact(2..<8)
            command.redact(12..<18)
        } else if isClassic, code == ClassicCommand.read, bytes.count == 2, let block = bytes[1], Self.isSectorTrailer(block) {
            answer?.redact(0..<6)
            answer?.redact(10..<16)
        }
        return (command, answer)
    }

    /// The ICODE commands that carry a password (plain or XOR a random number the chip sent in
    /// the clear).
    static let icodePasswordCommands: Set<UInt8> = [
        ICodeCommand.setPassword, ICodeCommand.writePassword, ICodeCommand.destroy, ICodeCommand.enablePrivacy,
    ]

    /// Redacts the 4 password bytes ending an ICODE password command (flags, code, `04`, the UID
    /// when addressed, the identifier for SET/WRITE PASSWORD, the password); false for any other
    /// frame.
    @discardableResult
    static func redactICodePassword(_ command: inout TraceBytes) -> Bool {
        let bytes = command.values
        guard bytes.count >= 3 + ICodePassword.size, bytes[2] == ISO15693Command.nxpManufacturerCode, let code = bytes[1],
              icodePasswordCommands.contains(code)
        else { return false }
        command.redact((bytes.count - ICodePassword.size)..<bytes.count)
        return true
    }

    /// DESFire's native frames (`code data`, answered `status data`), unwrapped: only the
    /// authentications `0A`, `1A`, `AA` (key number alone) and the `AF` frame that continues one
    /// carry cryptograms. False, leaving the frame alone, for any other frame.
    mutating func redactNativeDESFireAuthentication(_ command: inout TraceBytes, _ answer: inout TraceBytes?) -> Bool {
        let bytes = command.values
        let continuing = desfireAuthenticating
        guard let code = bytes.first ?? nil else { return false }
        if bytes.count == 2, Self.desfireAuthentications.contains(code) {
            answer?.redact(1..<Int.max)
            desfireAuthenticating = (answer?.values.count ?? 0) > 1 && answer?.values.first == DESFire.Status.additionalFrame.rawValue
            return true
        }
        if continuing, code == DESFire.Command.additionalFrame, bytes.count > 1 {
            desfireAuthenticating = false
            command.redact(1..<bytes.count)
            answer?.redact(1..<Int.max)
            return true
        }
        return false
    }

    /// NTAG 424 DNA's and DESFire's wrapped native commands (`90 INS 00 00 Lc data [Le]`).
    mutating func redactWrappedNative(_ command: inout TraceBytes, _ answer: inout TraceBytes?) {
        let bytes = command.values
        guard bytes.count >= 4, bytes[0] == NTAG424.wrappedClass, let instruction = bytes[1] else {
            // DESFire's native authentication frames, unwrapped; any other APDU (SELECT, ISO
            // READ BINARY…) carries no secret of its own.
            if !redactNativeDESFireAuthentication(&command, &answer) { desfireAuthenticating = false }
            return
        }
        let dataRange: Range<Int> = bytes.count > 5 ? 5..<(5 + min(Int(bytes[4] ?? 0), bytes.count - 5)) : 0..<0
        let answerData: Range<Int> = 0..<max((answer?.values.count ?? 0) - 2, 0)
        let succeeded = answer.map { $0.values.count >= 2 && Array($0.values.suffix(2)) == [NTAG424.statusPrefix, 0x00] } ?? false
        let asksForMore = answer.map { $0.values.count >= 2 && Array($0.values.suffix(2)) == [NTAG424.statusPrefix, DESFire.Status.additionalFrame.rawValue] } ?? false
        let continuesDESFireAuthentication = desfireAuthenticating
        desfireAuthenticating = false
        if Self.desfireAuthentications.contains(instruction) {
            // ek(RndB); the key number in the command stays.
            answer?.redact(answerData)
            desfireAuthenticating = asksForMore
            return
        }
        if instruction == DESFire.Command.additionalFrame, continuesDESFireAuthentication {
            // ek(RndA ‖ RndB′), answered ek(RndA′).
            command.redact(dataRange)
            answer?.redact(answerData)
            return
        }
        switch instruction {
        case NTAG424.Command.authenticateEV2First, NTAG424.Command.authenticateEV2NonFirst:
            command.redact(dataRange)
            answer?.redact(answerData)
            authenticating = true
        case NTAG424.Command.additionalFrame where authenticating:
            command.redact(dataRange)
            answer?.redact(answerData)
            authenticating = false
            secureMessaging = succeeded
        case NTAG424.Command.changeKey:
            command.redact(dataRange)
            answer?.redact(answerData)
        default:
            if secureMessaging {
                command.redact(dataRange)
                answer?.redact(answerData)
            }
        }
    }
}
