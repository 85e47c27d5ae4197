public import Foundation
public import NDEF
public import NFCCore
public import NFCTags

/// What background tag reading hands an app: CoreNFC's `NSUserActivity` of type
/// `NSUserActivityTypeBrowsingWeb` with its `ndefMessagePayload`.
public struct NFCTagUserActivity: Sendable {
    /// The kind of activity; a tag read in the background is always a web page to open.
    public enum ActivityType: Sendable, Hashable {
        /// CoreNFC's `NSUserActivityTypeBrowsingWeb`.
        case browsingWeb
    }

    /// Always ``ActivityType/browsingWeb``.
    public let activityType: ActivityType
    /// The URI of the message's first URI record: the page the tag points to.
    public let webpageURL: URL?
    /// The whole NDEF message read from the tag.
    public let ndefMessagePayload: NFCNDEFMessage
    /// The tag's UID (or IDm).
    public let tagIdentifier: Bytes

    /// An activity for a message.
    public init(webpageURL: URL?, ndefMessagePayload: NFCNDEFMessage, tagIdentifier: Bytes) {
        activityType = .browsingWeb
        self.webpageURL = webpageURL
        self.ndefMessagePayload = ndefMessagePayload
        self.tagIdentifier = tagIdentifier
    }
}

/// The Linux counterpart of CoreNFC's background tag reading: no app opens a session; a
/// ``TagWatcher`` on a reader reads every tag that comes and hands the app an
/// ``NFCTagUserActivity`` for each tag whose message routes to it, as iOS does:
/// - the message must hold a URI record (well-known type `U`); the first one is the route
///   (iOS uses the first URI record too);
/// - with `domains` (the app's associated domains), only `http`/`https` URIs whose host is one
///   of them, or a subdomain of one, are delivered; without, every URI record is.
///
/// Tags without NDEF, with no URI record, or whose message could not be read are passed over,
/// as iOS passes them over. A tag is delivered once per stay in the field.
///
/// ```swift
/// for try await activity in BackgroundTagReading(connection: "pn532_uart:/dev/ttyUSB0", domains: ["example.com"]) {
///     for record in activity.ndefMessagePayload.records { processRecord(record) }
/// }
/// ```
/// `nfctool watch` shows the same arrivals on the command line.
public struct BackgroundTagReading: AsyncSequence, Sendable {
    /// One activity per tag routed to the app.
    public typealias Element = NFCTagUserActivity
    /// The watcher's failures.
    public typealias Failure = NFCReaderDeviceError

    /// The tags' source.
    public let watcher: TagWatcher
    /// The app's associated domains; empty: every URI.
    public let domains: [String]

    /// Reads tags on the reader `connection` names (see ``ReaderConnection``).
    public init(connection: String?, domains: [String] = [], options: TagWatcher.Options = TagWatcher.Options()) {
        watcher = TagWatcher(connection: connection, options: options)
        self.domains = domains
    }

    /// Reads tags on `reader` (opened and closed by the caller).
    public init(reader: any NFCReader, domains: [String] = [], options: TagWatcher.Options = TagWatcher.Options()) {
        watcher = TagWatcher(reader: reader, options: options)
        self.domains = domains
    }

    /// The activity for a tag's message, or nil when it does not route to the app.
    public static func activity(for message: NFCNDEFMessage, tag identifier: Bytes, domains: [String]) -> NFCTagUserActivity? {
        guard let uri = message.records.lazy.compactMap({ (record) -> String? in record.wellKnownTypeURIPayload() }).first else { return nil }
        let url = URL(string: uri)
        if !domains.isEmpty {
            guard let url, let scheme = url.scheme?.lowercased(), scheme == "https" || scheme == "http",
                  let host = url.host?.lowercased(),
                  domains.contains(where: { host == $0.lowercased() || host.hasSuffix("." + $0.lowercased()) })
            else { return nil }
        }
        return NFCTagUserActivity(webpageURL: url, ndefMessagePayload: message, tagIdentifier: identifier)
    }

    /// Iterates the activities.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var base: TagWatcher.AsyncIterator
        let domains: [String]

        /// The next activity; nil when the watcher ends.
        public mutating func next() async throws(NFCReaderDeviceError) -> NFCTagUserActivity? {
            while let event = try await base.next() {
                guard case .arrived(let arrival) = event, case .success(let message) = arrival.message else { continue }
                if let activity = BackgroundTagReading.activity(for: message, tag: arrival.identifier, domains: domains) {
                    return activity
                }
            }
            return nil
        }

        /// The next activity; nil when the watcher ends.
        public mutating func next(isolation actor: isolated (any Actor)?) async throws(NFCReaderDeviceError) -> NFCTagUserActivity? {
            while let event = try await base.next(isolation: actor) {
                guard case .arrived(let arrival) = event, case .success(let message) = arrival.message else { continue }
                if let activity = BackgroundTagReading.activity(for: message, tag: arrival.identifier, domains: domains) {
                    return activity
                }
            }
            return nil
        }
    }

    /// An iterator over the activities; dropping it stops the watcher.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: watcher.makeAsyncIterator(), domains: domains)
    }
}
