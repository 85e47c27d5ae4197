public import NFCCore

/// A FeliCa tag (JIS X 6319-4): CoreNFC's `NFCFeliCaTag`. NDEF goes through the NFC Forum
/// Type 3 mapping.
public struct FeliCaTag: Sendable {
    /// The reader that polled the tag.
    public let reader: any NFCReader
    /// What polling returned (IDm, PMm, system code).
    public let target: FeliCaTarget
    /// What identification found.
    public let identity: ChipIdentity
    /// The timeout of each command.
    public var commandTimeout: Duration

    /// Wraps a polled target.
    public init(reader: any NFCReader, target: FeliCaTarget, identity: ChipIdentity, commandTimeout: Duration = .seconds(1)) {
        self.reader = reader
        self.target = target
        self.identity = identity
        self.commandTimeout = commandTimeout
    }

    /// The IDm of the system polled.
    public var currentIDm: Bytes { target.idm }

    /// The system code polled for, when known.
    public var currentSystemCode: UInt16? { target.systemCode }

    /// The NDEF mapping (NFC Forum Type 3): a ``Type3Tag`` over this tag's commands.
    public var ndefPlatform: any NFCNDEFTag { Type3Tag(feliCa: self) }

    /// Whether PMm names a FeliCa Lite-S (IC type `F1`) or a FeliCa Link in Lite-S mode (`F2`),
    /// whose memory configuration block ``Type3Tag`` uses to lock and format.
    public var isFeliCaLiteS: Bool {
        target.pmm.count >= 2 && (target.pmm[1] == 0xF1 || target.pmm[1] == 0xF2)
    }

    // MARK: - Commands (CoreNFC NFCFeliCaTag)

    /// Polling (JIS X 6319-4, 11.2.2.5): asks cards of `systemCode` (`FF` in a byte matches
    /// any) to answer.
    /// - Returns: PMm (8 bytes) and the request data (the system code or the communication
    ///   performance, 2 bytes; empty for ``FeliCaPollingRequestCode/noRequest``).
    /// - Throws: ``NFCTagError`` `connectionLost` when no card answers; `tagResponse` (with the
    ///   offset in the answer) for a wrong response code or length.
    public func polling(
        systemCode: UInt16, requestCode: FeliCaPollingRequestCode = .noRequest, timeSlot: FeliCaPollingTimeSlot = .max1
    ) async throws(NFCTagError) -> (manufactureParameter: Bytes, requestData: Bytes) {
        let answer = try await pollingAnswer(systemCode: systemCode, requestCode: requestCode, timeSlot: timeSlot)
        return (answer.pmm, answer.requestData)
    }

    /// ``polling(systemCode:requestCode:timeSlot:)`` with the IDm of the answer, which names the
    /// system that matched (on a multi-system card, not necessarily ``currentIDm``).
    func pollingAnswer(
        systemCode: UInt16, requestCode: FeliCaPollingRequestCode, timeSlot: FeliCaPollingTimeSlot
    ) async throws(NFCTagError) -> (idm: Bytes, pmm: Bytes, requestData: Bytes) {
        let command = Bytes([Type3Command.polling, UInt8(systemCode >> 8), UInt8(systemCode & 0xFF), requestCode.rawValue, timeSlot.rawValue])
        let answer = try await send(command, what: "Polling \(Hex.encode([UInt8(systemCode >> 8), UInt8(systemCode & 0xFF)], uppercase: true))")
        let expected = 1 + 2 * Type3Command.idmLength + (requestCode == .noRequest ? 0 : 2)
        guard answer.first == Type3Command.polling + 1 else {
            throw NFCTagError(.tagResponse, at: 0, "Polling answered response code \(answer.first.map { hexByte($0) } ?? "none"), not 01")
        }
        guard answer.count >= expected else {
            throw NFCTagError(.tagResponse, at: answer.count, "Polling answered \(answer.count) bytes, not \(expected)")
        }
        return (answer[1..<(1 + Type3Command.idmLength)], answer[(1 + Type3Command.idmLength)..<(1 + 2 * Type3Command.idmLength)],
                answer[(1 + 2 * Type3Command.idmLength)..<expected])
    }

    /// Request Service (JIS X 6319-4, 11.2.2.6): the key versions of up to 32 area or service
    /// codes; `FFFF` for a node the card does not have.
    /// - Throws: ``NFCTagError`` `invalidParameter` (0 or more than 32 nodes; nothing sent),
    ///   `tagResponse` for a malformed answer, `connectionLost`.
    public func requestService(nodeCodeList: [UInt16]) async throws(NFCTagError) -> [UInt16] {
        guard (1...32).contains(nodeCodeList.count) else {
            throw NFCTagError(.invalidParameter, "Request Service takes 1 to 32 node codes, not \(nodeCodeList.count)")
        }
        let parameters = [UInt8(nodeCodeList.count)] + nodeCodeList.flatMap(Self.littleEndian)
        let body = try await exchange(Type3Command.requestService, parameters, what: "Request Service")
        let expected = 1 + 2 * nodeCodeList.count
        guard body.count >= expected, Int(body[body.startIndex]) == nodeCodeList.count else {
            throw NFCTagError(
                .tagResponse, at: Self.bodyOffset + min(body.count, expected),
                "Request Service answered \(body.count) bytes after the IDm, not \(expected) for \(nodeCodeList.count) nodes")
        }
        return (0..<nodeCodeList.count).map { i in
            UInt16(body[body.startIndex + 1 + 2 * i]) | UInt16(body[body.startIndex + 2 + 2 * i]) << 8
        }
    }

    /// Request Response (JIS X 6319-4, 11.2.2.7): the card's mode (0 after polling; 1–3 during
    /// mutual authentication of a standard FeliCa).
    /// - Throws: ``NFCTagError`` `tagResponse` for a malformed answer, `connectionLost`.
    public func requestResponse() async throws(NFCTagError) -> Int {
        let body = try await exchange(Type3Command.requestResponse, [], what: "Request Response")
        guard let mode = body.first else {
            throw NFCTagError(.tagResponse, at: Self.bodyOffset, "Request Response answered no mode")
        }
        return Int(mode)
    }

    /// Read Without Encryption (JIS X 6319-4, 11.2.2.8): blocks of services that need no key.
    /// - Returns: the status flags (always `00 00`: other values throw) and one 16-byte block
    ///   per element of `blockList`.
    /// - Throws: ``NFCTagError`` `tagResponse` naming the status flags when they are not
    ///   `00 00` (offset: the byte address `block × 16` of the element at fault, when status
    ///   flag 1 names one), or for a malformed answer; `invalidParameter` for 0 or more than 16
    ///   services, an empty block list or a frame longer than 254 bytes (nothing sent);
    ///   `connectionLost`.
    public func readWithoutEncryption(
        serviceCodeList: [UInt16], blockList: [FeliCaBlockListElement]
    ) async throws(NFCTagError) -> (statusFlag1: UInt8, statusFlag2: UInt8, blocks: [Bytes]) {
        let parameters = try Self.serviceAndBlockList(serviceCodeList, blockList)
        let answerLength = 1 + Type3Command.idmLength + 3 + Type3Command.blockSize * blockList.count
        guard answerLength <= Type3Command.maximumFrameLength else {
            throw NFCTagError(.invalidParameter, "\(blockList.count) blocks do not fit one FeliCa answer")
        }
        let what = "Read Without Encryption of \(Self.describe(blockList))"
        let body = try await exchange(Type3Command.readWithoutEncryption, parameters, what: what)
        let flags = try Self.statusFlags(body, blockList, what: what)
        let expected = 3 + Type3Command.blockSize * blockList.count
        guard body.count >= expected, Int(body[body.startIndex + 2]) == blockList.count else {
            throw NFCTagError(
                .tagResponse, at: Self.bodyOffset + min(body.count, 2),
                "\(what) answered \(body.count) bytes after the IDm, not \(expected)")
        }
        let blocks = (0..<blockList.count).map { i in
            let start = body.startIndex + 3 + Type3Command.blockSize * i
            return body[start..<(start + Type3Command.blockSize)]
        }
        return (flags.flag1, flags.flag2, blocks)
    }

    /// Write Without Encryption (JIS X 6319-4, 11.2.2.9): one 16-byte block per element of
    /// `blockList`.
    /// - Returns: the status flags (always `00 00`: other values throw).
    /// - Throws: ``NFCTagError`` `invalidParameter` when `blockData` does not hold one 16-byte
    ///   block per element, or the frame would exceed 254 bytes (nothing sent); `tagResponse`
    ///   naming the status flags (offset: the element's byte address) or for a malformed
    ///   answer; `connectionLost`.
    @discardableResult
    public func writeWithoutEncryption(
        serviceCodeList: [UInt16], blockList: [FeliCaBlockListElement], blockData: [Bytes]
    ) async throws(NFCTagError) -> (statusFlag1: UInt8, statusFlag2: UInt8) {
        guard blockData.count == blockList.count, blockData.allSatisfy({ $0.count == Type3Command.blockSize }) else {
            throw NFCTagError(
                .invalidParameter, "Write Without Encryption needs one 16-byte block per element: \(blockList.count) elements, blocks of \(blockData.map(\.count))")
        }
        let parameters = try Self.serviceAndBlockList(serviceCodeList, blockList) + blockData.flatMap(\.array)
        guard 1 + Type3Command.idmLength + parameters.count <= Type3Command.maximumFrameLength else {
            throw NFCTagError(.invalidParameter, "\(blockList.count) blocks do not fit one FeliCa frame")
        }
        let what = "Write Without Encryption of \(Self.describe(blockList))"
        let body = try await exchange(Type3Command.writeWithoutEncryption, parameters, what: what)
        let flags = try Self.statusFlags(body, blockList, what: what)
        return (flags.flag1, flags.flag2)
    }

    /// Request System Code (FeliCa Card User's Manual, "Request System Code"): the system codes
    /// of the card's systems, in system order.
    /// - Throws: ``NFCTagError`` `tagResponse` for a malformed answer, `connectionLost`.
    public func requestSystemCode() async throws(NFCTagError) -> [UInt16] {
        let body = try await exchange(Type3Command.requestSystemCode, [], what: "Request System Code")
        guard let count = body.first, body.count >= 1 + 2 * Int(count) else {
            throw NFCTagError(.tagResponse, at: Self.bodyOffset + body.count, "Request System Code answered \(body.count) bytes after the IDm")
        }
        return (0..<Int(count)).map { i in
            UInt16(body[body.startIndex + 1 + 2 * i]) << 8 | UInt16(body[body.startIndex + 2 + 2 * i])
        }
    }

    // MARK: - Framing

    /// Where the parameters of an answer start: response code and IDm come first.
    static let bodyOffset = 1 + Type3Command.idmLength

    private static func littleEndian(_ value: UInt16) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8)] }

    private static func describe(_ blockList: [FeliCaBlockListElement]) -> String {
        "block\(blockList.count == 1 ? "" : "s") " + blockList.map { "0x" + Hex.number($0.blockNumber) }.joined(separator: ",")
    }

    /// Number of services, service code list (little-endian), number of blocks, block list.
    private static func serviceAndBlockList(_ services: [UInt16], _ blocks: [FeliCaBlockListElement]) throws(NFCTagError) -> [UInt8] {
        guard (1...16).contains(services.count) else {
            throw NFCTagError(.invalidParameter, "a FeliCa read or write takes 1 to 16 services, not \(services.count)")
        }
        guard !blocks.isEmpty, blocks.count <= 0xFF else {
            throw NFCTagError(.invalidParameter, "a FeliCa read or write takes 1 to 255 block list elements, not \(blocks.count)")
        }
        var bytes = [UInt8(services.count)] + services.flatMap(littleEndian) + [UInt8(blocks.count)]
        for element in blocks {
            guard Int(element.serviceCodeListOrder) < services.count else {
                throw NFCTagError(.invalidParameter, "\(element) names a service beyond the \(services.count) listed")
            }
            bytes += try element.encoded()
        }
        return bytes
    }

    /// The status flags at the front of `body`; not `00 00` throws `tagResponse`.
    private static func statusFlags(_ body: Bytes, _ blocks: [FeliCaBlockListElement], what: String) throws(NFCTagError) -> FeliCaStatusFlags {
        guard body.count >= 2 else {
            throw NFCTagError(.tagResponse, at: bodyOffset + body.count, "\(what) answered no status flags")
        }
        let flags = FeliCaStatusFlags(body[body.startIndex], body[body.startIndex + 1])
        guard flags.isSuccess else {
            let block = flags.elementIndex.flatMap { $0 < blocks.count ? blocks[$0] : nil }
            throw NFCTagError(.tagResponse, at: block.map { Int($0.blockNumber) * Type3Command.blockSize }, "\(what): \(flags)")
        }
        return flags
    }

    /// Sends `code`, the IDm and `parameters`; checks the response code and IDm and returns
    /// what follows the IDm.
    private func exchange(_ code: UInt8, _ parameters: [UInt8], what: String) async throws(NFCTagError) -> Bytes {
        let answer = try await send(Bytes([code] + target.idm.array + parameters), what: what)
        guard answer.first == code &+ 1 else {
            throw NFCTagError(
                .tagResponse, at: 0,
                "\(what) answered response code \(answer.first.map { hexByte($0) } ?? "none"), not \(hexByte(code &+ 1))")
        }
        guard answer.count >= Self.bodyOffset else {
            throw NFCTagError(.tagResponse, at: answer.count, "\(what) answered \(answer.count) bytes, too short for the IDm")
        }
        guard answer[1..<Self.bodyOffset] == target.idm else {
            throw NFCTagError(
                .tagResponse, at: 1,
                "\(what) answered for IDm \(Hex.encode(answer[1..<Self.bodyOffset])), not \(Hex.encode(target.idm))")
        }
        return answer[from: Self.bodyOffset]
    }

    private func send(_ command: Bytes, what: String) async throws(NFCTagError) -> Bytes {
        do {
            return try await reader.transceive(command, mode: .standard, timeout: commandTimeout)
        } catch {
            throw NFCTagError(error, during: what)
        }
    }
}

/// NDEF through the Type 3 mapping (``ndefPlatform``).
extension FeliCaTag: NFCNDEFPlatformTag {
    /// Whether this tag is still in the field: ``NFCReader/isTargetPresent()`` of its reader.
    public func isPresent() async -> Bool { await reader.isTargetPresent() }
}
