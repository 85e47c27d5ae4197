/// What a reader shows its operator when a tag's work has ended: on readers with a buzzer and
/// LEDs (``NFCReader/signal(_:)``), a short beep and green for a done tag, a long beep and red
/// for a failure (docs/hardware.md, "Reader feedback").
public enum ReaderSignal: String, Sendable, Hashable, CaseIterable {
    /// The tag was written, verified and recorded: a short beep, the green LED.
    case done
    /// The tag failed (a counterfeit chip refused counts too): a long beep, the red LED.
    case failed
}
