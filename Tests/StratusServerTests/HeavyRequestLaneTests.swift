import Synchronization
import Testing

@testable import StratusServer

#if canImport(Glibc)
    import Glibc
#endif

/// The thread that heavy requests run on: one request at a time, at a lower priority.
@Suite struct HeavyRequestLaneTests {
    @Test func oneRequestRunsAtATimeInArrivalOrder() async throws {
        let lane = HeavyRequestLane()
        let hold = Hold()
        let ran = Recorded<Int>()
        let first = Task {
            await lane.run {
                ran.append(1)
                await hold.hold()
            }
        }
        await hold.untilHeld()
        let second = Task { await lane.run { ran.append(2) } }
        while lane.waiting == 0 { await Task.yield() }
        #expect(ran.values == [1])
        hold.release()
        await first.value
        await second.value
        #expect(ran.values == [1, 2])
        #expect(lane.requestsRun == 2)
    }

    @Test func aRequestCancelledWhileItWaitsRunsWithoutWaitingForItsTurn() async throws {
        let lane = HeavyRequestLane()
        let hold = Hold()
        let firstEnded = Recorded<Bool>()
        let first = Task {
            await lane.run {
                await hold.hold()
                firstEnded.append(true)
            }
        }
        await hold.untilHeld()
        // Were the cancelled request to wait for its turn, it would run after this release. The
        // lane's thread runs at a low priority and, on a loaded machine, may wait seconds for a
        // core, so the release comes late enough not to be taken for the lane's delay.
        let watchdog = Task {
            try await Task.sleep(for: .seconds(60))
            hold.release()
        }
        let second = Task { await lane.run { firstEnded.values.isEmpty } }
        while lane.waiting == 0 { await Task.yield() }
        second.cancel()
        #expect(await second.value == true)
        watchdog.cancel()
        hold.release()
        await first.value
    }

    #if canImport(Glibc)
        @Test func itsWorkRunsAtTheLanesNiceValue() async throws {
            let lane = HeavyRequestLane()
            let nice = await lane.run { getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0) }
            #expect(nice == HeavyRequestLane.niceness)
            // The lane lowers its own thread only: the calling thread keeps the process's value.
            #expect(getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0) < HeavyRequestLane.niceness)
        }
    #endif
}
