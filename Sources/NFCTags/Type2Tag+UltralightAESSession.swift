import NFCCore
import Synchronization

/// The MIFARE Ultralight AES secure-messaging state a ``Type2Tag`` and its copies share: whether
/// the chip has SEC_MSG_ACT on (learnt after the first authentication) and the session of the
/// last authentication. A new selection ends the session; the chip's setting is kept.
final class UltralightAESSessionBox: Sendable {
    private struct State {
        var secureMessaging: Bool?
        var session: UltralightAESSecureMessaging?
    }
    private let state = Mutex(State())

    /// Whether the chip has secure messaging on; nil until an authentication found out.
    var secureMessaging: Bool? {
        get { state.withLock { $0.secureMessaging } }
        set { state.withLock { $0.secureMessaging = newValue } }
    }

    /// Whether commands are MACed now.
    var isActive: Bool { state.withLock { $0.session != nil } }

    /// Starts `session` (after an authentication), or ends the current one (nil).
    func start(_ session: UltralightAESSecureMessaging?) { state.withLock { $0.session = session } }

    /// `command` with its MAC when a session runs, else as it is.
    func protect(_ command: [UInt8]) throws(NFCTagError) -> [UInt8] {
        try state.withLock { (state: inout State) throws(NFCTagError) -> [UInt8] in
            guard var session = state.session else { return command }
            let protected = try session.protect(command)
            state.session = session
            return protected
        }
    }

    /// The data of `answer`, its MAC checked and removed, when a session runs; else as it is.
    func open(_ answer: [UInt8]) throws(NFCTagError) -> [UInt8] {
        try state.withLock { (state: inout State) throws(NFCTagError) -> [UInt8] in
            guard var session = state.session else { return answer }
            let data = try session.open(answer)
            state.session = session
            return data
        }
    }
}
