// Fuzz target `type1-memory` for the NFC Forum Type 1 parsers (Sources/NFCTags/Type1*.swift):
// the first byte picks the parser, the second is HR0 for the memory parse, the rest the input.
import NFCCore
import NFCTags

func checkType1Memory(_ input: [UInt8]) {
    guard input.count >= 2 else { return }
    let hr0 = input[1]
    let body = Array(input.dropFirst(2))
    switch input[0] % 3 {
    case 0:
        // The TLV area of a memory image: addresses inside the image, the message within the
        // NDEF TLV's addresses, or an error whose offset points into the image (or just past it).
        do {
            let area = try Type1TLVArea.parse(memory: body, hr0: hr0, reachedAll: input[0] & 0x80 == 0)
            guard area.ndefAddresses.allSatisfy({ $0 >= 12 && $0 < 2048 }) else { fail("NDEF address outside any memory", input) }
            guard area.messageAddresses.count == area.messageLength,
                  area.messageAddresses.allSatisfy({ $0 < body.count }) else { fail("message addresses outside the image", input) }
            guard area.capacity >= 0, area.end <= body.count else { fail("capacity or end", input) }
        } catch {
            checkOffset(error.offset, within: max(body.count, 12), "type1 area", input)
        }
    case 1:
        // A byte answer: one byte, or the address and the byte.
        if let byte = try? Type1Answer.byte(body, address: Int(hr0 & 0x7F)) {
            guard body.count == 1 || (body.count == 2 && body[1] == byte && body[0] == hr0 & 0x7F) else { fail("byte answer", input) }
        }
        _ = try? Type1Answer.identification(body)
    default:
        // RALL, RSEG and READ8 answers: exactly their length, or refused.
        if (try? Type1Answer.readAll(body)) != nil, body.count != 122 { fail("RALL of \(body.count) bytes", input) }
        if (try? Type1Answer.segment(body, segment: Int(hr0 >> 4))) != nil, body.count != 129 { fail("RSEG of \(body.count) bytes", input) }
        if let block = try? Type1Answer.block(body, block: Int(hr0)) {
            guard block.count == 8, body[0] == hr0 else { fail("READ8 answer", input) }
        }
    }
}
