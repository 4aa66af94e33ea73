import AWSAPIGateway
import AWSAuthCore
import AWSCore
import AWSMobileClient
import Foundation
import RESTClient
import Synchronization
import Testing

/// The "ViewController or application context" of the REST API guide's snippet, whose `print`
/// writes into ``output`` so that tests read what the snippet printed.
struct SeedApp: Sendable {
    let output = PrintedLines()

    func print<Value>(_ value: Value) {
        output.append(String(describing: value))
    }

    // The guide's `doInvokeAPI()`, with only `import UIKit` removed.

    func doInvokeAPI() {
        // change the method name, or path or the query string parameters here as desired
        let httpMethodName = "POST"
        // change to any valid path you configured in the API
        let URLString = "/items"
        let queryStringParameters = ["key1": "{value1}"]
        let headerParameters = [
            "Content-Type": "application/json",
            "Accept": "application/json",
        ]

        let httpBody = "{ \n  " + "\"key1\":\"value1\", \n  " + "\"key2\":\"value2\", \n  " + "\"key3\":\"value3\"\n}"

        // Construct the request object
        let apiRequest = AWSAPIGatewayRequest(
            httpMethod: httpMethodName,
            urlString: URLString,
            queryParameters: queryStringParameters,
            headerParameters: headerParameters,
            httpBody: httpBody
        )

        // Create a service configuration
        let serviceConfiguration = AWSServiceConfiguration(
            region: AWSRegionType.USEast1,
            credentialsProvider: AWSMobileClient.sharedInstance().getCredentialsProvider()
        )

        // Initialize the API client using the service configuration
        xyz123useamplifyabcdClient.registerClient(withConfiguration: serviceConfiguration!, forKey: "CloudLogicAPIKey")

        // Fetch the Cloud Logic client to be used for invocation
        let invocationClient = xyz123useamplifyabcdClient.client(forKey: "CloudLogicAPIKey")

        invocationClient.invoke(apiRequest).continueWith { (task: AWSTask) -> Any? in
            if let error = task.error {
                print("Error occurred: \(error)")
                // Handle error here
                return nil
            }

            // Handle successful result here
            let result = task.result!
            let responseString = String(data: result.responseData!, encoding: .utf8)

            print(responseString)
            print(result.statusCode)

            return nil
        }
    }
}

/// Lines a snippet printed, read by tests once they have arrived.
final class PrintedLines: Sendable {
    private let lines = Mutex<[String]>([])

    func append(_ line: String) {
        lines.withLock { $0.append(line) }
    }

    /// The first `count` lines, waiting for them up to 30 seconds (a loaded machine is slow;
    /// the lines usually arrive within milliseconds).
    func first(_ count: Int) async throws -> [String] {
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            let current = lines.withLock { $0 }
            if current.count >= count { return Array(current.prefix(count)) }
            try await Task.sleep(for: .milliseconds(10))
        }
        let current = lines.withLock { $0 }
        Issue.record("Expected \(count) printed lines, got \(current)")
        return current
    }
}
