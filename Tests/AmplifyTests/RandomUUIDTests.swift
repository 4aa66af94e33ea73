import AWSWire
import Foundation
import Testing

@testable import Amplify

@Suite struct RandomUUIDTests {
    /// Each UUID is a version 4 UUID of RFC 9562 (the version and variant bits set, the other
    /// 122 bits random): Foundation reads it back from its text, and 10,000 are all different.
    @Test func randomUUIDsAreVersionFourAndDistinct() throws {
        var seen = Set<UUID>()
        var ones = [Int](repeating: 0, count: 128)
        let count = 10_000
        for _ in 0..<count {
            let uuid = UUID.systemRandom()
            let bytes = withUnsafeBytes(of: uuid.uuid) { Array($0) }
            #expect(bytes[6] >> 4 == 4)
            #expect(bytes[8] >> 6 == 0b10)
            #expect(UUID(uuidString: uuid.uuidString) == uuid)
            seen.insert(uuid)
            for bit in 0..<128 where bytes[bit / 8] >> (7 - bit % 8) & 1 == 1 { ones[bit] += 1 }
        }
        #expect(seen.count == count)
        // Every bit outside the version and the variant is set in about half the UUIDs (the
        // bounds are over 12 standard deviations wide: a fixed or stuck bit fails).
        let fixed: Set<Int> = [48, 49, 50, 51, 64, 65]
        for bit in 0..<128 where !fixed.contains(bit) {
            #expect((4_400...5_600).contains(ones[bit]), "bit \(bit) was set \(ones[bit]) times in \(count)")
        }
    }

    /// A new outbox event gets such a UUID as its identifier.
    @Test func aNewMutationEventHasARandomIdentifier() throws {
        let first = MutationEvent(modelId: "1", modelName: "Post", json: "{}", mutationType: .create)
        let second = MutationEvent(modelId: "1", modelName: "Post", json: "{}", mutationType: .create)
        #expect(first.id != second.id)
        #expect(UUID(uuidString: first.id) != nil)
    }
}
