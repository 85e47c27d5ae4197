/// The Type 1 bytes a write plan holds back, laid over later reads: WRITE-E and WRITE-E8 set
/// bytes, WRITE-NE and WRITE-NE8 OR bits into them (the tag's rule, NFC Forum Type 1 Tag
/// Operation: a write without erase only sets bits).
struct Type1PlannedMemory: Sendable {
    /// Bytes a planned erase-and-write set, by address.
    private var erased: [Int: UInt8] = [:]
    /// Bits planned writes without erase set, by address (OR-ed over the byte the tag holds).
    private var ored: [Int: UInt8] = [:]

    /// Whether `command` is a Type 1 write, and the answer of a tag that did it: `ADD DATA` for
    /// the byte commands (WRITE-E `53`, WRITE-NE `1A`: code, address, byte, UID0…UID3), `ADD8`
    /// and the 8 bytes for the block commands (WRITE-E8 `54`, WRITE-NE8 `1B`: code, block, 8
    /// bytes, UID0…UID3). The answer of a write without erase is the byte written: the bits the
    /// caller sets, which is all it checks.
    static func writeClass(_ command: [UInt8]) -> (PlannedWrite.Technology, [UInt8])? {
        guard let code = command.first else { return nil }
        if code == Type1Command.writeErase || code == Type1Command.writeNoErase, command.count == 7 {
            return (.type1, [command[1], command[2]])
        }
        if code == Type1Command.writeErase8 || code == Type1Command.writeNoErase8, command.count == 14 {
            return (.type1, Array(command[1..<10]))
        }
        return nil
    }

    /// Keeps what the held-back write `command` (one ``writeClass(_:)`` accepts) sets.
    mutating func record(_ command: [UInt8]) {
        guard let (_, answer) = Self.writeClass(command) else { return }
        switch command[0] {
        case Type1Command.writeErase:
            set(Int(command[1] & 0x7F), answer[1], erase: true)
        case Type1Command.writeNoErase:
            set(Int(command[1] & 0x7F), answer[1], erase: false)
        default:
            let start = Int(command[1]) * Type1Memory.blockSize
            for (offset, byte) in answer.dropFirst().enumerated() {
                set(start + offset, byte, erase: command[0] == Type1Command.writeErase8)
            }
        }
    }

    private mutating func set(_ address: Int, _ value: UInt8, erase: Bool) {
        if erase {
            erased[address] = value
            ored[address] = nil
        } else {
            ored[address, default: 0] |= value
        }
    }

    /// The byte at `address` as the plan leaves it, over `stored` as the tag holds it.
    private func byte(_ address: Int, over stored: UInt8) -> UInt8 {
        (erased[address] ?? stored) | (ored[address] ?? 0)
    }

    /// `answer` to the read `command` with the planned bytes laid over it: READ (`ADD DATA` or
    /// the data byte alone), RALL (HR0 HR1, bytes 0…119), READ8 (`ADD8`, 8 bytes), RSEG
    /// (`ADDS`, 128 bytes). An answer of another shape, or to another command, as it came.
    func overlay(_ answer: [UInt8], on command: [UInt8]) -> [UInt8] {
        guard !(erased.isEmpty && ored.isEmpty), let code = command.first, command.count >= 2 else { return answer }
        var result = answer
        func lay(from start: Int, at offset: Int, count: Int) {
            for index in 0..<count {
                result[offset + index] = byte(start + index, over: result[offset + index])
            }
        }
        switch code {
        case Type1Command.read where answer.count == 1 || answer.count == 2:
            lay(from: Int(command[1] & 0x7F), at: answer.count - 1, count: 1)
        case Type1Command.readAll where answer.count == 2 + Type1Memory.staticSize:
            lay(from: 0, at: 2, count: Type1Memory.staticSize)
        case Type1Command.read8 where answer.count == 1 + Type1Memory.blockSize:
            lay(from: Int(command[1]) * Type1Memory.blockSize, at: 1, count: Type1Memory.blockSize)
        case Type1Command.readSegment where answer.count == 1 + Type1Memory.segmentSize:
            lay(from: Int(command[1] >> 4) * Type1Memory.segmentSize, at: 1, count: Type1Memory.segmentSize)
        default:
            break
        }
        return result
    }
}
