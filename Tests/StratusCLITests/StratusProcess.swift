import Foundation
import StratusTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The `stratus` executable, run as users run it: in a directory of its own, with its standard
/// output and error written to files there and read as they grow. It cannot outlive the test
/// process (see ``ChildProcess``).
final class StratusProcess {
    /// Why a run did not go as a test expected, with what the process wrote.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    let directory: URL
    let arguments: [String]
    private let process: ChildProcess
    private let standardOutputFile: URL
    private let standardErrorFile: URL

    /// Starts `stratus arguments` in `directory`, or another of the package's executables.
    init(_ arguments: [String], in directory: URL, executable: String = "stratus") async throws {
        self.directory = directory
        self.arguments = arguments
        let name = UUID().uuidString
        standardOutputFile = directory.appending(path: "stdout-\(name).txt")
        standardErrorFile = directory.appending(path: "stderr-\(name).txt")
        process = try await ChildProcess.start(
            [try Self.executable(executable).path(percentEncoded: false)] + arguments,
            in: directory,
            output: standardOutputFile,
            errorOutput: standardErrorFile
        )
    }

    /// Kills the process at once with SIGKILL, as a crash or an out-of-memory kill would.
    func killNow() {
        process.kill()
    }

    /// Kills a process the test did not stop (a failed test): at once, without blocking.
    deinit {
        process.kill()
    }

    /// What the process wrote on its standard output so far.
    var standardOutput: String {
        (try? String(contentsOf: standardOutputFile, encoding: .utf8)) ?? ""
    }

    /// What the process wrote on its standard error so far.
    var standardError: String {
        (try? String(contentsOf: standardErrorFile, encoding: .utf8)) ?? ""
    }

    /// The complete lines of standard output so far.
    var outputLines: [String] {
        Array(standardOutput.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init))
    }

    /// Waits for a line of standard output starting with `prefix` and returns it; fails when the
    /// process exits first or nothing comes within `timeout`.
    ///
    /// The timeout only catches a process that hangs. A debug build of `stratus serve` that
    /// creates two configured users prints its endpoint after about 4 s on an idle machine, but
    /// once printed nothing within 30 s while the suite ran 16 tests at a time on two cores.
    @discardableResult
    func line(startingWith prefix: String, timeout: Duration = .seconds(120)) async throws -> String {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let line = outputLines.first(where: { $0.hasPrefix(prefix) }) { return line }
            if !process.isRunning {
                let status = try await process.wait()
                throw failure("\(status) before printing '\(prefix)…'")
            }
            guard ContinuousClock.now < deadline else {
                throw failure("printed no line starting with '\(prefix)' within \(timeout)")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Waits for the process to end by itself and returns its exit status (128 + the signal when
    /// a signal ended it); a process still running after `timeout` is stopped and fails the test.
    func exitStatus(timeout: Duration = .seconds(30)) async throws -> Int32 {
        guard let status = try await process.wait(timeout: timeout) else {
            await stop()
            throw failure("did not exit within \(timeout)")
        }
        switch status {
        case .exited(let code): return code
        case .signaled(let signal): return 128 + signal
        }
    }

    /// Sends SIGTERM and waits for the process to end; SIGKILL after five seconds.
    func stop() async {
        _ = try? await process.stop(grace: .seconds(5))
    }

    private func failure(_ problem: String) -> Failure {
        Failure(
            description: "stratus \(arguments.joined(separator: " ")) \(problem).\n"
                + "Standard output:\n\(standardOutput)\nStandard error:\n\(standardError)"
        )
    }

    /// The executable `name` next to the running test bundle in the build products directory.
    static func executable(_ name: String = "stratus") throws -> URL {
        let starts = [
            Bundle.main.bundleURL,
            URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent(),
        ]
        for start in starts {
            var directory = start.standardizedFileURL
            // From .build/debug, or from the bundle's Contents/MacOS on macOS.
            for _ in 0..<4 {
                let candidate = directory.appending(path: name)
                var isDirectory: ObjCBool = false
                if FileManager.default.fileExists(atPath: candidate.path, isDirectory: &isDirectory),
                    !isDirectory.boolValue, FileManager.default.isExecutableFile(atPath: candidate.path)
                {
                    return candidate
                }
                directory.deleteLastPathComponent()
            }
        }
        throw Failure(
            description: "No `\(name)` executable next to the test bundle (looked up from "
                + "\(starts.map(\.path).joined(separator: " and "))). Build it with `swift build --build-tests`."
        )
    }
}

/// A directory of its own for a test, removed when the test ends.
final class TemporaryDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appending(path: "stratus-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// Writes `text` into the file `name` and returns its URL.
    @discardableResult
    func write(_ text: String, to name: String) throws -> URL {
        let file = url.appending(path: name)
        try Data(text.utf8).write(to: file)
        return file
    }

    func path(_ name: String) -> String {
        url.appending(path: name).path
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }
}

/// One HTTP exchange with a running server.
struct HTTPExchange {
    let status: Int
    let body: String

    /// Sends `body` (a POST) or nothing (a GET) to `url` with the headers given.
    init(_ url: URL, post body: String? = nil, headers: [String: String] = [:]) async throws {
        var request = URLRequest(url: url)
        request.httpMethod = body == nil ? "GET" : "POST"
        request.httpBody = body.map { Data($0.utf8) }
        request.setValue("application/json", forHTTPHeaderField: "content-type")
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let (data, response) = try await URLSession.shared.data(for: request)
        status = (response as? HTTPURLResponse)?.statusCode ?? 0
        self.body = String(decoding: data, as: UTF8.self)
    }
}
