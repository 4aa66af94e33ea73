// DataStore: an on-device store with predicates, relations and observation.
