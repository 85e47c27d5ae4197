// Batch provisioning throughput: one or more readers, each with a stack of blank NTAG215s,
// provisioned with a URL template through the same code as `nfctool batch`. Run through
// `Scripts/bench-batch`, which starts the emulators and runs the peers. Not part of the tests.
//
// Usage: batch-bench --device CONN [--device CONN ...] --count N --ledger PATH
//                    [--template URL]
// Prints one JSON line: {"readers", "tags", "seconds", "tags_per_s", "commands_per_tag",
//                        "host_ms_per_tag", "failed"}
import Foundation
import NDEF
import NFCCore
import NFCKit
import NFCTags
import Provisioning

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("batch-bench: \(message)\n".utf8))
    exit(1)
}

/// CPU time of this process (user + system), in seconds.
func cpuSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}

var arguments = CommandLine.arguments.dropFirst()
var devices: [String] = []
var count = 200
var ledgerPath: String?
var templateText = "https://example.com/t/{uid}?n={n:05}"
while let argument = arguments.popFirst() {
    switch argument {
    case "--device": if let d = arguments.popFirst() { devices.append(d) }
    case "--count": count = arguments.popFirst().flatMap(Int.init) ?? count
    case "--ledger": ledgerPath = arguments.popFirst()
    case "--template": templateText = arguments.popFirst() ?? templateText
    default: fail("usage: batch-bench --device CONN [--device CONN ...] --count N --ledger PATH [--template URL]")
    }
}
guard !devices.isEmpty, let ledgerPath else { fail("--device and --ledger are required") }

let template: ProvisioningTemplate
do { template = try ProvisioningTemplate(templateText) } catch { fail("template: \(error)") }
let ledger: Ledger
do { ledger = try Ledger(path: ledgerPath) } catch { fail("\(error)") }
var readers: [TracingReader] = []
for device in devices {
    do { readers.append(await TracingReader(try await ReaderConnection.open(device))) } catch { fail("cannot open \(device): \(error)") }
}
let coordinator: BatchCoordinator
do {
    coordinator = try BatchCoordinator(
        ledger: ledger, runID: try ledger.startRun(template: templateText, manifest: nil, readers: devices),
        source: .template(usesCounter: template.usesCounter, start: 1) { uid, n in
            NDEFMessage(records: [try .wellKnownTypeURIPayload(url: template.render(uid: uid, counter: n))])
        },
        options: BatchOptions(count: count))
} catch { fail("\(error)") }

let clock = ContinuousClock()
let cpuStart = cpuSeconds()
let start = clock.now
await withTaskGroup(of: Void.self) { group in
    for reader in readers {
        group.addTask { await BatchWorker(reader: reader, coordinator: coordinator, events: { _ in }).run() }
    }
}
let elapsed = clock.now - start
let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
let cpu = cpuSeconds() - cpuStart
var commands = 0
for reader in readers { commands += await reader.commands.count; await reader.close() }
let summary = await coordinator.summary
let done = max(summary.done, 1)
print(
    "{\"readers\": \(devices.count), \"tags\": \(summary.done), \"failed\": \(summary.failed), \"seconds\": \(seconds), "
        + "\"tags_per_s\": \(Double(summary.done) / seconds), \"commands_per_tag\": \(Double(commands) / Double(done)), "
        + "\"host_ms_per_tag\": \(cpu * 1000 / Double(done))}")
