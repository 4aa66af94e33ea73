/// An item as stored: its field values and its sync metadata.
struct StoredItem: Sendable, Hashable {
    /// Stored field values by name; an absent key is an absent (null) field.
    var values: JSONObject
    /// `_version`, with conflict detection.
    var version: Int?
    /// `_deleted`: `true` for tombstones, `nil` for live items.
    var deleted: Bool?
    /// `_lastChangedAt`, in epoch milliseconds, with conflict detection.
    var lastChangedAt: Int?

    /// `true` for a tombstone.
    var isDeleted: Bool { deleted == true }
}

/// A page of items read by key order, DynamoDB style: `limit` items are read, those the filter
/// accepts are returned, and the page continues after the last item read.
struct PageQuery: Sendable {
    var model: String
    /// Which items the key selects (partition key equality, sort key conditions, index fields
    /// present): evaluated before `limit`, as DynamoDB's key condition.
    var keyCondition: ItemPredicate
    /// Which of the items read are returned: evaluated after `limit`, as DynamoDB's filter.
    var filter: ItemPredicate?
    /// The order: fields whose values are never null for the selected items, ending with the
    /// primary key so that the order is total.
    var order: [String]
    var descending: Bool
    /// The `order` values of the last item of the previous page.
    var after: [JSON]?
    var limit: Int
    /// Tombstones that expired before this instant (epoch milliseconds) do not exist.
    var now: Int
}

/// The result of a ``PageQuery``.
struct ItemPage: Sendable {
    /// The items the filter accepted.
    var items: [StoredItem]
    /// The `order` values of the last item read, when more items follow it.
    var lastKey: [JSON]?
}

/// A page of the delta journal: the changes to one model since an instant, in the order they
/// were made.
struct ChangeQuery: Sendable {
    var model: String
    /// Changes made at or after this instant, in epoch milliseconds.
    var since: Int
    var filter: ItemPredicate?
    /// The journal position of the last change of the previous page.
    var afterPosition: Int?
    var limit: Int
    /// Journal entries that expired before this instant do not exist.
    var now: Int
}

/// The result of a ``ChangeQuery``.
struct ChangePage: Sendable {
    /// The item as each change left it, oldest first; one item may appear several times.
    var items: [StoredItem]
    /// The journal position of the last change read, when more follow it.
    var lastPosition: Int?
}

/// An atomic, conditional write of one item.
struct ItemWrite: Sendable {
    /// The name of the lock of the item `key` of `model`, the same in every server and store:
    /// `Post:["p1"]`.
    static func lockName(model: String, key: [JSON]) -> String {
        model + ":" + JSON.array(key).text
    }

    /// The name of the lock of the item this write writes.
    var lockName: String { Self.lockName(model: model, key: key) }

    /// What must hold about the stored item for the write to happen.
    enum Expectation: Sendable, Hashable {
        /// No item has the key (tombstones count as items).
        case absent
        /// An item has the key, with this `_version` when one is given.
        case present(version: Int?)
    }

    /// What the write does.
    enum Action: Sendable, Hashable {
        /// Stores the item under the key, replacing the stored one.
        case put(StoredItem)
        /// Removes the item.
        case remove
    }

    var model: String
    /// The primary key values, in key order.
    var key: [JSON]
    var expectation: Expectation
    /// The mutation's `condition`, evaluated on the stored item, or on an item without fields
    /// when there is none.
    var condition: ItemPredicate?
    var action: Action
    /// When a put is a tombstone, the instant (epoch milliseconds) it expires.
    var expiresAt: Int?
    /// When set, the change is recorded in the delta journal, expiring at this instant.
    var journalExpiresAt: Int?
    /// Expired tombstones and journal entries before this instant do not exist.
    var now: Int
    /// The `Idempotency-Key` of the mutation, recorded in the write's transaction when it writes.
    var idempotency: IdempotencyClaim? = nil
    /// What subscriptions hear of the write once it is committed; a store that
    /// ``ServerStore/announcesWrites`` records it in the write's transaction.
    var announcement: WriteAnnouncement? = nil
}

/// A committed write as subscriptions hear of it: the kind of mutation, the item after the write
/// (for a removal, its last values) and the fields the mutation selected.
struct WriteAnnouncement: Sendable, Hashable {
    var kind: WriteEvent.Kind
    var item: StoredItem
    /// The fields the mutation selected, `nil` for all.
    var selectedFields: Set<String>?
    /// When a store that announces writes recorded the announcement, in epoch milliseconds:
    /// its delivery lag is measured from then.
    var committedAt: Int? = nil
}

/// The result of a hand-written mutation that a hand-written subscription lists, as its
/// subscribers hear it.
struct PublishedResult: Sendable, Hashable {
    /// The mutation field: `publish`.
    var mutation: String
    /// The result's fields the mutation selected.
    var result: JSONObject
}

/// What came of an ``ItemWrite``.
enum WriteOutcome: Sendable, Hashable {
    case written
    /// No item has the key, and the write expected one.
    case missing
    /// An item has the key, and the write expected none.
    case exists
    /// The condition does not hold.
    case conditionFailed
    /// The stored item has another `_version`: the caller reads it again and retries.
    case stale(StoredItem)
}

/// What came of a batch of ``ItemWrite``s written all or nothing.
enum BatchWriteOutcome: Sendable, Hashable {
    /// Every write was made.
    case written
    /// The write at `index` would have answered `outcome`, so none was made.
    case refused(index: Int, outcome: WriteOutcome)
}

/// The write of a batch that refused it, thrown out of the batch's transaction to roll it back.
struct BatchRefusal: Error {
    var index: Int
    var outcome: WriteOutcome
}

/// Where the local backend keeps items: the embedded SQLite store (``SQLiteItemStore``) or a
/// PostgreSQL database (``PostgresItemStore``).
///
/// Filters, conditions, ordering and paging are the store's: an implementation evaluates them
/// in its query language, reading no more than a page.
protocol ItemStore: Sendable {
    /// The item with this primary key (in key order), tombstones included.
    func fetchItem(model: String, key: [JSON], now: Int) async throws -> StoredItem?
    /// A page of items in key order.
    func fetchPage(_ query: PageQuery) async throws -> ItemPage
    /// A page of the delta journal.
    func fetchChanges(_ query: ChangeQuery) async throws -> ChangePage
    /// Writes one item if its expectation and condition hold.
    func write(_ write: ItemWrite) async throws -> WriteOutcome
    /// The secret that signs pagination tokens, the same for as long as the data lives.
    func tokenSecret() -> [UInt8]
}

/// Everything the server keeps in its store: items and their journal (``ItemStore``), the
/// `Idempotency-Key`s of mutations, and, for a store several servers share, the announcements of
/// committed writes.
protocol ServerStore: ItemStore {
    /// The additive schema changes applied when the store opened.
    var appliedChanges: [SchemaChange] { get }
    /// How many pages ``ItemStore/fetchPage(_:)`` has read since the store opened.
    var pagesRead: Int { get }
    /// `true` when the store delivers committed writes to subscriptions itself, from a journal
    /// every server sharing it reads (``ItemWrite/announcement``, ``startAnnouncements(_:)``);
    /// `false` when the server announces its own writes once they are committed.
    var announcesWrites: Bool { get }

    /// Writes `writes` in one transaction, in order, each checked as ``ItemStore/write(_:)``
    /// checks it, on the items as the earlier ones left them: all of them, or none when one's
    /// expectation or condition does not hold.
    func write(batch writes: [ItemWrite]) async throws -> BatchWriteOutcome
    /// What the store holds for `key` of the caller `scope`, unless it expired before `now`.
    func idempotencyRecord(scope: String, key: String, now: Int) async throws -> IdempotencyRecord?
    /// Records the response to the first request with the key of `claim`; a response recorded
    /// already stays as it was.
    func recordResponse(_ response: IdempotencyRecord.Response, for claim: IdempotencyClaim, now: Int) async throws
    /// Calls `deliver` with every write announced from now on, and `published` with every
    /// hand-written mutation's result (``announce(_:now:)``), by any server sharing the store,
    /// once each and in commit order. Stores that do not announce writes never call them.
    func startAnnouncements(
        _ deliver: @escaping @Sendable (_ model: String, WriteAnnouncement) -> Void,
        published: @escaping @Sendable (PublishedResult) -> Void
    )
    /// Records `published` for every server sharing the store, which hands it to `published` of
    /// ``startAnnouncements(_:published:)``. Only a store that ``announcesWrites`` is asked.
    func announce(_ published: PublishedResult, now: Int) async throws
    /// The value stored under `name`, storing `proposed` first when there is none: servers
    /// sharing the store agree on the first value stored.
    func sharedSetting(_ name: String, proposing proposed: String) async throws -> String
    /// Reads from the store, so that a health check fails when the store cannot answer.
    func checkHealth() async throws
    /// Why the store cannot hear other servers' writes yet, or `nil` when it hears them (or
    /// shares its store with no other server).
    var announcementsProblem: String? { get }
    /// Closes the store; it answers nothing afterwards.
    func close() throws(StorageError)
}
