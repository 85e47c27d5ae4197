import VirtualTags

/// The tag side of ISO/IEC 14443-4 for models that only answer APDUs: when the host sends raw
/// frames (InCommunicateThru, or InDataExchange without automatic RATS, as nfcpy does), this
/// answers RATS with the ATS, PPS, I-blocks with the APDU's response, R-blocks by resending,
/// and S(DESELECT) by halting (ISO/IEC 14443-4 §5.1, §5.3, §7.1).
struct ISODEPBlockAdapter {
    private var lastResponse: [UInt8]?
    private var chained: [UInt8] = []

    /// Forgets the protocol state (the tag was re-activated).
    mutating func reset() {
        lastResponse = nil
        chained = []
    }

    /// Answers one frame (without CRC); `exchange` sends an APDU through the field.
    mutating func respond(to frame: [UInt8], tag: any ISODEPVirtualTag, exchange: ([UInt8]) -> FieldAnswer) -> FieldAnswer {
        guard let pcb = frame.first else { return .frame(.silence) }
        if pcb == 0xE0, frame.count == 2 {
            reset()
            return .frame(.data(tag.ats))
        }
        if pcb & 0xF0 == 0xD0, frame.count == 3, frame[1] & 0xEF == 0x01 {
            return .frame(.data([pcb]))  // PPS response: PPSS echoed
        }
        let hasCID = pcb & 0x08 != 0
        let header = 1 + (hasCID ? 1 : 0) + (pcb & 0xC0 == 0x00 && pcb & 0x04 != 0 ? 1 : 0)
        guard frame.count >= header else { return .frame(.silence) }
        let prologue = Array(frame[0..<header])
        switch pcb & 0xC0 {
        case 0x00 where pcb & 0x02 == 0x02:  // I-block
            chained += frame[header...]
            if pcb & 0x10 != 0 {
                // Chaining from the reader: acknowledge with R(ACK) of the same block number.
                return .frame(.data([0xA2 | (pcb & 0x09)] + (hasCID ? [frame[1]] : [])))
            }
            let apdu = chained
            chained = []
            switch exchange(apdu) {
            case .apdu(let response):
                let block = [0x02 | (pcb & 0x01) | (pcb & 0x08)] + Array(prologue.dropFirst()) + response
                lastResponse = block
                return .frame(.data(block))
            case .rfError: return .rfError
            case .noTag: return .noTag
            default: return .frame(.silence)
            }
        case 0x80 where pcb & 0x26 == 0x22:  // R-block
            if let lastResponse { return .frame(.data(lastResponse)) }
            return .frame(.data([0xA2 | (pcb & 0x09)] + (hasCID ? [frame[1]] : [])))
        case 0xC0 where pcb & 0x37 == 0x02:  // S(DESELECT)
            tag.halt()
            reset()
            return .frame(.data(prologue))
        default:
            return .frame(.silence)
        }
    }
}
