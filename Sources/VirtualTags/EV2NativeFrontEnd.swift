import NFCTags

/// The native-command front end the virtual NTAG 424 DNA and MIFARE DESFire Light share: the
/// ISO/IEC 7816-4 wrapping of native commands (class `90`, P1 P2 `00 00`, Lc, data, Le), the
/// three-part GetVersion, Read_Sig, EV2 authentication (``EV2CardResponder``), the session it
/// opens and the rule that a failed command drops it. Each chip keeps its own commands, files,
/// keys and version bytes.
struct EV2NativeFrontEnd {
    /// What a multi-frame exchange waits for.
    enum Pending {
        /// Part 2 of an authentication.
        case authentication(EV2CardResponder.Pending)
        /// The next GetVersion part (2 or 3).
        case version(part: Int)
    }

    /// What the front end made of one native APDU.
    enum Step {
        /// Answered here (a failure, a GetVersion part, Read_Sig, an authentication part).
        case answered([UInt8])
        /// A command of the chip's own, with its unwrapped data, for the chip to answer.
        case command(UInt8, data: [UInt8])

        /// The bytes answered here; empty for a command left to the chip.
        var answer: [UInt8] {
            if case .answered(let bytes) = self { return bytes }
            return []
        }
    }

    /// GetVersion's hardware part (7 bytes).
    let hardwareVersion: [UInt8]
    /// GetVersion's software part (7 bytes).
    let softwareVersion: [UInt8]
    /// What follows the UID in GetVersion's third part: batch number and fab key (5 bytes),
    /// calendar week and year of production.
    let production: [UInt8]
    /// The open EV2 session, or nil.
    var session: EV2Session?
    /// The exchange waiting for an `AF` frame, or nil.
    var pending: Pending?

    /// The version parts a chip answers GetVersion with.
    init(hardwareVersion: [UInt8], softwareVersion: [UInt8], production: [UInt8]) {
        self.hardwareVersion = hardwareVersion
        self.softwareVersion = softwareVersion
        self.production = production
    }

    /// Entering the field, DESELECT or a new selection: no session, nothing pending.
    mutating func reset() {
        session = nil
        pending = nil
    }

    /// The native status bytes `91 status`.
    func status(_ status: NXPNativeStatus) -> [UInt8] { [NTAG424.statusPrefix, status.rawValue] }

    /// A failed command: the chip drops its authentication and answers the status.
    mutating func fail(_ status: NXPNativeStatus) -> [UInt8] {
        reset()
        return self.status(status)
    }

    /// Unwraps a class `90` APDU (at least 4 bytes) and answers what every such chip answers
    /// alike: additional frames of GetVersion and authentication, GetVersion, Read_Sig, and —
    /// once the application is selected — AuthenticateEV2First / NonFirst with the key `key`
    /// gives for a number (nil: NO_SUCH_KEY). Any other command comes back for the chip, or is
    /// ILLEGAL_COMMAND before the application is selected.
    mutating func native(
        _ apdu: [UInt8], uid: [UInt8], applicationSelected: Bool, signature: [UInt8]?, random: (Int) -> [UInt8], key: (UInt8) -> [UInt8]?
    ) -> Step {
        let command = apdu[1]
        guard apdu[2] == 0, apdu[3] == 0 else { return .answered(fail(.parameterError)) }
        var data: [UInt8] = []
        if apdu.count > 5 {
            let lc = Int(apdu[4])
            guard apdu.count == 5 + lc || apdu.count == 6 + lc else { return .answered(fail(.lengthError)) }
            data = Array(apdu[5..<(5 + lc)])
        }
        let waiting = pending
        pending = nil
        if command == NTAG424.Command.additionalFrame {
            switch waiting {
            case .authentication(let waiting): return .answered(authenticatePart2(waiting, data: data, random: random))
            case .version(let part): return .answered(version(part: part, uid: uid))
            case nil: return .answered(fail(.commandAborted))
            }
        }
        switch command {
        case NTAG424.Command.getVersion:
            session = nil
            return .answered(version(part: 1, uid: uid))
        case NTAG424.Command.readSignature:
            guard data == [NXPNativeCommand.signatureAddress] else { return .answered(fail(.lengthError)) }
            return .answered((signature ?? [UInt8](repeating: 0, count: NXPNativeCommand.signatureLength)) + [NTAG424.statusPrefix, NXPNativeCommand.readSignatureOK])
        default: break
        }
        guard applicationSelected else { return .answered(fail(.illegalCommand)) }
        switch command {
        case NTAG424.Command.authenticateEV2First, NTAG424.Command.authenticateEV2NonFirst:
            return .answered(authenticatePart1(first: command == NTAG424.Command.authenticateEV2First, data: data, random: random, key: key))
        default:
            return .command(command, data: data)
        }
    }

    private mutating func version(part: Int, uid: [UInt8]) -> [UInt8] {
        switch part {
        case 1:
            pending = .version(part: 2)
            return hardwareVersion + status(.additionalFrame)
        case 2:
            pending = .version(part: 3)
            return softwareVersion + status(.additionalFrame)
        default:
            return uid + production + status(.ok)
        }
    }

    private mutating func authenticatePart1(first: Bool, data: [UInt8], random: (Int) -> [UInt8], key: (UInt8) -> [UInt8]?) -> [UInt8] {
        guard let keyNumber = EV2CardResponder.keyNumber(part1: data, first: first) else { return fail(.lengthError) }
        guard let keyBytes = key(keyNumber) else { return fail(.noSuchKey) }
        let previous = session
        session = nil
        guard first || previous != nil else { return fail(.permissionDenied) }
        guard let (challenge, waiting) = EV2CardResponder.part1(keyNumber: keyNumber, key: keyBytes, first: first, previous: previous, random: random)
        else { return fail(.memoryError) }
        pending = .authentication(waiting)
        return challenge + status(.additionalFrame)
    }

    private mutating func authenticatePart2(_ waiting: EV2CardResponder.Pending, data: [UInt8], random: (Int) -> [UInt8]) -> [UInt8] {
        switch EV2CardResponder.part2(waiting, data: data, random: random) {
        case .failure(.status(let error)): return fail(error)
        case .failure(.internalError): return fail(.memoryError)
        case .success(let (confirmation, opened)):
            session = opened
            return confirmation + status(.ok)
        }
    }

    /// Opens a command's body: in `mode` with a session (MAC checked, data decrypted), plain
    /// without.
    func open(_ command: UInt8, headerLength: Int, body: [UInt8], mode: EV2CommMode) -> Result<(header: [UInt8], data: [UInt8]), NXPNativeStatus> {
        EV2CardResponder.open(command, headerLength: headerLength, body: body, mode: mode, session: session)
    }

    /// The answer with `data`: sealed in `mode` in a session (the counter advances), plain otherwise.
    mutating func answer(_ data: [UInt8], mode: EV2CommMode) -> [UInt8] { EV2CardResponder.seal(data, mode: mode, session: &session) }

    /// A little-endian 3-byte number (offsets and lengths of ReadData / WriteData).
    static func uint24(_ bytes: ArraySlice<UInt8>) -> Int {
        let b = Array(bytes)
        return Int(b[0]) | Int(b[1]) << 8 | Int(b[2]) << 16
    }
}
