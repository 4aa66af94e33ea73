// Tests for AWSDataStorePlugin.
