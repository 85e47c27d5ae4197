public import NFCTags
import VirtualTags

/// The write plan a front end's `--plan` runs behind: NFCTags' `PlanningReader`, with
/// VirtualTags' ``VirtualTags/VirtualDESFireStandIn`` answering the commands to the DESFire
/// applications the plan creates (NFCTags cannot depend on the chip models; NFCKit, which
/// depends on both, puts them together).
public enum WritePlanning {
    /// `base` behind a new planning reader whose DESFire stand-in is a virtual DESFire;
    /// `selected` as ``NFCTags/InterposingReader/init(_:selected:desfire:)`` takes it.
    public static func reader(_ base: any NFCReader, selected: TargetInfo? = nil) async -> PlanningReader {
        await PlanningReader(base, selected: selected, desfire: VirtualDESFireStandIn())
    }
}
