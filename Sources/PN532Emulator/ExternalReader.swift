import Foundation
import NFCCore
import NFCTags

/// The procedure the emulator's virtual external reader runs against the host in target mode
/// (`--external-reader`).
public enum ExternalReaderProcedure: Sendable, Hashable {
    /// The NFC Forum Type 4 NDEF read procedure (T4T 2.0 §5.4.2): SELECT the NDEF application,
    /// SELECT and READ BINARY the capability container, SELECT the NDEF file, READ its NLEN,
    /// then READ BINARY the message in parts of at most MLe bytes.
    case type4Read
    /// The NFC Forum Type 4 NDEF update procedure (T4T 2.0 §5.4.3): the read procedure's
    /// selections, then UPDATE BINARY NLEN 0000, the message in parts of at most MLc bytes, and
    /// the real NLEN.
    case type4Write([UInt8])
    /// A script: these C-APDUs in order, whatever the answers (`script:<file>`, one hex APDU a
    /// line; blank lines and lines starting with `#` are skipped).
    case script([[UInt8]])

    /// Parses `type4-read`, `type4-write:<hex NDEF message>` or `script:<file>` (the file is
    /// read now); nil when it is none of them, or the file is unreadable, empty or not hex.
    public init?(argument: String) {
        if argument.hasPrefix("script:") {
            guard let text = try? String(contentsOfFile: String(argument.dropFirst("script:".count)), encoding: .utf8) else { return nil }
            var commands: [[UInt8]] = []
            for line in text.split(whereSeparator: \.isNewline) {
                let trimmed = String(line).trimmingWhitespace()
                if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
                guard let apdu = try? Hex.decode(trimmed), apdu.count >= 4, apdu.count <= 261 else { return nil }
                commands.append(apdu)
            }
            guard !commands.isEmpty else { return nil }
            self = .script(commands)
            return
        }
        if argument == "type4-read" {
            self = .type4Read
            return
        }
        let prefix = "type4-write:"
        guard argument.hasPrefix(prefix), let message = try? Hex.decode(String(argument.dropFirst(prefix.count))),
              !message.isEmpty, message.count <= 0xFFFD else { return nil }
        self = .type4Write(message)
    }
}

/// A virtual external reader (a phone, a door reader) that comes to the emulated PN532 while
/// the host has put it in target mode, runs an ISO-DEP APDU exchange, and leaves the field.
///
/// The reader is a state machine the chip drives: ``nextCommand()`` gives the C-APDU it
/// sends next (the host fetches it with TgGetData), ``receive(_:)`` takes the host's R-APDU
/// (TgSetData). Each step and the outcome go to ``log`` (and the `--reader-log` file), so tests
/// can assert what the reader read or wrote.
public final class ExternalReader {
    /// Ways the procedure ends.
    public enum Outcome: Sendable, Hashable {
        /// The read procedure read this NDEF message.
        case read([UInt8])
        /// The update procedure wrote its whole message.
        case wrote(Int)
        /// The script sent all its commands.
        case ranScript(Int)
        /// A step was refused: the step's name and the status word.
        case refused(String, UInt16)
        /// The host's answers made no sense (short answer, bad capability container).
        case failed(String)
    }

    /// The procedure it runs.
    public let procedure: ExternalReaderProcedure
    /// One line per event: `activated …`, `> C-APDU`, `< R-APDU`, and the outcome
    /// (`read <hex>`, `wrote <n> bytes`, `refused <step> <SW>`, `failed <reason>`), then `left`.
    public private(set) var log: [String] = []
    /// How the procedure ended; nil while it runs.
    public private(set) var outcome: Outcome?
    /// Whether it has been in the field already (it comes once per emulator run).
    public private(set) var hasCome = false
    /// Called with each new log line.
    public var onLog: ((String) -> Void)?

    private enum Step {
        case selectApplication, selectCapabilityContainer, readCapabilityContainer, selectNDEFFile
        case readLength, readData
        case clearLength, writeData, writeLength
        case done
    }

    private var step = Step.selectApplication
    private var maximumRead = 0x0F
    private var maximumUpdate = 0x0F
    private var ndefFileID: [UInt8] = []
    private var messageLength = 0
    private var message: [UInt8] = []
    private var offset = 0
    private var lastCommand: [UInt8] = []
    private var scriptIndex = 0

    /// SELECT by name (P1 04) of the NDEF application D2760000850101 (T4T 2.0 §5.4.2).
    static let selectApplication: [UInt8] =
        [0x00, Type4Command.select, Type4Command.selectByNameP1, 0x00, UInt8(Type4Command.ndefTagApplicationID.count)]
        + Type4Command.ndefTagApplicationID + [0x00]
    /// The capability container's file identifier, E103 (T4T 2.0 §5.1).
    static let capabilityContainerID: [UInt8] = [
        UInt8(Type4Command.capabilityContainerFileID >> 8), UInt8(Type4Command.capabilityContainerFileID & 0xFF),
    ]
    /// SELECT by file identifier, no FCI (P1 00, P2 0C), with Lc 2: the file ID follows.
    static let selectFile: [UInt8] = [0x00, Type4Command.select, Type4Command.selectByFileIDP1, Type4Command.selectByFileIDP2, 0x02]

    /// A reader that will run `procedure` once.
    public init(procedure: ExternalReaderProcedure) {
        self.procedure = procedure
    }

    /// The reader enters the field and activates the target the host configured.
    public func activate(uid: [UInt8], atqa: [UInt8], sak: UInt8) {
        hasCome = true
        record("activated uid \(TraceLog.hex(uid).replacingSpaces) atqa \(TraceLog.hex(atqa).replacingSpaces) sak \(TraceLog.hex([sak]))")
    }

    /// The reader gave up before activating: the host's target mode cannot be reached.
    public func reject(_ reason: String) {
        hasCome = true
        finish(.failed(reason))
    }

    /// The C-APDU to send next; nil when the reader is done and leaves the field.
    public func nextCommand() -> [UInt8]? {
        let command: [UInt8]?
        if case .script(let commands) = procedure {
            command = step == .done ? nil : commands[scriptIndex]
        } else {
            command = procedureCommand()
        }
        if let command {
            lastCommand = command
            record("> \(TraceLog.hex(command).replacingSpaces)")
        } else {
            record("left")
        }
        return command
    }

    /// The next command of a Type 4 procedure, per ``step``.
    private func procedureCommand() -> [UInt8]? {
        switch step {
        case .selectApplication: Self.selectApplication
        case .selectCapabilityContainer: Self.selectFile + Self.capabilityContainerID
        case .readCapabilityContainer: readBinary(offset: 0, count: 0x0F)
        case .selectNDEFFile: Self.selectFile + ndefFileID
        case .readLength: readBinary(offset: 0, count: 2)
        case .readData: readBinary(offset: offset + 2, count: min(maximumRead, messageLength - offset, 0xFF))
        case .clearLength: updateBinary(offset: 0, [0x00, 0x00])
        case .writeData:
            updateBinary(offset: offset + 2, Array(message[offset..<offset + min(maximumUpdate, message.count - offset, 0xFF)]))
        case .writeLength: updateBinary(offset: 0, [UInt8(message.count >> 8), UInt8(message.count & 0xFF)])
        case .done: nil
        }
    }

    /// Takes the host's answer to the last command.
    public func receive(_ response: [UInt8]) {
        record("< \(TraceLog.hex(response).replacingSpaces)")
        guard step != .done else { return }
        if case .script(let commands) = procedure {
            // A script goes on whatever the answers.
            scriptIndex += 1
            if scriptIndex == commands.count { finish(.ranScript(commands.count)) }
            return
        }
        guard response.count >= 2 else { return finish(.failed("an answer of \(response.count) bytes has no status word")) }
        let word = UInt16(response[response.count - 2]) << 8 | UInt16(response[response.count - 1])
        let data = Array(response.dropLast(2))
        guard word == 0x9000 else { return finish(.refused(stepName, word)) }
        switch step {
        case .selectApplication: step = .selectCapabilityContainer
        case .selectCapabilityContainer: step = .readCapabilityContainer
        case .readCapabilityContainer:
            // CCLEN(2) mapping version(1) MLe(2) MLc(2), then the NDEF File Control TLV 04 06:
            // file ID(2), maximum size(2), read access(1), write access(1) (T4T 2.0 §5.1).
            guard data.count >= 15, data[7] == 0x04, data[8] >= 0x06 else {
                return finish(.failed("capability container \(TraceLog.hex(data).replacingSpaces) has no NDEF File Control TLV"))
            }
            maximumRead = max(1, Int(data[3]) << 8 | Int(data[4]))
            maximumUpdate = max(1, Int(data[5]) << 8 | Int(data[6]))
            ndefFileID = Array(data[9...10])
            step = .selectNDEFFile
        case .selectNDEFFile:
            if case .type4Write(let bytes) = procedure {
                message = bytes
                step = .clearLength
            } else {
                step = .readLength
            }
        case .readLength:
            guard data.count == 2 else { return finish(.failed("NLEN answer of \(data.count) bytes")) }
            messageLength = Int(data[0]) << 8 | Int(data[1])
            offset = 0
            if messageLength == 0 { return finish(.read([])) }
            step = .readData
        case .readData:
            guard !data.isEmpty, data.count <= messageLength - offset else {
                return finish(.failed("READ BINARY answered \(data.count) bytes"))
            }
            message += data
            offset += data.count
            if offset == messageLength { finish(.read(message)) }
        case .clearLength:
            offset = 0
            step = .writeData
        case .writeData:
            offset += Int(lastCommand[4])
            if offset == message.count { step = .writeLength }
        case .writeLength:
            finish(.wrote(message.count))
        case .done:
            break
        }
    }

    /// The reader leaves before finishing (the host ended target mode).
    public func interrupt() {
        if step != .done { finish(.failed("the host ended target mode at \(stepName)")) }
    }

    private var stepName: String {
        switch step {
        case .selectApplication: "select-application"
        case .selectCapabilityContainer: "select-cc"
        case .readCapabilityContainer: "read-cc"
        case .selectNDEFFile: "select-ndef"
        case .readLength: "read-nlen"
        case .readData: "read-data"
        case .clearLength: "update-nlen-0"
        case .writeData: "update-data"
        case .writeLength: "update-nlen"
        case .done: "done"
        }
    }

    private func finish(_ result: Outcome) {
        step = .done
        outcome = result
        switch result {
        case .read(let bytes): record("read \(TraceLog.hex(bytes).replacingSpaces)")
        case .wrote(let count): record("wrote \(count) bytes")
        case .ranScript(let count): record("ran \(count) commands")
        case .refused(let name, let word): record("refused \(name) \(TraceLog.hex([UInt8(word >> 8), UInt8(word & 0xFF)]).replacingSpaces)")
        case .failed(let reason): record("failed \(reason)")
        }
    }

    private func readBinary(offset: Int, count: Int) -> [UInt8] {
        [0x00, Type4Command.readBinary, UInt8(offset >> 8), UInt8(offset & 0xFF), UInt8(count)]
    }

    private func updateBinary(offset: Int, _ data: [UInt8]) -> [UInt8] {
        [0x00, Type4Command.updateBinary, UInt8(offset >> 8), UInt8(offset & 0xFF), UInt8(data.count)] + data
    }

    private func record(_ line: String) {
        log.append(line)
        onLog?(line)
    }
}

extension String {
    /// Hex without the spaces between bytes.
    var replacingSpaces: String { String(filter { $0 != " " }) }
}
