// SigV4 signatures per second, alone: no network, no server.
//
// Run with `swift run -c release StratusBench sigv4` (the `api` suite runs it too). The
// environment variable `STRATUS_BENCH_SIGNATURES` sets the number of signatures, which keeps
// a run under valgrind short: `valgrind --tool=callgrind .build/release/StratusBench sigv4`.
import AWSPluginsCore
import AWSWire
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Signs a POST of a 1 KB GraphQL body, with the headers the API plugin sends and temporary
/// credentials, as a `URLRequest` and as a `SigV4Request`, and prints the rates.
struct SigV4Benchmark {
    var signatures = ProcessInfo.processInfo.environment["STRATUS_BENCH_SIGNATURES"].flatMap(Int.init) ?? 100_000

    static let url = URL(string: "https://abcdefghijklmnopqrstuvwxyz.appsync-api.us-east-1.amazonaws.com/graphql")!

    /// A GraphQL mutation padded to 1,024 bytes.
    static let body: Data = {
        let prefix =
            #"{"query":"mutation Create($input: CreateNoteInput!) { createNote(input: $input) { id text } }","#
            + #""variables":{"input":{"id":"n1","text":""#
        let suffix = #""}}}"#
        let padding = String(repeating: "x", count: 1_024 - prefix.utf8.count - suffix.utf8.count)
        return Data((prefix + padding + suffix).utf8)
    }()

    static let credentials = AWSCredentials(
        accessKeyId: "ASIAEXAMPLEEXAMPLE12",
        secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY",
        sessionToken: String(repeating: "FwoGZXIvYXdzEJr//////////wEaDH", count: 12)
    )

    func run() {
        let signer = SigV4Signer(service: "appsync", region: "us-east-1")
        var urlRequest = URLRequest(url: Self.url)
        urlRequest.httpMethod = "POST"
        urlRequest.httpBody = Self.body
        urlRequest.setValue("application/json", forHTTPHeaderField: "content-type")
        urlRequest.setValue("application/json, application/graphql-response+json", forHTTPHeaderField: "accept")
        urlRequest.setValue("amplify-swift/2.0 stratus", forHTTPHeaderField: "user-agent")
        let request = SigV4Request(
            method: "POST",
            url: Self.url,
            headers: [
                "content-type": "application/json",
                "accept": "application/json, application/graphql-response+json",
                "user-agent": "amplify-swift/2.0 stratus",
            ],
            body: Self.body
        )

        print("sigv4: \(signatures) signatures of a POST with a \(Self.body.count)-byte body, one thread")
        var sink = 0
        let viaURLRequest = rate("URLRequest") {
            let signed = signer.sign(urlRequest, credentials: Self.credentials, date: Date())
            sink &+= signed.value(forHTTPHeaderField: "authorization")?.utf8.count ?? 0
        }
        let viaSigV4Request = rate("SigV4Request") {
            let signed = signer.sign(request, credentials: Self.credentials, date: Date())
            sink &+= signed.headers.count
        }
        precondition(sink > 0)
        print("    SigV4Request is \(format(viaSigV4Request / viaURLRequest))x the URLRequest rate")
    }

    /// Runs `body` `signatures` times after a warm-up and prints the rate, by the clock and by
    /// the thread's CPU time: on a shared machine the second says what one core does.
    private func rate(_ name: String, _ body: () -> Void) -> Double {
        for _ in 0..<min(1_000, signatures) { body() }
        let clock = ContinuousClock()
        let cpuStart = Self.threadCPUSeconds()
        let elapsed = clock.measure {
            for _ in 0..<signatures { body() }
        }
        let cpu = Self.threadCPUSeconds() - cpuStart
        let rate = Double(signatures) / elapsed.inSeconds
        print(
            "  SigV4 \(name.padding(toLength: 13, withPad: " ", startingAt: 0)) \(format(rate)) signatures/s, "
                + "\(format(Double(signatures) / cpu)) per CPU-second"
        )
        return rate
    }

    /// The CPU time of the calling thread, in seconds.
    private static func threadCPUSeconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    private func format(_ value: Double) -> String {
        String(format: value >= 100 ? "%.0f" : "%.2f", value)
    }
}
