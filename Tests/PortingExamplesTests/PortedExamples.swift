// The seeds' CoreNFC examples, ported to NFCKit (docs/porting-from-corenfc.md explains each
// change). Kept as close to the originals as Linux and Swift 6 allow; the lines marked
// "NFCKit:" are the ones that differ. The test hooks (`log`, `finished`) are additions.

import Foundation
import NFCKit  // was: import CoreNFC
import NFCCore  // NFCKit: Bytes
import NFCTags  // NFCKit: the tag types (NFCNDEFTag, NFCTag) live here; NFCKit does not re-export

/// The seeds' `NDEFReader`: an NDEF session reporting messages to its delegate.
final class NDEFReader: NSObject, NFCNDEFReaderSessionDelegate {
    private var session: NFCNDEFReaderSession?
    // NFCKit: a session names its reader (CoreNFC has one built in).
    let connection: String
    let invalidateAfterFirstRead: Bool
    private(set) var log: [String] = []
    private(set) var finished: NFCReaderError?

    init(connection: String, invalidateAfterFirstRead: Bool = false) {
        self.connection = connection
        self.invalidateAfterFirstRead = invalidateAfterFirstRead
    }

    /// NFCKit: `readingAvailable` asks a reader, so it is async; the caller checks it before
    /// `beginScanning()`, which stays synchronous (in an async function, `session.begin()` is
    /// the async, throwing `begin()`).
    func readingAvailable() async -> Bool {
        await NFCReaderAvailability.check(connection: connection).isAvailable
    }

    func beginScanning() {
        session = NFCNDEFReaderSession(
            delegate: self,
            queue: nil,
            invalidateAfterFirstRead: invalidateAfterFirstRead,
            connection: connection  // NFCKit: the reader
        )
        session?.alertMessage = "Hold a tag near the reader."
        session?.begin()
        staleSession = session
    }

    /// The seeds' Cancel button.
    func stopScanning() {
        session?.invalidate()
    }

    /// The seeds' "WRONG" `scanAgain()`: begin() on the session that was invalidated (kept in
    /// `staleSession` for the demonstration; the seeds' `session` is nil by then).
    func scanAgainOnStaleSession() {
        staleSession?.begin()
    }
    private var staleSession: NFCNDEFReaderSession?

    // MARK: - NFCNDEFReaderSessionDelegate

    func readerSessionDidBecomeActive(_ session: NFCNDEFReaderSession) {
        log.append("active")
    }

    func readerSession(
        _ session: NFCNDEFReaderSession,
        didDetectNDEFs messages: [NFCNDEFMessage]
    ) {
        for message in messages {
            for record in message.records {
                processRecord(record)
            }
        }
    }

    func readerSession(
        _ session: NFCNDEFReaderSession,
        didInvalidateWithError error: any Error
    ) {
        let nfcError = error as? NFCReaderError
        if nfcError?.code != .readerSessionInvalidationErrorFirstNDEFTagRead,
           nfcError?.code != .readerSessionInvalidationErrorUserCanceled {
            log.append("invalidated: \(error.localizedDescription)")
        }
        finished = nfcError
        self.session = nil
    }

    /// The seeds' `processRecord`, following the NFC Forum specs where the seed does not.
    func processRecord(_ record: NFCNDEFPayload) {
        switch record.typeNameFormat {
        case .nfcWellKnown:
            if let url = record.wellKnownTypeURIPayload() {
                log.append("URL: \(url)")
            } else if case let (text?, locale?) = record.wellKnownTypeTextPayload() {
                // NFCKit: the seed's `if let (text, locale) = …` does not compile against
                // CoreNFC either; the pair is matched instead.
                log.append("Text (\(locale.identifier)): \(text)")
            }
        case .absoluteURI:
            // NFCKit (spec): an absolute-URI record holds its URI in the type field, not the
            // payload (NDEF 1.0 §3.2.6).
            log.append("Absolute URI: \(String(decoding: record.type.array, as: UTF8.self))")
        case .media:
            let mimeType = String(decoding: record.type.array, as: UTF8.self)
            log.append("MIME type: \(mimeType), size: \(record.payload.count)")
        case .nfcExternal:
            let type = String(decoding: record.type.array, as: UTF8.self)
            log.append("External type: \(type)")
        case .empty, .unknown, .unchanged:
            break
        }
    }
}

/// The seeds' write flow (`beginWrite` and `didDetect tags`): one tag only, query its status,
/// write a Text record, report; optionally lock it afterwards (the seeds' `writeLock`).
final class NDEFWriter: NSObject, NFCNDEFReaderSessionDelegate {
    var session: NFCNDEFReaderSession?
    let connection: String
    let message: NFCNDEFMessage
    let lockAfterWriting: Bool
    private(set) var log: [String] = []
    private(set) var alerts: [String] = []
    private(set) var finished: NFCReaderError?

    init(connection: String, message: NFCNDEFMessage, lockAfterWriting: Bool = false) {
        self.connection = connection
        self.message = message
        self.lockAfterWriting = lockAfterWriting
    }

    func beginWrite() {
        session = NFCNDEFReaderSession(
            delegate: self, queue: nil, invalidateAfterFirstRead: false, connection: connection)
        session?.alertMessage = "Hold a tag near the reader to write the message."
        session?.begin()
    }

    /// The Cancel button (synchronous, as in the seeds: in an async function `invalidate()`
    /// would be the async overload).
    func stopWriting() {
        session?.invalidate()
    }

    func readerSession(_ session: NFCNDEFReaderSession, didDetect tags: [any NFCNDEFTag]) {
        log.append("detected \(tags.count)")
        if tags.count > 1 {
            let retryInterval = DispatchTimeInterval.milliseconds(500)
            session.alertMessage = "More than 1 tag is detected. Please remove all tags and try again."
            DispatchQueue.global().asyncAfter(deadline: .now() + retryInterval) {
                session.restartPolling()
            }
            return
        }

        guard let tag = tags.first else { return }  // NFCKit: no force-unwrap
        session.connect(to: tag) { (error: (any Error)?) in
            if error != nil {
                session.alertMessage = "Unable to connect to tag."
                session.invalidate()
                return
            }

            tag.queryNDEFStatus { (ndefStatus, capacity, error) in
                if error != nil {
                    session.alertMessage = "Unable to query the NDEF status of tag."
                    session.invalidate()
                    return
                }
                self.log.append("status \(ndefStatus) capacity \(capacity)")

                switch ndefStatus {
                case .notSupported:
                    session.alertMessage = "Tag is not NDEF compliant."
                    session.invalidate()
                case .readOnly:
                    session.alertMessage = "Tag is read only."
                    session.invalidate()
                case .readWrite:
                    tag.writeNDEF(self.message) { (error: (any Error)?) in
                        if let error = error {
                            session.alertMessage = "Write NDEF message failed: \(error)"
                            self.log.append("write failed: \((error as? NFCReaderError)?.code.name ?? "?")")
                            session.invalidate()
                        } else if self.lockAfterWriting {
                            tag.writeLock { error in
                                session.alertMessage = error == nil ? "Tag locked." : "Lock failed."
                                self.log.append(error == nil ? "locked" : "lock failed")
                                session.invalidate()
                            }
                        } else {
                            session.alertMessage = "Write NDEF message successful."
                            self.log.append("written")
                            session.invalidate()
                        }
                    }
                }
                // NFCKit: no `@unknown default`: NFCNDEFStatus is an exhaustive Swift enum.
            }
        }
    }

    func readerSession(_ session: NFCNDEFReaderSession, didInvalidateWithError error: any Error) {
        alerts.append(session.alertMessage)
        finished = error as? NFCReaderError
        self.session = nil
    }
}

/// The seeds' "filter expected invalidation reasons" pattern, as a function of the error.
func isNormalTermination(_ error: any Error) -> Bool {
    let nfcError = error as? NFCReaderError
    switch nfcError?.code {
    case .readerSessionInvalidationErrorUserCanceled,
         .readerSessionInvalidationErrorFirstNDEFTagRead:
        return true
    default:
        return false
    }
}

/// The seeds' `NSError` spelling of the same check (seed 002's retry code).
func isSystemBusy(_ error: any Error) -> Bool {
    let nsError = error as NSError
    return nsError.code == NFCReaderError.readerSessionInvalidationErrorSystemIsBusy.rawValue
}

/// The seeds' `TagReader`: a tag reader session with a delegate, switching on the tag's family.
final class TagReader: NSObject, NFCTagReaderSessionDelegate {
    private var session: NFCTagReaderSession?
    let connection: String
    private(set) var log: [String] = []
    private(set) var finished: NFCReaderError?

    init(connection: String) {
        self.connection = connection
    }

    func beginScanning() {
        session = NFCTagReaderSession(
            pollingOption: [.iso14443, .iso15693],
            delegate: self,
            queue: nil,
            connection: connection  // NFCKit: the reader
        )
        session?.alertMessage = "Hold a tag near the reader."
        session?.begin()
    }

    func tagReaderSessionDidBecomeActive(_ session: NFCTagReaderSession) {}

    func tagReaderSession(_ session: NFCTagReaderSession, didDetect tags: [NFCTag]) {
        guard let tag = tags.first else { return }

        session.connect(to: tag) { error in
            guard error == nil else {
                session.invalidate(errorMessage: "Connection failed.")
                return
            }

            switch tag {
            case .iso7816(let iso7816Tag):
                self.readISO7816(tag: iso7816Tag, session: session)
            case .miFare(let miFareTag):
                self.readMiFare(tag: miFareTag, session: session)
            case .iso15693, .feliCa:
                session.invalidate(errorMessage: "Unsupported tag type.")
            }
            // NFCKit: no `@unknown default` (NFCTag is an exhaustive Swift enum).
        }
    }

    func tagReaderSession(_ session: NFCTagReaderSession, didInvalidateWithError error: any Error) {
        finished = error as? NFCReaderError
        self.session = nil
    }

    /// Seed 004's SELECT with `expectedResponseLength: -1` (no Le), here of the NFC Forum NDEF
    /// Tag Application (the seed's AID is a payment-scheme prefix, refused by NFCKit).
    func readISO7816(tag: ISO7816Tag, session: NFCTagReaderSession) {
        guard let select = try? NFCISO7816APDU(
            instructionClass: 0x00, instructionCode: 0xA4, p1Parameter: 0x04, p2Parameter: 0x00,
            data: [0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x01], expectedResponseLength: -1)
        else { return }
        tag.sendCommand(apdu: select) { response, sw1, sw2, error in
            if error == nil {
                self.log.append("SELECT SW1=\(String(sw1, radix: 16)) SW2=\(String(sw2, radix: 16))")
            }
            session.invalidate()
        }
    }

    /// Reads the NDEF message of a MIFARE (NTAG) tag through its NFCNDEFTag conformance.
    func readMiFare(tag: MiFareTag, session: NFCTagReaderSession) {
        tag.readNDEF { message, error in
            if let uri = message?.records.first?.wellKnownTypeURIPayload() {
                self.log.append("URL: \(uri)")
            }
            session.invalidate()
        }
    }
}

/// The seeds' background tag reading (seeds 000/001 `scene(_:continue:)`): iOS reads a tag with
/// no session open and hands the app an `NSUserActivity`. NFCKit: a `BackgroundTagReading` on a
/// reader delivers the same activity for each tag whose first URI record routes to the app.
@MainActor
final class BackgroundReader {
    let connection: String
    let domains: [String]
    /// The seeds' `processRecord`, as the NDEF reader example has it.
    private let records = NDEFReader(connection: "unused")
    var log: [String] { records.log }

    init(connection: String, domains: [String]) {
        self.connection = connection
        self.domains = domains
    }

    /// NFCKit: what the system does on iOS (read tags, route them) runs in the app; the test
    /// stops after `count` activities.
    func run(count: Int) async throws {
        var delivered = 0
        for try await userActivity in BackgroundTagReading(connection: connection, domains: domains) {
            scene(continue: userActivity)
            delivered += 1
            if delivered == count { return }
        }
    }

    // was: func scene(_ scene: UIScene, continue userActivity: NSUserActivity)
    func scene(continue userActivity: NFCTagUserActivity) {
        guard userActivity.activityType == .browsingWeb else { return }  // was: NSUserActivityTypeBrowsingWeb

        let message = userActivity.ndefMessagePayload
        guard message.records.first?.typeNameFormat != .empty else { return }

        for record in message.records {
            records.processRecord(record)
        }
    }
}

/// Seed 003's `CardSessionSample`: card emulation with CoreNFC's event loop and CoreNFC's
/// `CardSession` spelling (`Data` APDUs, `NFCPresentmentIntentAssertion`), on a named reader.
@MainActor
final class CardEmulator {
    let connection: String
    /// NFCKit: the seed's `ProcessAPDU` returns `Data()`; here an NFC Forum Type 4 tag answers.
    private(set) var tag: EmulatedType4Tag
    private(set) var log: [String] = []
    /// Test hook: the seed's loop runs until the system ends the session; the test ends it after
    /// the first reader.
    var endAfterFirstReader = true

    init(connection: String, message: Bytes) throws {
        self.connection = connection
        tag = try EmulatedType4Tag(message: message)
    }

    func cardSessionSample() async {
        let ProcessAPDU: (_: Data) -> Data = { capdu in Data(self.tag.respond(to: Bytes(capdu)).array) }

        // NFCKit: the three checks ask the named reader (as written, NFCReaderSession.readingAvailable,
        // CardSession.isSupported and await CardSession.isEligible ask libnfc's default reader).
        guard await NFCReaderAvailability.check(connection: connection).isAvailable,
              await NFCCardSession.isSupported(connection: connection),
              await NFCCardSession.isEligible(connection: connection) else {
            log.append("not eligible")
            return
        }

        var presentmentIntent: NFCPresentmentIntentAssertion?
        let cardSession: CardSession
        do {
            presentmentIntent = try await NFCPresentmentIntentAssertion.acquire(connection: connection)  // was: acquire()
            cardSession = try await CardSession(connection: connection)  // was: CardSession()
        } catch {
            log.append("not started: \(error)")
            return
        }
        log.append(presentmentIntent == nil ? "no assertion" : "assertion")

        do {
            for try await event in cardSession.eventStream {
                switch event {
                case .sessionStarted:
                    cardSession.alertMessage = "Communicating with card reader."
                    log.append("started")
                case .readerDetected:
                    try await cardSession.startEmulation()
                    log.append("reader")
                case .readerDeselected:
                    await cardSession.stopEmulation(status: .success)
                    log.append("deselected")
                    if endAfterFirstReader { await cardSession.invalidate() }
                case .received(let cardAPDU):
                    do {
                        let responseAPDU = ProcessAPDU(cardAPDU.payload)
                        try await cardAPDU.respond(response: responseAPDU)
                    } catch {
                        // Handle the error
                    }
                case .sessionInvalidated(reason: _):
                    cardSession.alertMessage = "Ending communication with card reader."
                    log.append("invalidated")
                }
            }
        } catch {
            log.append("stream failed: \(error)")
        }

        presentmentIntent = nil
    }
}
