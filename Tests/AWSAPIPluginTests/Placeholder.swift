// Tests for AWSAPIPlugin.
