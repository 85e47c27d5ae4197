import NFCTags

/// The card side of EV2 authentication (AuthenticateEV2First `71`, AuthenticateEV2NonFirst `77`)
/// and EV2 secure messaging, shared by the virtual NTAG 424 DNA, MIFARE DESFire Light and
/// DESFire EV2 / EV3. The crypto is NFCTags' ``EV2Authentication`` and ``EV2Session``; each chip
/// keeps its own key lookup, status codes, random source and whether NonFirst is allowed.
enum EV2CardResponder {
    /// A part 1 answered, waiting for part 2 (`AF`).
    struct Pending: Sendable {
        /// The key number the PCD named.
        let keyNumber: UInt8
        /// The key's 16 bytes.
        let key: [UInt8]
        /// The card's random RndB.
        let rndB: [UInt8]
        /// AuthenticateEV2First (true) or NonFirst (false).
        let first: Bool
        /// The session a NonFirst continues (its TI and command counter).
        let previous: EV2Session?
    }

    /// Why part 2 failed: the chip's status for a wrong answer, or an internal failure (a short
    /// random source, a crypto error) each chip answers with its own status.
    enum Failure: Error, Equatable {
        /// The status ``EV2Authentication/checkAnswer(key:rndB:part2:)`` gives.
        case status(NXPNativeStatus)
        /// Random source or crypto failure.
        case internalError
    }

    /// The key number in part 1's data: `keyNumber ‖ LenCap ‖ PCDcap2` in First, the key
    /// number alone in NonFirst; nil for another length (LENGTH_ERROR).
    static func keyNumber(part1 data: [UInt8], first: Bool) -> UInt8? {
        guard let keyNumber = data.first else { return nil }
        if first {
            guard data.count >= 2, data.count == 2 + Int(data[1]) else { return nil }
        } else {
            guard data.count == 1 else { return nil }
        }
        return keyNumber
    }

    /// Part 1: draws RndB and answers E(K, RndB); nil when the random source or the crypto fails.
    static func part1(keyNumber: UInt8, key: [UInt8], first: Bool, previous: EV2Session?, random: (Int) -> [UInt8])
        -> (challenge: [UInt8], pending: Pending)? {
        let rndB = random(16)
        guard rndB.count == 16, let challenge = try? EV2Authentication.challenge(key: key, rndB: rndB) else { return nil }
        return (challenge, Pending(keyNumber: keyNumber, key: key, rndB: rndB, first: first, previous: previous))
    }

    /// Part 2: checks the PCD's answer and returns the confirmation and the opened session
    /// (a new TI from `random` in First; the previous TI and command counter in NonFirst).
    static func part2(_ pending: Pending, data: [UInt8], random: (Int) -> [UInt8])
        -> Result<(confirmation: [UInt8], session: EV2Session), Failure> {
        let key = pending.key, first = pending.first, previous = pending.previous
        let rndA: [UInt8]
        do { rndA = try EV2Authentication.checkAnswer(key: key, rndB: pending.rndB, part2: data) } catch { return .failure(.status(error)) }
        let ti = first ? random(4) : previous?.transactionIdentifier ?? []
        guard ti.count == 4, let derived = try? EV2Session.deriveKeys(key: key, rndA: rndA, rndB: pending.rndB),
              let confirmation = try? EV2Authentication.confirmation(key: key, rndA: rndA, transactionIdentifier: first ? ti : nil),
              let session = try? EV2Session(
                keyNumber: pending.keyNumber, transactionIdentifier: ti, encryptionKey: derived.encryption, macKey: derived.mac,
                commandCounter: first ? 0 : previous?.commandCounter ?? 0)
        else { return .failure(.internalError) }
        return .success((confirmation, session))
    }

    /// Opens a command's body: in `mode` with a session (MAC checked, data decrypted), split
    /// plain into header and data without.
    static func open(_ command: UInt8, headerLength: Int, body: [UInt8], mode: EV2CommMode, session: EV2Session?)
        -> Result<(header: [UInt8], data: [UInt8]), NXPNativeStatus> {
        guard let session else {
            guard body.count >= headerLength else { return .failure(.lengthError) }
            return .success((Array(body[..<headerLength]), Array(body[headerLength...])))
        }
        do { return .success(try session.openCommand(command, headerLength: headerLength, body: body, mode: mode)) } catch { return .failure(error) }
    }

    /// The answer with `data`: sealed in `mode` in a session (the counter advances), plain with
    /// `91 00` otherwise.
    static func seal(_ data: [UInt8], mode: EV2CommMode, session: inout EV2Session?) -> [UInt8] {
        guard var current = session else { return data + [NTAG424.statusPrefix, NXPNativeStatus.ok.rawValue] }
        let sealed = current.sealResponse(data: data, mode: mode)
        session = current
        return sealed
    }
}
