import NFCTags

/// One reader's feedback in a batch (`--feedback`): a note at the start when the reader has
/// none, each tag's outcome shown on it (``NFCTags/NFCReader/signal(_:)``), and the first failed
/// signal told as a warning. A signal never changes a tag's result: it is sent after the result
/// is recorded, and its failure is only told.
struct BatchFeedback {
    /// The reader.
    let reader: any NFCReader
    /// Its name in the events (the connection string).
    let name: String
    /// Where the note and the warning go.
    let events: @Sendable (BatchEvent) -> Void
    /// Whether a failed signal was told already.
    private var warned = false

    /// Feedback on `reader`, told to `events` under `name`.
    init(reader: any NFCReader, name: String, events: @escaping @Sendable (BatchEvent) -> Void) {
        self.reader = reader
        self.name = name
        self.events = events
    }

    /// Tells the operator, once, when the reader has no feedback.
    func announce() async {
        if reader.feedback == nil { events(.feedback(reader: name, .unavailable)) }
    }

    /// Shows `outcome` on the reader; a failure is told once per reader and changes nothing else.
    mutating func signal(_ outcome: ReaderSignal) async {
        guard reader.feedback != nil else { return }
        do {
            _ = try await reader.signal(outcome)
        } catch {
            guard !warned else { return }
            warned = true
            events(.feedback(reader: name, .failed(error: error.description)))
        }
    }
}
