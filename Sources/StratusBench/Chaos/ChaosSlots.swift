/// The records a chaos run shares: slots of folders and notes, each holding one record at a time.
///
/// A delete is final: the tombstone keeps its id, and a create of that id is refused. So a slot
/// whose record was deleted takes a record of the next generation: `n3`, then `n3.1`, `n3.2`, …
/// A device walks a slot's generations past those it holds as tombstones and edits the first
/// one it does not: the live record it holds, or a create of that generation's id. Devices that
/// have heard of the same deletes create the same id and contend for it, as they did for the
/// first. (With one id per slot, every record of a long run is a tombstone within minutes, and
/// each later write is refused.)
enum ChaosSlots {
    /// The id of generation `generation` of `slot` (`f0`, `n3`).
    static func id(_ slot: String, generation: Int) -> String {
        generation == 0 ? slot : "\(slot).\(generation)"
    }

    /// The id of `slot` a device edits: the first generation that `isTombstone` does not say
    /// the device holds as a tombstone.
    static func current(_ slot: String, isTombstone: (String) throws -> Bool) rethrows -> String {
        var generation = 0
        while try isTombstone(id(slot, generation: generation)) { generation += 1 }
        return id(slot, generation: generation)
    }
}
