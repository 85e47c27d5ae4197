/// The ACS ACR122U's Bi-color LED and Buzzer Control pseudo-APDU,
/// `FF 00 40 P2 04 T1 T2 REP LINK` (ACR122U API, "Bi-color LED and Buzzer Control"; the same
/// command among the ACR1252U's "ACR122U Compatible Commands"). The reader answers `90 xx`, xx
/// the LED state after the command (bit 0 red, bit 1 green), or `63 00` when it failed.
///
/// P2, the LED state control, bit by bit: 0 final red state, 1 final green state, 2 red state
/// mask (update the red state), 3 green state mask, 4 initial red blinking state, 5 initial green
/// blinking state, 6 red blinking mask (blink red), 7 green blinking mask. T1 is the initial
/// blinking state's duration and T2 the toggled state's, in 100 ms units; REP how often T1 + T2
/// repeat (no blink and no beep with 0); LINK when the buzzer sounds: `00` never, `01` during
/// T1, `02` during T2, `03` during both.
public struct ACR122ULEDBuzzerControl: Sendable, Hashable {
    /// P2: the LED state control bits.
    public var ledStateControl: UInt8
    /// T1, the initial blinking state's duration, in 100 ms.
    public var t1: UInt8
    /// T2, the toggled blinking state's duration, in 100 ms.
    public var t2: UInt8
    /// How many times T1 + T2 run.
    public var repetitions: UInt8
    /// When the buzzer sounds: bit 0 during T1, bit 1 during T2.
    public var buzzerLink: UInt8

    /// The LED state control bits (P2).
    public enum Bit {
        /// Final red LED state (on).
        public static let finalRed: UInt8 = 0x01
        /// Final green LED state (on).
        public static let finalGreen: UInt8 = 0x02
        /// Red LED state mask: set the red LED's final state.
        public static let redStateMask: UInt8 = 0x04
        /// Green LED state mask: set the green LED's final state.
        public static let greenStateMask: UInt8 = 0x08
        /// Initial red LED blinking state (on during T1).
        public static let initialRedBlink: UInt8 = 0x10
        /// Initial green LED blinking state (on during T1).
        public static let initialGreenBlink: UInt8 = 0x20
        /// Red LED blinking mask: the red LED blinks.
        public static let redBlinkMask: UInt8 = 0x40
        /// Green LED blinking mask: the green LED blinks.
        public static let greenBlinkMask: UInt8 = 0x80
    }

    /// The buzzer link values (LINK).
    public enum BuzzerLink {
        /// The buzzer stays off.
        public static let off: UInt8 = 0x00
        /// The buzzer sounds during T1.
        public static let duringT1: UInt8 = 0x01
        /// The buzzer sounds during T2.
        public static let duringT2: UInt8 = 0x02
    }

    /// A command from its fields.
    public init(ledStateControl: UInt8, t1: UInt8, t2: UInt8, repetitions: UInt8, buzzerLink: UInt8) {
        self.ledStateControl = ledStateControl
        self.t1 = t1
        self.t2 = t2
        self.repetitions = repetitions
        self.buzzerLink = buzzerLink
    }

    /// The command NFCKit sends for `signal`; the LEDs' final states are left alone (no state
    /// mask), so the reader's own indication comes back after it.
    /// - ``ReaderSignal/done``: green on for 100 ms with the buzzer, once (a short beep).
    /// - ``ReaderSignal/failed``: red on for 500 ms with the buzzer, once (a long beep).
    /// Each ends with a 100 ms pause (T2), LEDs as before.
    public static func command(for signal: ReaderSignal) -> ACR122ULEDBuzzerControl {
        switch signal {
        case .done:
            ACR122ULEDBuzzerControl(
                ledStateControl: Bit.greenBlinkMask | Bit.initialGreenBlink, t1: 1, t2: 1, repetitions: 1, buzzerLink: BuzzerLink.duringT1)
        case .failed:
            ACR122ULEDBuzzerControl(
                ledStateControl: Bit.redBlinkMask | Bit.initialRedBlink, t1: 5, t2: 1, repetitions: 1, buzzerLink: BuzzerLink.duringT1)
        }
    }

    /// Parses a command APDU: the header `FF 00 40`, P2, Lc `04` and exactly four bytes.
    /// - Returns: nil for anything else (a shorter or longer APDU, another header or Lc).
    public init?(apdu: some Collection<UInt8>) {
        let bytes = Array(apdu)
        let header = PCSCPart3.ACR122U.ledBuzzerControl
        guard bytes.count == header.count + 6, Array(bytes.prefix(header.count)) == header,
              bytes[4] == PCSCPart3.ACR122U.ledBuzzerDataLength else { return nil }
        self.init(ledStateControl: bytes[3], t1: bytes[5], t2: bytes[6], repetitions: bytes[7], buzzerLink: bytes[8])
    }

    /// The command APDU, nine bytes.
    public var apdu: [UInt8] {
        PCSCPart3.ACR122U.ledBuzzerControl + [ledStateControl, PCSCPart3.ACR122U.ledBuzzerDataLength, t1, t2, repetitions, buzzerLink]
    }

    /// Whether the reader's answer says the command was done: `90 xx` and nothing else.
    public static func accepts(_ response: some Collection<UInt8>) -> Bool {
        response.count == 2 && response.first == PCSCPart3.ACR122U.ledBuzzerSuccess
    }

    /// The LEDs that blink: `green`, `red`, `green+red`, or `none` (no blink mask, or no
    /// repetition).
    public var blinkingLEDs: String {
        guard repetitions > 0 else { return "none" }
        var leds: [String] = []
        if ledStateControl & Bit.greenBlinkMask != 0 { leds.append("green") }
        if ledStateControl & Bit.redBlinkMask != 0 { leds.append("red") }
        return leds.isEmpty ? "none" : leds.joined(separator: "+")
    }

    /// How long the buzzer sounds in all, in milliseconds (the linked durations times the
    /// repetitions).
    public var buzzerMilliseconds: Int {
        var per = 0
        if buzzerLink & BuzzerLink.duringT1 != 0 { per += Int(t1) }
        if buzzerLink & BuzzerLink.duringT2 != 0 { per += Int(t2) }
        return per * Int(repetitions) * 100
    }

    /// How long the sequence lasts, in milliseconds ((T1 + T2) times the repetitions).
    public var milliseconds: Int { (Int(t1) + Int(t2)) * Int(repetitions) * 100 }
}
