import Foundation
import Synchronization

@_exported import protocol AWSPluginsCore.AWSCredentialsProvider
@_exported import struct AWSWire.AWSCredentials

/// Where a service client sends its requests and how it signs them: the region and the
/// credentials provider, as the AWS Mobile SDK configures its clients.
///
/// ```swift
/// let serviceConfiguration = AWSServiceConfiguration(
///     region: AWSRegionType.USEast1,
///     credentialsProvider: AWSMobileClient.sharedInstance().getCredentialsProvider()
/// )
/// ```
public struct AWSServiceConfiguration: Sendable {
    /// The region requests are signed for.
    public let regionType: AWSRegionType
    /// What signs the requests; `nil` sends them unsigned.
    public let credentialsProvider: (any AWSCredentialsProvider)?
    /// Where requests go instead of the client's own endpoint, such as a local server.
    public let endpoint: AWSEndpoint?

    /// A configuration for `region`, signing with `credentialsProvider`.
    ///
    /// Never `nil`: it is implicitly unwrapped so that code written for the AWS Mobile SDK,
    /// which unwraps it with `!`, compiles unchanged.
    public init!(region: AWSRegionType, credentialsProvider: (any AWSCredentialsProvider)?) {
        self.init(region: region, endpoint: nil, credentialsProvider: credentialsProvider)
    }

    /// A configuration for `region` whose requests go to `endpoint`.
    public init(region: AWSRegionType, endpoint: AWSEndpoint?, credentialsProvider: (any AWSCredentialsProvider)?) {
        self.regionType = region
        self.endpoint = endpoint
        self.credentialsProvider = credentialsProvider
    }
}

/// The base URL of a service, for a configuration that overrides a client's own.
public struct AWSEndpoint: Sendable, Hashable {
    /// The base URL, such as `http://127.0.0.1:20002/rest/items`.
    public let url: URL

    /// An endpoint at `url`.
    public init(url: URL) {
        self.url = url
    }
}

/// The configuration service clients use when none is given: the AWS Mobile SDK's
/// `AWSServiceManager.default().defaultServiceConfiguration`.
public final class AWSServiceManager: Sendable {
    private static let shared = AWSServiceManager()
    private let configuration = Mutex<AWSServiceConfiguration?>(nil)

    private init() {}

    /// The process's service manager.
    public static func `default`() -> AWSServiceManager { shared }

    /// The configuration of clients created without one, such as generated clients'
    /// `default()`; `nil` until set.
    public var defaultServiceConfiguration: AWSServiceConfiguration? {
        get { configuration.withLock { $0 } }
        set { configuration.withLock { $0 = newValue } }
    }
}
