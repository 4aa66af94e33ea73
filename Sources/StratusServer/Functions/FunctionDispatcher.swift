import Foundation
import Synchronization

/// The invocations of one function runtime, handed to its processes as they poll the Lambda
/// Runtime API: one at a time to each process, first come, first served.
///
/// Each process has a slot of its own (its own Runtime API listener), so the dispatcher knows
/// which process holds which invocation: when an invocation times out, that process is stopped,
/// as Lambda stops the sandbox of a function that timed out; when a process dies, the
/// invocation it held fails at once.
final class FunctionDispatcher: Sendable {
    /// An invocation waiting for its result.
    struct Invocation: Sendable {
        let id: String
        let event: Data
        /// When it times out, in epoch milliseconds (`Lambda-Runtime-Deadline-Ms`): set when a
        /// process takes it.
        var deadline = 0
        let continuation: CheckedContinuation<Result<Data, FunctionFailure>, Never>
    }

    private struct State {
        var pending: [Invocation] = []
        /// Processes waiting in `next`, by slot.
        var pollers: [(slot: Int, continuation: CheckedContinuation<Invocation?, Never>)] = []
        /// The invocation each slot's process holds.
        var held: [Int: Invocation] = [:]
        /// The id of the invocation each slot's process was handed last: what the lines it
        /// writes belong to.
        var lastHanded: [Int: String] = [:]
        /// Slots whose current process has polled at least once.
        var ready: Set<Int> = []
        /// The timer of each invocation: the function's timeout once a process holds it, the
        /// Lambda init limit (10 seconds) on top of it while it waits for one.
        var timers: [String: Task<Void, Never>] = [:]
        var closed = false
    }

    let functionName: String
    let timeout: Duration
    private let state = Mutex(State())
    /// Stops the process of a slot (its invocation timed out).
    private let stopProcess: @Sendable (Int) -> Void

    init(functionName: String, timeout: Duration, stopProcess: @escaping @Sendable (Int) -> Void) {
        self.functionName = functionName
        self.timeout = timeout
        self.stopProcess = stopProcess
    }

    /// Runs one invocation of `event`, numbered `id`, and returns the function's response body.
    func invoke(_ event: Data, id: String) async -> Result<Data, FunctionFailure> {
        await withCheckedContinuation { continuation in
            var invocation = Invocation(id: id, event: event, continuation: continuation)
            enum Placement {
                case handedTo(CheckedContinuation<Invocation?, Never>)
                case queued
                case refused
            }
            let placement: Placement = state.withLock { state in
                if state.closed { return .refused }
                guard !state.pollers.isEmpty else {
                    state.pending.append(invocation)
                    state.timers[id] = timer(id, after: timeout + Self.initLimit)
                    return .queued
                }
                let poller = state.pollers.removeFirst()
                hand(&invocation, to: poller.slot, in: &state)
                return .handedTo(poller.continuation)
            }
            switch placement {
            case .handedTo(let poller):
                poller.resume(returning: invocation)
            case .queued:
                break
            case .refused:
                continuation.resume(
                    returning: .failure(
                        FunctionFailure(kind: .exited("the server is stopping"), detail: "The server is stopping.")
                    )
                )
            }
        }
    }

    /// How long an invocation may wait for a process to start and ask for it, besides the
    /// function's timeout: Lambda's limit on a function's initialization.
    static let initLimit = Duration.seconds(10)

    /// Gives `invocation` to the process of `slot`, its deadline from now.
    private func hand(_ invocation: inout Invocation, to slot: Int, in state: inout State) {
        let milliseconds = Int(
            timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000
        )
        invocation.deadline = Int((Date().timeIntervalSince1970 * 1000).rounded(.down)) + milliseconds
        state.held[slot] = invocation
        state.lastHanded[slot] = invocation.id
        state.timers[invocation.id]?.cancel()
        state.timers[invocation.id] = timer(invocation.id, after: timeout)
    }

    private func timer(_ id: String, after duration: Duration) -> Task<Void, Never> {
        Task {
            do {
                try await Task.sleep(for: duration)
            } catch {
                return
            }
            self.expire(id)
        }
    }

    /// Ends the timer of `id`.
    private func settle(_ id: String, in state: inout State) {
        state.timers.removeValue(forKey: id)?.cancel()
    }

    /// The next invocation for the process of `slot`, waiting for one; `nil` when the runtime
    /// is closing.
    func next(slot: Int) async -> Invocation? {
        await withCheckedContinuation { (continuation: CheckedContinuation<Invocation?, Never>) in
            let ready: Invocation?? = state.withLock { state in
                if state.closed { return .some(nil) }
                state.ready.insert(slot)
                if let held = state.held[slot] {
                    // A process that polls again gave up the invocation it held.
                    state.held[slot] = nil
                    settle(held.id, in: &state)
                    held.continuation.resume(
                        returning: .failure(
                            FunctionFailure(
                                kind: .exited("the runtime asked for the next invocation without answering"),
                                detail: "The function '\(functionName)' asked for its next invocation without "
                                    + "answering invocation \(held.id)."
                            )
                        )
                    )
                }
                guard !state.pending.isEmpty else {
                    state.pollers.append((slot, continuation))
                    return nil
                }
                var invocation = state.pending.removeFirst()
                hand(&invocation, to: slot, in: &state)
                return .some(invocation)
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    /// The id of the invocation the process of `slot` holds, or answered last; `nil` before
    /// its first.
    func lastHanded(slot: Int) -> String? {
        state.withLock { $0.lastHanded[slot] }
    }

    /// Completes the invocation `id` that the process of `slot` holds; `false` when it holds
    /// no such invocation.
    func complete(slot: Int, id: String, with result: Result<Data, FunctionFailure>) -> Bool {
        let invocation: Invocation? = state.withLock { state in
            guard let held = state.held[slot], held.id == id else { return nil }
            state.held[slot] = nil
            settle(id, in: &state)
            return held
        }
        guard let invocation else { return false }
        invocation.continuation.resume(returning: result)
        return true
    }

    /// The process of `slot` ended `how` (`exit status 1`): the invocation it held fails, and
    /// if no process of the function ever became ready, so do those waiting (the function
    /// cannot start). Returns whether the process had polled for invocations.
    func processEnded(slot: Int, how: String) -> Bool {
        let (held, waiting, poller, wasReady) = state.withLock { state in
            let held = state.held.removeValue(forKey: slot)
            if let held { settle(held.id, in: &state) }
            let wasReady = state.ready.remove(slot) != nil
            let poller = state.pollers.firstIndex { $0.slot == slot }.map { state.pollers.remove(at: $0).continuation }
            var waiting: [Invocation] = []
            if !wasReady, state.ready.isEmpty {
                waiting = state.pending
                state.pending = []
                for invocation in waiting { settle(invocation.id, in: &state) }
            }
            return (held, waiting, poller, wasReady)
        }
        poller?.resume(returning: nil)
        if let held {
            held.continuation.resume(
                returning: .failure(
                    FunctionFailure(
                        kind: .exited(how),
                        detail: "The function '\(functionName)' exited (\(how)) during invocation \(held.id)."
                    )
                )
            )
        }
        for invocation in waiting {
            invocation.continuation.resume(
                returning: .failure(
                    FunctionFailure(
                        kind: .exited(how),
                        detail: "The function '\(functionName)' exited (\(how)) before it asked for an invocation."
                    )
                )
            )
        }
        return wasReady
    }

    /// Fails every invocation and releases every poller: the runtime is closing.
    func close() {
        let (pending, held, pollers) = state.withLock { state in
            state.closed = true
            defer {
                state.pending = []
                state.held = [:]
                state.pollers = []
                for timer in state.timers.values { timer.cancel() }
                state.timers = [:]
            }
            return (state.pending, Array(state.held.values), state.pollers.map(\.continuation))
        }
        for poller in pollers { poller.resume(returning: nil) }
        for invocation in pending + held {
            invocation.continuation.resume(
                returning: .failure(
                    FunctionFailure(kind: .exited("the server is stopping"), detail: "The server is stopping.")
                )
            )
        }
    }

    private func expire(_ id: String) {
        let (invocation, slot): (Invocation?, Int?) = state.withLock { state in
            state.timers[id] = nil
            if let index = state.pending.firstIndex(where: { $0.id == id }) {
                return (state.pending.remove(at: index), nil)
            }
            guard let (slot, held) = state.held.first(where: { $0.value.id == id }) else { return (nil, nil) }
            state.held[slot] = nil
            return (held, slot)
        }
        guard let invocation else { return }
        if let slot { stopProcess(slot) }
        invocation.continuation.resume(
            returning: .failure(
                FunctionFailure(
                    kind: .timedOut(timeout),
                    detail: "The function '\(functionName)' did not answer invocation \(id) within its timeout"
                        + (slot == nil ? "; no process of it asked for the invocation." : "; its process was stopped.")
                )
            )
        )
    }
}
