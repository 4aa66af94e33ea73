// The fuzzing target over the server's HTTP and real-time paths. Built with libFuzzer
// (`scripts/fuzz`), `LLVMFuzzerTestOneInput` receives each input; built normally, `main` replays
// the inputs of the files and directories given as arguments (a corpus), as a regression run.
#if os(Linux)
    import Foundation
    import Synchronization

    /// The server every input goes to, started on first use.
    let fuzzServer: FuzzServer = {
        let started = DispatchSemaphore(value: 0)
        let box = Mutex<Result<FuzzServer, any Error>?>(nil)
        Task {
            let result: Result<FuzzServer, any Error>
            do {
                result = .success(try await FuzzServer.start())
            } catch {
                result = .failure(error)
            }
            box.withLock { $0 = result }
            started.signal()
        }
        started.wait()
        switch box.withLock({ $0 })! {
        case .success(let server): return server
        case .failure(let error): fatalError("The fuzzing server did not start: \(error)")
        }
    }()

    @_cdecl("LLVMFuzzerTestOneInput")
    public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
        guard let input = FuzzInput(Data(bytes: data, count: size)) else { return 0 }
        fuzzServer.deliver(input)
        return 0
    }

    #if STRATUS_FUZZING
        /// libFuzzer's driver: it parses libFuzzer's flags and calls `callback` with each input.
        @_silgen_name("LLVMFuzzerRunDriver")
        func runFuzzerDriver(
            _ argc: UnsafeMutablePointer<Int32>,
            _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
            _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32
        ) -> Int32

        /// The entry point of a fuzzing build: the package manager names an executable's entry
        /// point after its module, so libFuzzer's driver is started from here.
        @_cdecl("StratusFuzz_main")
        public func fuzzingMain(
            _ argc: Int32,
            _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
        ) -> Int32 {
            var count = argc
            var arguments = argv
            return runFuzzerDriver(&count, &arguments) { data, size in
                guard let data else { return 0 }
                return fuzzOneInput(data, size)
            }
        }
    #else
        /// Replays every file of the corpus directories (or single files) given as arguments.
        @main enum CorpusReplay {
            static func main() throws {
                let verbose = CommandLine.arguments.contains("--verbose")
                let paths = CommandLine.arguments.dropFirst().filter { $0 != "--verbose" }
                guard !paths.isEmpty else {
                    print("usage: StratusFuzz CORPUS_DIRECTORY_OR_FILE…  (scripts/fuzz runs it under libFuzzer)")
                    exit(2)
                }
                var files: [URL] = []
                for path in paths {
                    let url = URL(fileURLWithPath: path)
                    var isDirectory: ObjCBool = false
                    guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                        print("No such file or directory: \(path)")
                        exit(2)
                    }
                    if isDirectory.boolValue {
                        let names = try FileManager.default.contentsOfDirectory(atPath: path).sorted()
                        files += names.map { url.appending(path: $0) }
                    } else {
                        files.append(url)
                    }
                }
                let start = ContinuousClock.now
                var slowest: (Duration, String) = (.zero, "")
                for file in files {
                    let bytes = try Data(contentsOf: file)
                    guard let input = FuzzInput(bytes) else { continue }
                    let began = ContinuousClock.now
                    let answer = fuzzServer.deliver(input)
                    let took = ContinuousClock.now - began
                    if verbose { print("\(file.lastPathComponent) (\(took)): \(answer)") }
                    if took > slowest.0 { slowest = (took, file.lastPathComponent) }
                }
                print(
                    "Replayed \(files.count) inputs in \(ContinuousClock.now - start); slowest \(slowest.1) in \(slowest.0)."
                )
            }
        }
    #endif
#else
    @main enum CorpusReplay {
        static func main() {
            print("The fuzzing target runs on Linux only.")
        }
    }
#endif
