import Foundation
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

    @Test func aThirdOfTheDevicesAreAppSyncClientsUnlessToldOtherwise() throws {
        let defaults = try ChaosOptions([])
        #expect((0..<3).map(defaults.client(of:)) == [.datastore, .datastore, .appsync])
        let five = try ChaosOptions(["--devices", "5"])
        #expect((0..<5).map(five.client(of:)) == [.datastore, .datastore, .datastore, .datastore, .appsync])
        let none = try ChaosOptions(["--devices", "4", "--appsync-devices", "0"])
        #expect((0..<4).allSatisfy { none.client(of: $0) == .datastore })
        let all = try ChaosOptions(["--devices", "2", "--appsync-devices", "2"])
        #expect((0..<2).allSatisfy { all.client(of: $0) == .appsync })
        do {
            _ = try ChaosOptions(["--devices", "2", "--appsync-devices", "3"])
            Issue.record("--appsync-devices 3 of 2 devices was accepted")
        } catch {
            #expect((error as? ChaosError)?.description == "--appsync-devices is at most --devices (2), not 3.")
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
        #expect(Set(postgresFaults.map(\.kind)) == Set(ChaosNemesis.Kind.of(.postgres)))
        #expect(!postgresFaults.contains { $0.kind == .nginxRestart })
        let restarts = postgresFaults.filter { $0.kind == .restart }
        #expect(Set(restarts.compactMap(\.instance)) == [0, 1])
        #expect(restarts.allSatisfy { $0.device == nil && $0.target == "instance \($0.instance ?? -1)" })
        let database = postgresFaults.filter { ChaosNemesis.Kind.of(.sqlite).contains($0.kind) == false }
        #expect(database.allSatisfy { $0.target == "postgres" && $0.device == nil })

        // The same seed replays the same schedule.
        var again = ChaosNemesis(seed: 7, devices: 3, instances: 2)
        #expect((0..<2_000).map { _ in again.next() } == postgresFaults)
    }

    @Test func anEvenScheduleGivesEachKindItsFaultsAndThenIsComplete() throws {
        #expect(try ChaosOptions([]).faultsPerKind == nil)
        #expect(try ChaosOptions(["--faults-per-kind", "500"]).faultsPerKind == 500)
        do {
            _ = try ChaosOptions(["--faults-per-kind", "0"])
            Issue.record("--faults-per-kind 0 was accepted")
        } catch {
            #expect((error as? ChaosError)?.description == "--faults-per-kind takes a number of at least 1, not '0'.")
        }
        // The usual schedule is never complete; its rarest kinds stay rare.
        var usual = ChaosNemesis(seed: 7, devices: 3, instances: 3, nginx: true)
        let usualFaults = (0..<1_000).map { _ in usual.next() }
        #expect(!usual.complete)
        #expect(usualFaults.filter { $0.kind == .nginxRestart }.count < 100)

        for (instances, nginx) in [(nil, false), (3, true)] as [(Int?, Bool)] {
            var even = ChaosNemesis(seed: 7, devices: 3, instances: instances, nginx: nginx, perKind: 40)
            var faults: [ChaosNemesis.Fault] = []
            while !even.complete, faults.count < 10_000 { faults.append(even.next()) }
            let kinds = even.kinds
            #expect(faults.count == 40 * kinds.count)
            for kind in kinds { #expect(faults.filter { $0.kind == kind }.count == 40, "\(kind)") }
            // Drawn, not dealt in turn: the kinds interleave rather than run in a fixed cycle.
            #expect(faults.prefix(kinds.count).map(\.kind) != kinds)
            // The same seed replays the same schedule.
            var again = ChaosNemesis(seed: 7, devices: 3, instances: instances, nginx: nginx, perKind: 40)
            #expect(faults.map { _ in again.next() } == faults)
        }
    }

    @Test func aSlotWhoseRecordWasDeletedTakesTheNextGeneration() {
        #expect(ChaosSlots.current("n3") { _ in false } == "n3")
        let deleted: Set = ["n3", "n3.1", "f0.1"]
        #expect(ChaosSlots.current("n3") { deleted.contains($0) } == "n3.2")
        // A tombstone of a later generation alone: the first generation not deleted is edited.
        #expect(ChaosSlots.current("f0") { deleted.contains($0) } == "f0")
        #expect(ChaosSlots.id("n3", generation: 0) == "n3")
    }

    @Test func postgresTakesNginxAndSqliteRefusesIt() throws {
        #expect(try ChaosOptions(["--store", "postgres"]).nginx == false)
        let behind = try ChaosOptions(["--store", "postgres", "--instances", "3", "--nginx"])
        #expect(behind.nginx)
        #expect(behind.instances == 3)
        #expect(try ChaosOptions(["--nginx", "--store", "postgres"]).nginx)
        for arguments in [["--nginx"], ["--store", "sqlite", "--nginx"], ["--nginx", "--store", "sqlite"]] {
            do {
                _ = try ChaosOptions(arguments)
                Issue.record("\(arguments) was accepted")
            } catch {
                #expect(
                    (error as? ChaosError)?.description
                        == "--nginx needs --store postgres: on sqlite one server in this process serves every device."
                )
            }
        }
    }

    @Test func theNginxScheduleRestartsNginxRarelyAndOnlyWithNginx() {
        var schedule = ChaosNemesis(seed: 7, devices: 3, instances: 3, nginx: true)
        let faults = (0..<2_000).map { _ in schedule.next() }
        #expect(Set(faults.map(\.kind)) == Set(ChaosNemesis.Kind.of(.postgres, nginx: true)))
        #expect(Set(ChaosNemesis.Kind.of(.postgres, nginx: true)) == Set(ChaosNemesis.Kind.allCases))
        let restarts = faults.filter { $0.kind == .nginxRestart }
        // 5 rolls in 105: about 95 in 2,000.
        #expect((50...150).contains(restarts.count))
        #expect(restarts.allSatisfy { $0.target == "nginx" && $0.device == nil && $0.instance == nil })
        #expect(restarts.allSatisfy { (100..<1_600).contains($0.duration) })
        #expect(restarts.first?.description.contains("nginx-restart nginx for") == true)

        var again = ChaosNemesis(seed: 7, devices: 3, instances: 3, nginx: true)
        #expect((0..<2_000).map { _ in again.next() } == faults)
    }

    @Test func theNginxConfigurationFillsTheClusterTemplate() throws {
        let template = try String(contentsOf: ChaosNginxConfiguration.template, encoding: .utf8)
        let filled = try ChaosNginxConfiguration.filled(
            template,
            directory: URL(fileURLWithPath: "/tmp/run/nginx"),
            port: 8_080,
            upstreams: [
                URL(string: "http://127.0.0.1:9001/graphql")!, URL(string: "http://127.0.0.1:9002/graphql")!,
            ]
        )
        #expect(!filled.contains("@"))
        #expect(!filled.split(separator: "\n").contains { $0.hasPrefix("#") })
        #expect(filled.contains("daemon off;\nmaster_process off;\n"))
        #expect(filled.contains("pid /tmp/run/nginx/nginx.pid;"))
        #expect(filled.contains("listen 127.0.0.1:8080;"))
        #expect(
            filled.contains(
                "    upstream stratus {\n        server 127.0.0.1:9001;\n        server 127.0.0.1:9002;\n"
            )
        )
        do {
            _ = try ChaosNginxConfiguration.filled(
                "daemon off;\nlisten @PORT@;",
                directory: URL(fileURLWithPath: "/tmp"),
                port: 1,
                upstreams: []
            )
            Issue.record("a template without @DIR@ was filled")
        } catch {
            #expect(
                (error as? ChaosError)?.description
                    == "The nginx template \(ChaosNginxConfiguration.template.path) has no '@DIR@', which --nginx "
                    + "fills in."
            )
        }
    }
}
