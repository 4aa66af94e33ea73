import Foundation
import StratusTesting

/// Runs a Python script with `input` on its standard input; its standard error is appended to
/// its output.
func runPython(_ script: String, input: String) async throws -> (status: Int32, output: String) {
    let result = try await ChildProcess.run(["python3", "-c", script], input: Data(input.utf8))
    let status: Int32 =
        switch result.status {
        case .exited(let code): code
        case .signaled(let signal): 128 + signal
        }
    return (status, result.outputText + result.errorText)
}
