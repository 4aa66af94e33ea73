// The local AppSync-compatible backend.
