/// An AWS region, with the case names of the AWS Mobile SDK (`.USEast1`) and the region names
/// AWS uses (`us-east-1`).
///
/// ```swift
/// let configuration = AWSServiceConfiguration(region: .USEast1, credentialsProvider: provider)
/// let region = "eu-west-1".aws_regionTypeValue()   // .EUWest1
/// ```
public enum AWSRegionType: Int, Sendable, Hashable, CaseIterable {
    /// No region: a service configuration with it cannot sign requests.
    case Unknown = 0
    /// `us-east-1`.
    case USEast1
    /// `us-east-2`.
    case USEast2
    /// `us-west-1`.
    case USWest1
    /// `us-west-2`.
    case USWest2
    /// `eu-west-1`.
    case EUWest1
    /// `eu-west-2`.
    case EUWest2
    /// `eu-west-3`.
    case EUWest3
    /// `eu-central-1`.
    case EUCentral1
    /// `eu-central-2`.
    case EUCentral2
    /// `eu-north-1`.
    case EUNorth1
    /// `eu-south-1`.
    case EUSouth1
    /// `eu-south-2`.
    case EUSouth2
    /// `ap-east-1`.
    case APEast1
    /// `ap-south-1`.
    case APSouth1
    /// `ap-south-2`.
    case APSouth2
    /// `ap-northeast-1`.
    case APNortheast1
    /// `ap-northeast-2`.
    case APNortheast2
    /// `ap-northeast-3`.
    case APNortheast3
    /// `ap-southeast-1`.
    case APSoutheast1
    /// `ap-southeast-2`.
    case APSoutheast2
    /// `ap-southeast-3`.
    case APSoutheast3
    /// `ap-southeast-4`.
    case APSoutheast4
    /// `ca-central-1`.
    case CACentral1
    /// `sa-east-1`.
    case SAEast1
    /// `me-south-1`.
    case MESouth1
    /// `me-central-1`.
    case MECentral1
    /// `af-south-1`.
    case AFSouth1
    /// `il-central-1`.
    case ILCentral1
    /// `cn-north-1`.
    case CNNorth1
    /// `cn-northwest-1`.
    case CNNorthWest1
    /// `us-gov-west-1`.
    case USGovWest1
    /// `us-gov-east-1`.
    case USGovEast1

    /// The region's name, such as `us-east-1`; empty for ``Unknown``.
    public var name: String {
        switch self {
        case .Unknown: ""
        case .USEast1: "us-east-1"
        case .USEast2: "us-east-2"
        case .USWest1: "us-west-1"
        case .USWest2: "us-west-2"
        case .EUWest1: "eu-west-1"
        case .EUWest2: "eu-west-2"
        case .EUWest3: "eu-west-3"
        case .EUCentral1: "eu-central-1"
        case .EUCentral2: "eu-central-2"
        case .EUNorth1: "eu-north-1"
        case .EUSouth1: "eu-south-1"
        case .EUSouth2: "eu-south-2"
        case .APEast1: "ap-east-1"
        case .APSouth1: "ap-south-1"
        case .APSouth2: "ap-south-2"
        case .APNortheast1: "ap-northeast-1"
        case .APNortheast2: "ap-northeast-2"
        case .APNortheast3: "ap-northeast-3"
        case .APSoutheast1: "ap-southeast-1"
        case .APSoutheast2: "ap-southeast-2"
        case .APSoutheast3: "ap-southeast-3"
        case .APSoutheast4: "ap-southeast-4"
        case .CACentral1: "ca-central-1"
        case .SAEast1: "sa-east-1"
        case .MESouth1: "me-south-1"
        case .MECentral1: "me-central-1"
        case .AFSouth1: "af-south-1"
        case .ILCentral1: "il-central-1"
        case .CNNorth1: "cn-north-1"
        case .CNNorthWest1: "cn-northwest-1"
        case .USGovWest1: "us-gov-west-1"
        case .USGovEast1: "us-gov-east-1"
        }
    }

    /// The region named `name`, such as `us-east-1`; `nil` for a name this list lacks.
    public init?(name: String) {
        guard let region = Self.allCases.first(where: { $0 != .Unknown && $0.name == name }) else { return nil }
        self = region
    }
}

extension String {
    /// The region this name stands for, as the AWS Mobile SDK reads `awsconfiguration.json`:
    /// ``AWSRegionType/Unknown`` for a name it does not know.
    public func aws_regionTypeValue() -> AWSRegionType {
        AWSRegionType(name: self) ?? .Unknown
    }
}
