import Testing

@testable import StratusBench

/// The chaos harness's options and its nemesis's schedules on each store.
@Suite struct ChaosOptionsTests {
    @Test func recordsSplitIntoAQuarterOfFoldersAndTheRestNotes() throws {
        let defaults = try ChaosOptions([])
        #expect(defaults.records == 16)
        #expect(defaults.folders == 4)
        #expect(defaults.notes == 12)
        let more = try ChaosOptions(["--records", "41"])
        #expect(more.folders == 10)
        #expect(more.notes == 31)
        let fewest = try ChaosOptions(["--records", "2"])
        #expect(fewest.folders == 1)
        #expect(fewest.notes == 1)
        do {
            _ = try ChaosOptions(["--records", "1"])
            Issue.record("--records 1 was accepted")
        } catch {
            #expect((error as? ChaosError)?.description == "--records takes a number of at least 2, not '1'.")
        }
    }

    @Test func postgresTakesInstancesAndSqliteRefusesThem() throws {
        let cluster = try ChaosOptions(["--store", "postgres", "--instances", "3"])
        #expect(cluster.store == .postgres)
        #expect(cluster.instances == 3)
        #expect(try ChaosOptions(["--store", "postgres"]).instances == 2)
        do {
            _ = try ChaosOptions(["--instances", "3"])
            Issue.record("--instances on sqlite was accepted")
        } catch {
            #expect(
                (error as? ChaosError)?.description
                    == "--instances needs --store postgres: on sqlite one server holds the data."
            )
        }
        do {
            _ = try ChaosOptions(["--store", "mysql"])
            Issue.record("--store mysql was accepted")
        } catch {
            #expect((error as? ChaosError)?.description == "--store takes sqlite or postgres, not 'mysql'.")
        }
    }

    @Test func conflictsTakeEachStrategyCustomIncluded() throws {
        #expect(try ChaosOptions([]).conflicts == .automerge)
        #expect(try ChaosOptions(["--conflicts", "optimistic"]).conflicts == .optimistic)
        #expect(try ChaosOptions(["--conflicts", "custom"]).conflicts == .custom)
        do {
            _ = try ChaosOptions(["--conflicts", "lww"])
            Issue.record("--conflicts lww was accepted")
        } catch {
            #expect(
                (error as? ChaosError)?.description == "--conflicts takes automerge, optimistic or custom, not 'lww'."
            )
        }
    }

    @Test func theSqliteScheduleHasNoDatabaseFaultsAndThePostgresScheduleHasThemAll() {
        var sqlite = ChaosNemesis(seed: 7, devices: 3)
        let sqliteFaults = (0..<2_000).map { _ in sqlite.next() }
        #expect(Set(sqliteFaults.map(\.kind)) == Set(ChaosNemesis.Kind.of(.sqlite)))
        #expect(sqliteFaults.allSatisfy { $0.instance == nil })
        #expect(sqliteFaults.filter { $0.kind == .restart }.allSatisfy { $0.target == "server" })

        var postgres = ChaosNemesis(seed: 7, devices: 3, instances: 2)
        let postgresFaults = (0..<2_000).map { _ in postgres.next() }
        #expect(Set(postgresFaults.map(\.kind)) == Set(ChaosNemesis.Kind.allCases))
        let restarts = postgresFaults.filter { $0.kind == .restart }
        #expect(Set(restarts.compactMap(\.instance)) == [0, 1])
        #expect(restarts.allSatisfy { $0.device == nil && $0.target == "instance \($0.instance ?? -1)" })
        let database = postgresFaults.filter { ChaosNemesis.Kind.of(.sqlite).contains($0.kind) == false }
        #expect(database.allSatisfy { $0.target == "postgres" && $0.device == nil })

        // The same seed replays the same schedule.
        var again = ChaosNemesis(seed: 7, devices: 3, instances: 2)
        #expect((0..<2_000).map { _ in again.next() } == postgresFaults)
    }
}
