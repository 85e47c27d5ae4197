import NFCCore
public import NFCTags

/// A tag that plays the tag's side of a reader trace (``NFCTags/ReaderTraceTagPlayer``), for the
/// emulators' `--replay FILE`: it selects as the trace's polled target (UID, ATQA, SAK) and
/// answers each frame with the recorded answer of the trace's next `transceive`, matched as
/// `--device replay:` matches a call. A recorded empty answer is a 4-bit ACK (what a reader
/// returns for a WRITE's), a recorded NAK its nibble, any other recorded error silence (the
/// reader times out).
///
/// A frame that differs from the trace gets silence, as does every later one, and
/// ``onDivergence`` is called once with the message ("diverged at exchange N: sent …, trace has
/// …"). Owned by one host thread, like every virtual tag.
public class TracePlayerTag: VirtualTag {
    /// The player: where in the trace the tag is.
    public private(set) var player: ReaderTraceTagPlayer
    /// The trace's target.
    public let targetInfo: TargetInfo
    /// Called once, with the message, when a frame first differs from the trace.
    public var onDivergence: ((String) -> Void)?
    /// How many frames (or APDUs) the tag was sent: an emulated reader compares it before and
    /// after a command to tell whether ``lastAnswer`` is that command's.
    public private(set) var framesPlayed = 0
    /// The player's answer to the last frame, nil before the first: an emulated reader that
    /// speaks in status words (`pcsc-reader-emulator --replay`) gives a recorded error back as
    /// the status word the recording reader turned into that error.
    public private(set) var lastAnswer: ReaderTraceTagPlayer.Answer?

    /// `Replayed trace`.
    public var modelName: String { "Replayed trace" }

    /// The tag of `player`'s trace, or nil when the trace never found a tag. A target that
    /// speaks ISO-DEP (an ATS, a Type B protocol type) gets a ``ISODEPTracePlayerTag``.
    /// `carriesAsPCSC`: the emulated reader is a PC/SC reader, which sends the tag a `FAST_READ`
    /// as `READ`s and ISO 15693 requests rebuilt (``NFCTags/ReaderTraceTagPlayer/carriesAsPCSC``).
    public static func make(_ trace: ReaderTrace, carriesAsPCSC: Bool = false) -> TracePlayerTag? {
        let player = ReaderTraceTagPlayer(trace, carriesAsPCSC: carriesAsPCSC)
        guard let target = player.target else { return nil }
        switch target {
        case .iso14443A(let a) where a.supportsISODEP: return ISODEPTracePlayerTag(player, target: target, ats: a.ats.array)
        case .iso14443B(let b) where b.supportsISODEP: return ISODEPTracePlayerTag(player, target: target, ats: [])
        default: return TracePlayerTag(player, target: target)
        }
    }

    init(_ player: ReaderTraceTagPlayer, target: TargetInfo) {
        self.player = player
        targetInfo = target
    }

    /// The recorded answer, mapped to what the chip said (see the type's description).
    public func respond(to frame: [UInt8]) -> TagAnswer {
        switch play(frame) {
        case .answer(let bytes): return bytes.isEmpty ? .ack : .data(bytes)
        case .failed(let error) where error.code == .nak: return .nak(error.detail ?? 0)
        case .failed, .diverged: return .silence
        }
    }

    /// The player's answer to `frame`, calling ``onDivergence`` on the first divergence.
    func play(_ frame: [UInt8]) -> ReaderTraceTagPlayer.Answer {
        let stopped = player.divergence != nil
        let answer = player.answer(to: frame)
        framesPlayed += 1
        lastAnswer = answer
        if !stopped, case .diverged(let message) = answer { onDivergence?(message) }
        return answer
    }

    /// Nothing: the trace's position lasts across selections.
    public func powerOn() {}
    /// Nothing: the trace's position lasts across selections.
    public func halt() {}
}

/// A ``TracePlayerTag`` whose target speaks ISO-DEP: the recorded APDU answers. A recorded error
/// or a divergence is answered `6F 00` (no precise diagnosis).
public final class ISODEPTracePlayerTag: TracePlayerTag, ISODEPVirtualTag {
    /// The trace's ATS.
    public let ats: [UInt8]

    init(_ player: ReaderTraceTagPlayer, target: TargetInfo, ats: [UInt8]) {
        self.ats = ats
        super.init(player, target: target)
    }

    /// The recorded response APDU.
    public func respond(toAPDU apdu: [UInt8]) -> [UInt8] {
        if case .answer(let bytes) = play(apdu), bytes.count >= 2 { return bytes }
        let sw = PCSCPart3.StatusWord.noPreciseDiagnosis
        return [UInt8(sw >> 8), UInt8(sw & 0xFF)]
    }
}

extension TracePlayerTag {
    /// The tag of the trace file at `path` (at most ``NFCTags/ReaderTrace/maximumFileSize``);
    /// `carriesAsPCSC` as for ``make(_:carriesAsPCSC:)``.
    /// - Throws: ``NFCTags/NFCReaderDeviceError`` `io` when the file cannot be read,
    ///   `invalidArgument` when it is no trace (its line and offset named) or never found a tag.
    public static func load(path: String, carriesAsPCSC: Bool = false) throws(NFCReaderDeviceError) -> TracePlayerTag {
        let bytes: [UInt8]
        do {
            bytes = try FileAccess.read(path, limit: ReaderTrace.maximumFileSize)
        } catch {
            throw NFCReaderDeviceError(.io, "cannot read the trace \(path): \(error)")
        }
        let trace: ReaderTrace
        do {
            trace = try ReaderTrace.parse(bytes)
        } catch {
            throw NFCReaderDeviceError(.invalidArgument, "the trace \(path) is not valid: \(error)")
        }
        guard let tag = make(trace, carriesAsPCSC: carriesAsPCSC) else {
            throw NFCReaderDeviceError(.invalidArgument, "the trace \(path) never found a tag: there is nothing to play")
        }
        return tag
    }
}
