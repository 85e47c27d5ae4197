import NFCCore
#if canImport(Glibc)
import Glibc
#endif

/// The virtual-card end of vsmartcard's vpcd protocol over TCP: vpcd (loaded by pcscd as a
/// reader driver) listens on a port; the card connects. Every message, both ways, is a 2-byte
/// big-endian length and that many bytes. A 1-byte message from vpcd is a control command
/// (``Control``); any longer one is a command APDU, answered by the response APDU. An ATR request
/// is answered by the ATR. While the connection is up, pcscd sees a card in the reader.
public final class VPCDConnection {
    /// vpcd's 1-byte control commands.
    public enum Control: UInt8, Sendable {
        /// Power the card off.
        case powerOff = 0
        /// Power the card on.
        case powerOn = 1
        /// Reset the card.
        case reset = 2
        /// Send the ATR.
        case atrRequest = 4
    }

    /// What vpcd sent.
    public enum Message: Sendable, Hashable {
        /// A control command.
        case control(UInt8)
        /// A command APDU.
        case apdu([UInt8])
    }

    /// Why the connection could not be made or ended.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        /// A human explanation.
        public var description: String
    }

    private let socket: Int32
    /// The socket's descriptor, for `poll`.
    public var descriptor: Int32 { socket }

    /// Connects to vpcd at `host` (an IPv4 address) and `port`.
    /// - Throws: ``Failure`` when nothing listens there.
    public init(host: String, port: UInt16) throws(Failure) {
        let fd = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket() failed: errno \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else {
            Glibc.close(fd)
            throw Failure(description: "'\(host)' is not an IPv4 address")
        }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else {
            let code = errno
            Glibc.close(fd)
            throw Failure(description: "cannot connect to vpcd at \(host):\(port): errno \(code)")
        }
        var one: Int32 = 1
        _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        socket = fd
    }

    deinit { Glibc.close(socket) }

    /// Closes the connection: pcscd sees the card leave.
    public func close() { shutdown(socket, Int32(SHUT_RDWR)) }

    /// The next message; nil when vpcd closed the connection.
    public func receive() -> Message? {
        guard let header = read(count: 2) else { return nil }
        let length = Int(header[0]) << 8 | Int(header[1])
        guard length > 0, let body = read(count: length) else { return length == 0 ? .apdu([]) : nil }
        return length == 1 ? .control(body[0]) : .apdu(body)
    }

    /// Sends one message (an ATR or a response APDU).
    /// - Returns: false when the connection is gone.
    @discardableResult
    public func send(_ bytes: [UInt8]) -> Bool {
        guard bytes.count <= 0xFFFF else { return false }
        let message = [UInt8(bytes.count >> 8), UInt8(bytes.count & 0xFF)] + bytes
        var offset = 0
        while offset < message.count {
            let sent = message[offset...].withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent <= 0 { return false }
            offset += sent
        }
        return true
    }

    private func read(count: Int) -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: count)
        var offset = 0
        while offset < count {
            let got = buffer[offset...].withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            if got <= 0 { return nil }
            offset += got
        }
        return buffer
    }
}

/// Serves one vpcd connection with a reader until vpcd closes it.
public enum VPCDService {
    /// Why ``serve(_:reader:control:log:)`` returned.
    public enum End: Sendable, Hashable {
        /// vpcd closed the connection (pcscd stopped).
        case closed
        /// A `remove` line came on the control descriptor: the card is to leave the reader.
        case removeRequested
        /// vpcd reset the card (a client disconnected with SCARD_RESET_CARD) and
        /// `handOutOnReset` was set: the card is to leave and the next of the stack to come.
        case handOut
        /// A `next` line came on the control descriptor: the card leaves, the next comes.
        case nextRequested
        /// The tag left the field (a fault plan's `leave-after`/`leave-during`): the card leaves
        /// the reader as it would from a real one, torn mid-operation.
        case tagLeft
    }

    /// Answers vpcd's messages with `reader` until the connection ends, a `remove` or `next`
    /// line comes on `control` (end of file there is ignored), or — with `handOutOnReset` — vpcd
    /// resets the card; `log` gets one line per exchange (`> APDU`
    /// / `< response`) when given.
    public static func serve(
        _ connection: VPCDConnection, reader: GenericPart3Reader, control: LineReader? = nil, handOutOnReset: Bool = false,
        log: ((String) -> Void)? = nil
    ) -> End {
        var handOutAfterATR = false
        // The sticker was taken away after a client's reset: the field is empty (commands get
        // the reader's "no tag" answer) and the card leaves the reader at vpcd's next presence
        // poll (an ATR request), which goes unanswered. Only then does vpcd — and so pcscd —
        // see the card absent; leaving at once and reconnecting let pcscd's poll find a card
        // again without ever seeing it gone, so it kept the old card's state (handles, power,
        // protocol) for the next sticker and changed it later, under a client mid-operation.
        var leaving = false
        while true {
            if let control, control.isOpen {
                var fds = [pollfd(fd: connection.descriptor, events: Int16(POLLIN), revents: 0),
                           pollfd(fd: control.descriptor, events: Int16(POLLIN), revents: 0)]
                guard poll(&fds, 2, -1) >= 0 else { continue }
                if fds[1].revents != 0 {
                    let lines = control.readLines()
                    if lines.contains("remove") { return .removeRequested }
                    if lines.contains("next") { return .nextRequested }
                    if fds[0].revents == 0 { continue }
                }
            }
            guard let message = connection.receive() else { return .closed }
            switch message {
            case .control(let byte):
                log?("# control \(byte)")
                switch VPCDConnection.Control(rawValue: byte) {
                case .atrRequest:
                    if leaving {
                        log?("# presence poll: the card leaves, the next comes")
                        return .handOut
                    }
                    guard connection.send(reader.atr?.array ?? []) else { return .closed }
                    if handOutAfterATR {
                        handOutAfterATR = false
                        leaving = true
                        reader.field.removeTag()
                        log?("# reset: the sticker is taken away")
                    }
                case .reset where handOutOnReset:
                    // vpcd follows a reset with an ATR request: the reset completes first (else
                    // pcscd marks the reader's card mute), then the sticker is taken away and the
                    // card leaves at the next presence poll.
                    reader.reset()
                    handOutAfterATR = true
                case .powerOn, .reset:
                    reader.reset()
                case .powerOff:
                    reader.field.currentTag?.halt()
                case nil:
                    log?("# unknown vpcd control byte \(byte)")
                }
            case .apdu(let apdu):
                let hadTag = reader.field.currentTag != nil
                let response = reader.respond(to: apdu)
                log?("> " + Hex.encode(apdu))
                if hadTag && reader.field.currentTag == nil {
                    // Torn: the tag left inside this command (its answer is lost) or right
                    // after it (the answer arrives); then the reader loses the card.
                    if reader.field.faultPlan.leaveDuringCommand != reader.field.commandCount {
                        log?("< " + Hex.encode(response))
                        _ = connection.send(response)
                    }
                    log?("# the tag left the field")
                    return .tagLeft
                }
                log?("< " + Hex.encode(response))
                guard connection.send(response) else { return .closed }
                if let tag = reader.field.currentTag, !tag.answersPoll {
                    // The chip stopped answering polls (an ICODE chip's ENABLE PRIVACY): a real
                    // reader's next inventory finds nothing, so the card leaves the reader.
                    log?("# the tag answers no poll any more: the card leaves")
                    return .tagLeft
                }
            }
        }
    }

}

/// Lines from a file descriptor (the emulator's standard input), read without blocking once
/// `poll` says there is something.
public final class LineReader {
    /// The descriptor read.
    public let descriptor: Int32
    /// False after end of file.
    public private(set) var isOpen = true
    private var pending: [UInt8] = []

    /// Reads lines from `descriptor`.
    public init(descriptor: Int32) { self.descriptor = descriptor }

    /// Reads what is there (one `read`) and returns the complete lines, trimmed.
    public func readLines() -> [String] {
        var buffer = [UInt8](repeating: 0, count: 256)
        let got = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
        if got <= 0 {
            isOpen = false
            return []
        }
        pending += buffer.prefix(got)
        var lines: [String] = []
        while let end = pending.firstIndex(of: 0x0A) {
            lines.append(String(decoding: pending[..<end], as: UTF8.self).trimmingSpaces())
            pending.removeSubrange(...end)
        }
        return lines
    }

    /// Blocks until a line equal to `wanted` comes; false at end of file.
    public func wait(for wanted: String) -> Bool {
        wait(forAnyOf: [wanted]) != nil
    }

    /// Blocks until a line equal to one of `wanted` comes and returns it; nil at end of file.
    public func wait(forAnyOf wanted: Set<String>) -> String? {
        while isOpen {
            var fds = [pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)]
            guard poll(&fds, 1, -1) >= 0 else { continue }
            if let line = readLines().first(where: { wanted.contains($0) }) { return line }
        }
        return nil
    }
}

extension String {
    fileprivate func trimmingSpaces() -> String {
        var scalars = Substring(self)
        while let last = scalars.last, last == " " || last == "\r" || last == "\t" { scalars.removeLast() }
        while let first = scalars.first, first == " " || first == "\t" { scalars.removeFirst() }
        return String(scalars)
    }
}
