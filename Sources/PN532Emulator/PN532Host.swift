#if canImport(Glibc)
import Glibc
#endif

/// Runs an emulated PN532 on a pseudo-terminal: reads host frames, answers them as the chip
/// does on HSU (ACK first, then the response or the error frame, UM0701-02 §6.2.1, §6.3), and
/// takes control commands that move tags in and out of the field.
///
/// Everything — pty, decoder, chip, tags — is owned by the thread that calls ``run(control:)``;
/// nothing is shared, so there is nothing to race on.
public final class PN532Host {
    /// The chip being emulated.
    public let chip: PN532Chip
    /// The pty the host side opens.
    public let terminal: PseudoTerminal
    private let trace: TraceLog?
    private var decoder = PN532FrameDecoder()
    private var lastResponse: [UInt8]?
    private var controlBuffer: [UInt8] = []
    private var running = true
    private var pendingDeadline: Double?
    private var lastReceived = 0.0

    /// Seconds per byte on the host link at 115 200 baud, 10 bits per byte (UM0701 §6.2.2).
    public static let linkSecondsPerByte = 10.0 / 115_200

    /// The time `--delay-model datasheet` takes for one command: the tag's time plus the command
    /// and answer frames' bytes on the link at 115 200 baud.
    public static func modelledSeconds(tagTime: Duration, linkBytes: Int) -> Double {
        tagTime.secondsValue + Double(linkBytes) * linkSecondsPerByte
    }

    /// The trace note of one modelled answer: `delay 7.257 ms: tag 5 ms + 26 link bytes`
    /// (`Scripts/bench-batch` and the tests sum them).
    public static func delayNote(seconds: Double, tagTime: Duration, linkBytes: Int) -> String {
        let milliseconds = (seconds * 1_000_000).rounded() / 1000
        let tag = (tagTime.secondsValue * 1_000_000).rounded() / 1000
        return "delay \(milliseconds) ms: tag \(tag) ms + \(linkBytes) link bytes"
    }

    /// A host for `chip` on `terminal`, tracing to `trace` if given.
    public init(chip: PN532Chip, terminal: PseudoTerminal, trace: TraceLog? = nil) {
        self.chip = chip
        self.terminal = terminal
        self.trace = trace
    }

    /// Serves until the control channel says `quit` or the pty fails. `control` is a file
    /// descriptor of text lines (standard input or a FIFO); `reply` gets each control answer.
    public func run(control: Int32?, reply: (String) -> Void) {
        var controlOpen = control != nil
        while running {
            var descriptors = [pollfd(fd: terminal.masterFD, events: Int16(POLLIN), revents: 0)]
            if controlOpen, let control { descriptors.append(pollfd(fd: control, events: Int16(POLLIN), revents: 0)) }
            var timeout: Int32 = -1
            if let deadline = pendingDeadline {
                timeout = Int32(max(0, min(Double(Int32.max), (deadline - Self.now()) * 1000).rounded(.up)))
            }
            let ready = poll(&descriptors, nfds_t(descriptors.count), timeout)
            if ready < 0 {
                if errno == EINTR { continue }
                return
            }
            if ready == 0, let deadline = pendingDeadline, Self.now() >= deadline {
                pendingDeadline = nil
                if let reply = chip.expirePending() {
                    trace?.log("#", "polling time over, no target")
                    deliver(reply, commandBytes: 0)
                }
                continue
            }
            if descriptors[0].revents & Int16(POLLIN) != 0 {
                let bytes = terminal.read()
                if bytes.isEmpty { return }
                receive(bytes)
            }
            if descriptors.count > 1, descriptors[1].revents != 0, let control {
                var buffer = [UInt8](repeating: 0, count: 512)
                let count = buffer.withUnsafeMutableBytes { Glibc.read(control, $0.baseAddress, $0.count) }
                if count <= 0 {
                    controlOpen = false
                    continue
                }
                controlBuffer += buffer[0..<count]
                while let newline = controlBuffer.firstIndex(of: 0x0A) {
                    let line = String(decoding: controlBuffer[..<newline], as: UTF8.self)
                    controlBuffer.removeSubrange(...newline)
                    reply(handleControl(line))
                }
            }
        }
    }

    /// How long the line may stay quiet inside a frame before the partial frame is dropped
    /// (a client that died mid-frame must not swallow the next client's wake-up and command).
    public static let interByteTimeout = 0.1

    /// Feeds bytes from the host to the decoder and answers every complete frame.
    public func receive(_ bytes: [UInt8]) {
        let now = Self.now()
        if now - lastReceived > Self.interByteTimeout, decoder.reset() {
            trace?.log(">", "BAD partial frame dropped after \(Int(Self.interByteTimeout * 1000)) ms of silence")
        }
        lastReceived = now
        for event in decoder.feed(bytes) {
            switch event {
            case .error(let error):
                // A frame with a bad checksum is not acknowledged: the host times out and resends.
                trace?.log(">", "BAD \(error)")
            case .frame(let frame):
                trace?.log(">", TraceLog.describe(frame))
                answer(frame)
            }
        }
    }

    private func answer(_ frame: PN532Frame) {
        switch frame {
        case .ack:
            // The host aborts the command in progress (UM0701 §6.2.1.3).
            if chip.hasPendingCommand { trace?.log("#", "aborted by host ACK") }
            chip.abortPending()
            pendingDeadline = nil
        case .nack:
            if let lastResponse { send(lastResponse, note: "resent") }
        case .error:
            break
        case .information(let tfi, let data):
            send(PN532Frame.ackBytes, note: "ACK")
            let reply = chip.handle(tfi: tfi, data: data)
            deliver(reply, commandBytes: data.count + 8)
        }
    }

    private func deliver(_ reply: PN532Reply, commandBytes: Int) {
        let bytes: [UInt8]
        pendingDeadline = nil
        switch reply {
        case .pending:
            if let limit = chip.pendingTimeLimit {
                pendingDeadline = Self.now() + limit.secondsValue
                trace?.log("#", "polling for \(Int(limit.secondsValue * 1000)) ms (a tag or a host ACK ends it)")
            } else {
                pendingDeadline = nil
                trace?.log("#", "waiting for a tag (host ACK aborts)")
            }
            return
        case .syntaxError: bytes = PN532Frame.errorBytes
        case .response(let data): bytes = PN532Frame.response(data).encoded
        }
        if chip.delayModel == .datasheet {
            let seconds = Self.modelledSeconds(tagTime: chip.responseDelay, linkBytes: commandBytes + bytes.count)
            // The modelled time of each answer, so that a trace tells where the time goes.
            trace?.log("#", Self.delayNote(seconds: seconds, tagTime: chip.responseDelay, linkBytes: commandBytes + bytes.count))
            usleep(UInt32(seconds * 1_000_000))
        }
        lastResponse = bytes
        send(bytes, note: nil)
    }

    /// Monotonic seconds.
    static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    private func send(_ bytes: [UInt8], note: String?) {
        if let trace {
            if let decoded = try? PN532Frame.parse(bytes[...]) {
                trace.log("<", TraceLog.describe(decoded) + (note == "resent" ? " (resent)" : ""))
            }
        }
        terminal.write(bytes)
    }

    /// Runs one control command and returns the answer line:
    /// - `remove`: the current tag leaves the field;
    /// - `present`: it comes back (powered up again);
    /// - `next`: the next tag of the stack replaces it;
    /// - `status`: where the stack stands;
    /// - `quit`: stop serving.
    ///
    /// Answers start with `ok ` and the field's summary, or `error: ` and a reason.
    public func handleControl(_ line: String) -> String {
        let command = line.trimmingWhitespace()
        switch command {
        case "remove": chip.field.remove()
        case "present": chip.field.present()
        case "next": chip.field.next()
        case "status", "": break
        case "quit":
            running = false
            return "ok quit"
        default: return "error: unknown control command '\(command)' (remove, present, next, status, quit)"
        }
        trace?.log("#", "\(command): \(chip.field.summary)")
        if chip.field.tagInField != nil, let reply = chip.retryPending() {
            deliver(reply, commandBytes: 0)
        }
        return "ok \(chip.field.summary)"
    }
}

extension String {
    func trimmingWhitespace() -> String {
        let scalars = unicodeScalars.drop { $0 == " " || $0 == "\t" || $0 == "\r" }
        var view = String.UnicodeScalarView(scalars)
        while let last = view.last, last == " " || last == "\t" || last == "\r" { view.removeLast() }
        return String(view)
    }
}

extension Duration {
    var secondsValue: Double {
        let parts = components
        return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
    }
}
