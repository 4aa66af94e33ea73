import Amplify
import Synchronization
import Testing

/// Listeners, removal and the asynchronous form of the hub.
@Suite struct HubTests {
    @Test func listenersHearTheirChannelUntilRemoved() {
        let hub = HubCategory()
        let heard = Mutex<[String]>([])
        let token = hub.listen(to: .auth) { payload in heard.withLock { $0.append("auth:\(payload.eventName)") } }
        hub.listen(to: .dataStore) { payload in heard.withLock { $0.append("dataStore:\(payload.eventName)") } }
        hub.listen(to: .auth, eventName: HubPayload.EventName.Auth.signedOut) { payload in
            heard.withLock { $0.append("signedOut only:\(payload.eventName)") }
        }

        hub.dispatch(to: .auth, payload: HubPayload(eventName: HubPayload.EventName.Auth.signedIn, data: "alice"))
        hub.dispatch(to: .api, payload: HubPayload(eventName: "API.anything"))
        hub.removeListener(token)
        hub.removeListener(token)
        hub.dispatch(to: .auth, payload: HubPayload(eventName: HubPayload.EventName.Auth.signedOut))
        hub.dispatch(to: .dataStore, payload: HubPayload(eventName: "DataStore.ready"))

        #expect(
            heard.withLock { $0 } == [
                "auth:Auth.signedIn", "signedOut only:Auth.signedOut", "dataStore:DataStore.ready",
            ]
        )
    }

    @Test func aDispatcherCanAskWhetherAnEventNameIsHeard() {
        let hub = HubCategory()
        let ready = HubPayload.EventName.DataStore.ready
        let processed = HubPayload.EventName.DataStore.outboxMutationProcessed
        #expect(!hub.hasListeners(on: .dataStore, eventName: ready))
        let readyOnly = hub.listen(to: .dataStore, eventName: ready) { _ in }
        hub.listen(to: .auth) { _ in }
        #expect(hub.hasListeners(on: .dataStore, eventName: ready))
        #expect(!hub.hasListeners(on: .dataStore, eventName: processed))
        #expect(hub.hasListeners(on: .dataStore))
        let everything = hub.listen(to: .dataStore) { _ in }
        #expect(hub.hasListeners(on: .dataStore, eventName: processed))
        hub.removeListener(everything)
        hub.removeListener(readyOnly)
        #expect(!hub.hasListeners(on: .dataStore, eventName: ready))
        #expect(!hub.hasListeners(on: .dataStore))
    }

    @Test func eventNamesAreAmplifys() {
        #expect(HubPayload.EventName.Auth.signedIn == "Auth.signedIn")
        #expect(HubPayload.EventName.Auth.signedOut == "Auth.signedOut")
        #expect(HubPayload.EventName.Auth.sessionExpired == "Auth.sessionExpired")
        #expect(HubPayload.EventName.Auth.userDeleted == "Auth.userDeleted")
        #expect(HubChannel.custom("orders") != HubChannel.auth)
        #expect("\(HubChannel.dataStore)" == "dataStore")
    }

    @Test func theAsyncSequenceDeliversInOrderAndRemovesItsListenerWhenItEnds() async {
        let hub = HubCategory()
        let events = hub.events(for: .auth)
        hub.dispatch(to: .auth, payload: HubPayload(eventName: "Auth.signedIn", data: 1))
        hub.dispatch(to: .auth, payload: HubPayload(eventName: "Auth.signedOut", data: 2))
        var names: [String] = []
        var data: [Int] = []
        for await payload in events {
            names.append(payload.eventName)
            data.append(payload.data as? Int ?? -1)
            if names.count == 2 { break }
        }
        #expect(names == ["Auth.signedIn", "Auth.signedOut"])
        #expect(data == [1, 2])
    }

    @Test func aCancelledReaderRemovesItsListener() async {
        let hub = HubCategory()
        let received = Mutex(0)
        let task = Task {
            for await _ in hub.events(for: .auth) { received.withLock { $0 += 1 } }
        }
        task.cancel()
        await task.value
        hub.dispatch(to: .auth, payload: HubPayload(eventName: "Auth.signedIn"))
        #expect(received.withLock { $0 } == 0)
    }
}
