// nfctool: everything happens in NFCToolCore; this only connects it to the process.
import Foundation
import NFCToolCore

let status = await runTool(
    argumentBytes: CommandLineTool.processArgumentBytes,
    environment: ProcessInfo.processInfo.environment,
    io: StandardIO()
)
exit(status.rawValue)
