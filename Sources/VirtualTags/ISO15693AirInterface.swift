import NFCCore
import NFCTags

/// What every virtual ISO 15693 chip does the same way (ISO/IEC 15693-3): its ready, quiet and
/// selected states, the routing of a request frame (inventory, the custom commands' IC
/// manufacturer code, the addressed UID, the select flag) and the answer to INVENTORY. The
/// ICODE, ST25 and plain Type 5 chips keep one each and answer only what is their own.
struct ISO15693AirInterface {
    /// The chip's state on the air.
    enum State { case ready, quiet, selected }

    /// A request for the chip itself: flags and command, with the manufacturer code and the
    /// address taken off its parameters.
    struct Request {
        /// The request flags byte.
        let flags: UInt8
        /// The command code.
        let command: UInt8
        /// The parameters after the manufacturer code (custom commands) and the UID (addressed).
        var parameters: [UInt8]
        /// Whether the request carried this chip's UID.
        let addressed: Bool
        /// Whether the option flag was set.
        var option: Bool { flags & ISO15693RequestFlag.option != 0 }
        /// Whether the command is a custom one (`A0`–`DF`).
        var isCustom: Bool { (ISO15693Command.firstCustom...ISO15693Command.lastCustom).contains(command) }
    }

    /// Where a frame goes.
    enum Routing {
        /// An INVENTORY request: flags and its parameters (AFI, mask length, mask).
        case inventory(flags: UInt8, parameters: [UInt8])
        /// A request this chip is to answer.
        case request(Request)
        /// Not for this chip, or not to be answered in its state.
        case silence
    }

    /// The state now (ready at power-up).
    var state: State = .ready

    /// Routes `frame` for a chip whose UID on the air (least significant byte first) is
    /// `uidOnAir` and whose custom commands carry `manufacturerCode`. A SELECT addressed to
    /// another UID returns a selected chip to ready (ISO/IEC 15693-3, "Select").
    mutating func route(_ frame: [UInt8], uidOnAir: [UInt8], manufacturerCode: UInt8) -> Routing {
        guard frame.count >= 2 else { return .silence }
        let flags = frame[0], command = frame[1]
        if flags & ISO15693RequestFlag.inventory != 0 {
            return command == ISO15693Command.inventory ? .inventory(flags: flags, parameters: Array(frame.dropFirst(2))) : .silence
        }
        var rest = Array(frame.dropFirst(2))
        if (ISO15693Command.firstCustom...ISO15693Command.lastCustom).contains(command) {
            // Custom commands carry the IC manufacturer code before the UID; another
            // manufacturer's command is not answered (ISO/IEC 15693-3, "Custom commands").
            guard rest.first == manufacturerCode else { return .silence }
            rest.removeFirst()
        }
        let addressed = flags & ISO15693RequestFlag.address != 0
        if addressed {
            guard rest.count >= 8 else { return .silence }
            guard Array(rest[0..<8]) == uidOnAir else {
                if command == ISO15693Command.select && state == .selected { state = .ready }
                return .silence
            }
            rest.removeFirst(8)
        }
        if flags & ISO15693RequestFlag.select != 0 && state != .selected { return .silence }
        if state == .quiet && !addressed { return .silence }
        return .request(Request(flags: flags, command: command, parameters: rest, addressed: addressed))
    }

    /// STAY QUIET, SELECT and RESET TO READY: the answer (silence for STAY QUIET), or nil for
    /// any other command.
    mutating func answerStateCommand(_ request: Request) -> TagAnswer? {
        switch request.command {
        case ISO15693Command.stayQuiet:
            if request.addressed { state = .quiet }
            return .silence
        case ISO15693Command.select:
            guard request.addressed else { return .data([ISO15693ResponseFlag.error, ISO15693Error.commandNotRecognized]) }
            state = .selected
            return .data([0x00])
        case ISO15693Command.resetToReady:
            state = .ready
            return .data([0x00])
        default:
            return nil
        }
    }

    /// The answer to INVENTORY (`[AFI]`, mask length in bits, mask with the UID's least
    /// significant bits first): flags `00`, DSFID and the UID on the air, or silence when the
    /// chip is quiet, its AFI differs from a non-zero requested one or the mask does not match.
    func inventory(flags: UInt8, parameters: [UInt8], uidOnAir: [UInt8], afi: UInt8, dsfid: UInt8) -> TagAnswer {
        guard state != .quiet else { return .silence }
        var rest = parameters[...]
        if flags & ISO15693RequestFlag.afi != 0 {
            guard let requested = rest.popFirst() else { return .silence }
            if requested != 0 && requested != afi { return .silence }
        }
        guard let maskLength = rest.popFirst(), maskLength <= 64 else { return .silence }
        let maskBytes = (Int(maskLength) + 7) / 8
        guard rest.count >= maskBytes else { return .silence }
        let mask = Array(rest.prefix(maskBytes))
        for bit in 0..<Int(maskLength) where (mask[bit / 8] >> (bit % 8)) & 1 != (uidOnAir[bit / 8] >> (bit % 8)) & 1 {
            return .silence
        }
        return .data([0x00, dsfid] + uidOnAir)
    }
}
