import Foundation
import StratusTesting
import Testing

/// `ChildProcess.run`: what a program given input answers, whether it reads that input or not.
@Suite struct ChildProcessTests {
    @Test func aProgramReadsItsInput() async throws {
        let result = try await ChildProcess.run(
            ["python3", "-c", "import sys; print(len(sys.stdin.read()))"],
            input: Data(repeating: 65, count: 300_000)
        )
        #expect(result.status == .exited(0))
        #expect(result.outputText == "300000\n")
    }

    /// A program that ends without reading its input, as a Python reference whose import
    /// fails does, is an ordinary failure of that program, not a crash of the test process.
    @Test func aProgramThatIgnoresItsInputEndsAsItEnds() async throws {
        let result = try await ChildProcess.run(
            ["python3", "-c", "import sys; sys.stderr.write('no module named gql'); sys.exit(3)"],
            input: Data(repeating: 65, count: 4 << 20)
        )
        #expect(result.status == .exited(3))
        #expect(result.errorText == "no module named gql")
    }

    @Test func aMissingPythonModuleIsNamed() async throws {
        let result = try await ChildProcess.run(["python3", "-c", "import stratus_absent_reference"])
        #expect(result.missingPythonModule == "stratus_absent_reference")
        let fine = try await ChildProcess.run(["python3", "-c", #"print("No module named 'x'")"#])
        #expect(fine.missingPythonModule == nil)
    }
}
